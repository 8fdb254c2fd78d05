"""One declaration per remoting request (code, header fields, body, response), used by the admin
client to encode, by the servers to decode and validate, and by the test fake to answer.

Importing this package imports every declaration module, so ``REGISTRY`` is complete.
"""

from mqadmin.model.rpc import (
    auth,
    brokers,
    consumers,
    groups,
    ha,
    lite,
    messages,
    namesrv,
    offsets,
    pop,
    static_topics,
    stats,
    store,
    topics,
)
from mqadmin.model.rpc.spec import REGISTRY, Decoded, Header, Reply, RequestRefused, Rpc, wire

__all__ = [
    "REGISTRY",
    "auth",
    "Decoded",
    "Header",
    "Reply",
    "RequestRefused",
    "Rpc",
    "brokers",
    "consumers",
    "groups",
    "ha",
    "lite",
    "messages",
    "namesrv",
    "offsets",
    "pop",
    "static_topics",
    "stats",
    "store",
    "topics",
    "wire",
]
