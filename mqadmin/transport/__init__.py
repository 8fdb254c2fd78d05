"""Transport: asyncio connections carrying remoting frames, matched by opaque.

``Transport`` is the injectable seam (like httpx's transports): the admin client only needs
``request``, ``oneway`` and ``aclose``; tests may hand it a fake.
"""

from mqadmin.transport.errors import (
    ConnectionClosed,
    ConnectionRefused,
    ConnectTimeout,
    HostNotFound,
    RequestTimeout,
    TransportError,
)
from mqadmin.transport.tcp import Credentials, TcpTransport, Transport

__all__ = [
    "ConnectTimeout",
    "ConnectionClosed",
    "ConnectionRefused",
    "HostNotFound",
    "Credentials",
    "RequestTimeout",
    "TcpTransport",
    "Transport",
    "TransportError",
]
