"""mqadmin: a fast, scriptable admin toolkit for Apache RocketMQ."""

__version__ = "0.1.0"
