"""One declaration per remoting request (code, header fields, body, response), used by the admin
client to encode, by the servers to decode and validate, and by the test fake to answer.

The declaration modules (``auth``, ``topics``, …) are loaded on first use: building their hundred-odd
header dataclasses is most of a one-request command's start-up, and a command needs one or two of
them. ``from mqadmin.model.rpc import topics as rpc`` binds a module that runs on its first attribute
access (``_Deferred``); importing a name from it (``from mqadmin.model.rpc.topics import TopicHeader``)
loads it at once. ``REGISTRY`` holds the declarations loaded so far; ``load_all()`` completes it (the
servers and the generated request table need every declaration).
"""

from __future__ import annotations

import importlib
import sys
from _thread import RLock
from types import ModuleType
from typing import Any

from mqadmin.model.rpc.spec import REGISTRY, Decoded, Header, Reply, RequestRefused, Rpc, wire

DECLARATION_MODULES = (
    "auth",
    "brokers",
    "clients",
    "consumers",
    "groups",
    "ha",
    "lite",
    "messages",
    "namesrv",
    "namesrv_admin",
    "pop",
    "registration",
    "static_topics",
    "stats",
    "store",
    "topics",
)

__all__ = [
    "DECLARATION_MODULES",
    "REGISTRY",
    "Decoded",
    "Header",
    "Reply",
    "RequestRefused",
    "Rpc",
    "load_all",
    "wire",
]


def load_all() -> dict[int, Rpc[Any, Any, Any, Any]]:
    """Every declaration module loaded; ``REGISTRY``, now complete."""
    for name in DECLARATION_MODULES:
        importlib.import_module(f"{__name__}.{name}").__dict__  # noqa: B018  (runs a lazily loaded module)
    return REGISTRY


def __getattr__(name: str) -> ModuleType:
    if name not in DECLARATION_MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    full = f"{__name__}.{name}"
    module = sys.modules.get(full)
    if module is None:
        import importlib.util  # for a declaration module not loaded yet

        spec = importlib.util.find_spec(full)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        module.__class__ = _Deferred
        sys.modules[full] = module
    globals()[name] = module
    return module


_RUNNING = RLock()
_running: set[str] = set()


class _Deferred(ModuleType):
    """A declaration module bound before it has run, as ``importlib.util.LazyLoader`` binds one: any access to
    it runs it first. The first thread to get here runs it, and the others wait until it has run: a fan-out may
    ask several brokers on threads, and LazyLoader lets them see a module half-run before Python 3.12."""

    def __getattribute__(self, attr: str) -> Any:
        with _RUNNING:
            name = ModuleType.__getattribute__(self, "__name__")
            if type(self) is _Deferred and name not in _running:  # not run yet, nor running in this thread
                _running.add(name)
                try:
                    ModuleType.__getattribute__(self, "__loader__").exec_module(self)
                    self.__class__ = ModuleType  # type: ignore[assignment]  # a run module is a plain one again
                finally:
                    _running.discard(name)
        return ModuleType.__getattribute__(self, attr)
