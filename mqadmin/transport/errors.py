"""Distinct transport failures, so callers (and exit codes) can tell them apart."""


class TransportError(Exception):
    """Base of every transport failure; ``addr`` is the server it concerns."""

    def __init__(self, addr: str, message: str) -> None:
        super().__init__(message)
        self.addr = addr


class ConnectionRefused(TransportError):
    def __init__(self, addr: str, detail: str = "") -> None:
        super().__init__(addr, f"connection to {addr} refused{': ' + detail if detail else ''}")


class ConnectTimeout(TransportError):
    def __init__(self, addr: str, timeout: float) -> None:
        super().__init__(addr, f"connecting to {addr} timed out after {timeout:g}s")


class RequestTimeout(TransportError):
    def __init__(self, addr: str, code: int, timeout: float) -> None:
        super().__init__(addr, f"request {code} to {addr} got no answer within {timeout:g}s")
        self.code = code


class ConnectionClosed(TransportError):
    def __init__(self, addr: str, detail: str = "") -> None:
        super().__init__(addr, f"connection to {addr} was closed{': ' + detail if detail else ''}")


class HostNotFound(TransportError):
    def __init__(self, addr: str, detail: str = "") -> None:
        super().__init__(addr, f"cannot resolve the host of {addr}{': ' + detail if detail else ''}")


class TlsHandshakeFailed(TransportError):
    """The TLS handshake failed; ``verify`` when it is the server's certificate that was not accepted."""

    def __init__(self, addr: str, detail: str, *, verify: bool = False) -> None:
        what = "the server's certificate was not accepted" if verify else "the TLS handshake failed"
        super().__init__(addr, f"{what} at {addr}: {detail}")
        self.verify = verify
