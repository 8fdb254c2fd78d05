"""Replication (HA) and controller commands."""
