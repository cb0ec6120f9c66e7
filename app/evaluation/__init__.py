"""`earnings-desk eval`: run pipelines over a folder of calls, score every report with
deterministic metrics and optionally an LLM judge, write tables and a chart (issue 5)."""
