"""Wire format: RocketMQ remoting frames, headers, fastjson-tolerant bodies and stored messages.

Nothing here does I/O; the transport and the servers build on it.
"""

from mqadmin.wire.frame import (
    MAX_FRAME_LENGTH,
    FrameError,
    RemotingCommand,
    SerializeType,
    decode_frame,
    encode_frame,
)

__all__ = [
    "MAX_FRAME_LENGTH",
    "FrameError",
    "RemotingCommand",
    "SerializeType",
    "decode_frame",
    "encode_frame",
]
