"""Harnesses for real third-party RocketMQ clients (see README.md in this directory)."""
