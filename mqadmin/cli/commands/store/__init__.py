"""Broker store maintenance commands (RocksDB consume queues and metadata, POP records)."""
