"""The embedded RocketMQ-compatible name server and broker (``mqadmin dev``).

They reuse the wire layer and speak the same protocol as Apache RocketMQ 4.9/5.x servers, so
real clients and tools work against them.
"""
