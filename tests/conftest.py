"""Shared test helpers: free loopback ports and bounded polling (never sleeps as synchronisation)."""

from __future__ import annotations

import os
import socket
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

import pytest
from hypothesis import settings

from tests.applicability import NOT_APPLICABLE

settings.register_profile("mqadmin", deadline=None, derandomize=False)
settings.load_profile("mqadmin")
"""No time limit per example: tests never assert timings, and the machine may be loaded."""

T = TypeVar("T")


def free_port(span: int = 1) -> int:
    """A port P on 127.0.0.1 such that P-2 .. P+span are free right now (broker ports use P-2 and P+1)."""
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port < 1100 or port + span > 65000:
            continue
        if all(_is_free(p) for p in range(port - 2, port + span + 1)):
            return port
    raise RuntimeError("no free port range on 127.0.0.1")


def _is_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


class Deadline:
    """A bounded wait: ``expired()`` turns true after ``timeout`` seconds; ``fail()`` says what was awaited."""

    def __init__(self, timeout: float, what: str) -> None:
        self.timeout, self.what = timeout, what
        self._end = time.monotonic() + timeout

    def expired(self) -> bool:
        return time.monotonic() > self._end

    def fail(self) -> AssertionError:
        return AssertionError(f"timed out after {self.timeout}s waiting for {self.what}")


def wait_until(predicate: Callable[[], T], timeout: float = 30.0, interval: float = 0.05, what: str = "condition") -> T:
    """Poll ``predicate`` until it returns a truthy value, or fail after ``timeout`` seconds."""
    deadline = Deadline(timeout, what)
    while not (value := predicate()):
        if deadline.expired():
            raise deadline.fail()
        time.sleep(interval)
    return value


# --- no test sees the developer's own mqadmin config, credentials or caches --------------------------

_SETTINGS_ENV = (
    "MQADMIN_PROFILE",
    "MQADMIN_TIMEOUT",
    "MQADMIN_FORMAT",
    "MQADMIN_TLS",
    "MQADMIN_TLS_CA",
    "MQADMIN_TLS_CERT",
    "MQADMIN_TLS_KEY",
    "MQADMIN_TLS_SERVER_NAME",
    "MQADMIN_TLS_INSECURE",
    "MQADMIN_BROKER_ADDR_MAP",
    "ROCKETMQ_ACCESS_KEY",
    "ROCKETMQ_SECRET_KEY",
    "ROCKETMQ_SECURITY_TOKEN",
    "ROCKETMQ_ACL_ACCESS_KEY",
    "ROCKETMQ_ACL_SECRET_KEY",
    "ROCKETMQ_ACL_SECURITY_TOKEN",
    "ROCKETMQ_HOME",
)


@pytest.fixture(autouse=True)
def _private_settings(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test (and every mqadmin it starts) gets an empty config file location and cache of its own, and a
    temporary directory of its own: files a command leaves there as Java's do (updateStaticTopic's mappings) stay
    in pytest's directory instead of piling up in /tmp."""
    home = tmp_path_factory.mktemp("mqadmin-settings")
    monkeypatch.setenv("MQADMIN_CONFIG", str(home / "config.toml"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    tmp = tmp_path_factory.mktemp("tmp")
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    for name in _SETTINGS_ENV:
        monkeypatch.delenv(name, raising=False)


# --- CI must run the conformance and Spark tests, not skip them ---------------------------------


_REQUIRED_MARKERS = ("conformance", "spark")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    report = outcome.get_result()
    if (
        report.skipped
        and os.environ.get("MQADMIN_REQUIRE_CONFORMANCE") == "1"
        and any(item.get_closest_marker(m) for m in _REQUIRED_MARKERS)
    ):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        if reason.startswith(("Skipped: " + NOT_APPLICABLE, NOT_APPLICABLE)):
            return
        report.outcome = "failed"
        report.longrepr = f"skipped in CI, where it must run: {reason}"


# --- parallel runs (pytest-xdist, ``--dist loadgroup``) ------------------------------------------


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> Iterator[None]:
    """Keep together what shares an expensive fixture: every test of one conformance backend (its cluster is
    session-scoped, started once per worker that needs it) and every test of one module (module-scoped
    servers). Groups are spread over the workers in order (``--no-loadscope-reorder`` in pyproject.toml: xdist
    would otherwise hand out the groups with the most tests first), so the longest (a backend's, then the other
    conformance and Spark modules) start first and the quick ones fill the gaps; the sort is stable, so what
    pytest put together for a fixture stays together. Without xdist the marker does nothing.

    The marks go on before every other implementation (a wrapper's first half): xdist's own reads them to
    name each test's group. Marked after it, as this hook once did, they grouped nothing, and every worker
    started every backend, again after each switch between them. The sort comes after all the others."""
    weight = {}
    for item in items:
        callspec = getattr(item, "callspec", None)
        backend = callspec.params.get("backend") if callspec is not None else None
        group = f"backend-{backend}" if isinstance(backend, str) else item.nodeid.split("::", 1)[0]
        item.add_marker(pytest.mark.xdist_group(group))
        slow = item.get_closest_marker("conformance") or item.get_closest_marker("spark")
        weight[id(item)] = 0 if backend is not None else 1 if slow else 2
    result = yield
    items.sort(key=lambda item: weight[id(item)])  # by identity: xdist renames the nodeids in between
    return result
