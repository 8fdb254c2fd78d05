"""Consumer, producer and offset commands (consumerProgress, resetOffsetByTime, ...)."""
