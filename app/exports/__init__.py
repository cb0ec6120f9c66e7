"""Report exports for analysts: PDF (pdf.py), xlsx and CSV (tables.py)."""
