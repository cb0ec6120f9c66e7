"""Report exports for analysts (PDF)."""
