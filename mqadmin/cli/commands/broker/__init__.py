"""Broker commands: config, consume stats and store maintenance."""
