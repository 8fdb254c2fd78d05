"""Admin-level failures. Transport failures (mqadmin.transport.errors) are kept distinct: a server
that answered with an error code is a ``ResponseError``; one that could not be reached is a
``TransportError``; every configured name server failing is ``NameServerUnreachable``."""

from __future__ import annotations

from collections.abc import Mapping

from mqadmin.transport.errors import TransportError
from mqadmin.wire.codes import response_name


class AdminError(Exception):
    """Base of the admin client's own failures."""


class ResponseError(AdminError):
    """A server answered a request with a non-success code."""

    def __init__(self, code: int, remark: str | None, addr: str) -> None:
        self.code = code
        self.remark = (remark or "").strip()
        self.addr = addr
        super().__init__(f"{addr} answered {self.describe()}")

    @property
    def code_name(self) -> str:
        return response_name(self.code)

    def describe(self) -> str:
        """``TOPIC_NOT_EXIST (17): remark`` without the address, for per-broker result rows."""
        name = self.code_name
        label = f"{name} ({self.code})" if name != str(self.code) else f"code {self.code}"
        return f"{label}: {_first_line(self.remark)}" if self.remark else label


class MalformedResponse(AdminError):
    """A server answered with something that cannot be read (invalid UTF-8, JSON nested too deep, a body of
    the wrong shape). A name server that does so is skipped like one that does not answer."""

    def __init__(self, addr: str, detail: str) -> None:
        self.addr = addr
        super().__init__(f"{addr} sent an answer that cannot be read: {detail}")


class NoNameServer(AdminError):
    """Neither ``-n`` nor ``NAMESRV_ADDR`` names a name server."""

    def __init__(self) -> None:
        super().__init__("no name server address given")


class BadNameServerAddress(AdminError, ValueError):
    def __init__(self, value: str, why: str) -> None:
        self.value = value
        super().__init__(f"bad name server address {value!r}: {why}")


class NameServerUnreachable(AdminError):
    """Every configured name server failed with a transport error."""

    def __init__(self, errors: Mapping[str, TransportError | MalformedResponse]) -> None:
        self.errors = dict(errors)
        detail = "; ".join(str(e) for e in self.errors.values())
        super().__init__(f"no name server answered ({detail})")


class UnknownCluster(AdminError):
    def __init__(self, cluster: str, known: list[str]) -> None:
        self.cluster = cluster
        self.known = sorted(known)
        listing = ", ".join(self.known) if self.known else "none registered"
        super().__init__(f"cluster {cluster!r} is not known to the name server (known clusters: {listing})")


def reason_of(error: BaseException) -> str:
    """A short, one-line reason for a result row."""
    if isinstance(error, ResponseError):
        return error.describe()
    text = str(error) or type(error).__name__
    if isinstance(error, TransportError):
        text = text.replace(f" to {error.addr}", "")  # the row already shows the address
    return _first_line(text)


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text
