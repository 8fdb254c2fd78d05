"""Transport: connections carrying remoting frames, matched by opaque.

``Transport`` is the injectable seam (like httpx's transports): the admin client only needs
``request``, ``oneway`` and ``aclose``; tests may hand it a fake. ``TcpTransport`` (asyncio) runs
concurrent requests; ``BlockingTransport`` (blocking sockets, no asyncio to import) runs commands without an
event loop, their fan-outs on threads (``transport.gather``). The names below are imported on first use, so
that importing ``mqadmin.transport.errors`` does not load asyncio.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqadmin.lazy_names import lazy_names

if TYPE_CHECKING:
    from mqadmin.transport.base import Transport
    from mqadmin.transport.blocking import BlockingTransport
    from mqadmin.transport.credentials import Credentials
    from mqadmin.transport.errors import (
        ConnectionClosed,
        ConnectionRefused,
        ConnectTimeout,
        HostNotFound,
        RequestTimeout,
        TransportError,
    )
    from mqadmin.transport.tcp import TcpTransport

_MODULE_OF = {
    "BlockingTransport": "blocking",
    "ConnectTimeout": "errors",
    "ConnectionClosed": "errors",
    "ConnectionRefused": "errors",
    "Credentials": "credentials",
    "HostNotFound": "errors",
    "RequestTimeout": "errors",
    "TcpTransport": "tcp",
    "Transport": "base",
    "TransportError": "errors",
}

__all__ = [
    "BlockingTransport",
    "ConnectTimeout",
    "ConnectionClosed",
    "ConnectionRefused",
    "Credentials",
    "HostNotFound",
    "RequestTimeout",
    "TcpTransport",
    "Transport",
    "TransportError",
]


__getattr__ = lazy_names(__name__, _MODULE_OF)
