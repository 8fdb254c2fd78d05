"""The fleet audit: rules over exported metadata, run by PySpark (job.py) or in plain Python (baseline.py)."""
