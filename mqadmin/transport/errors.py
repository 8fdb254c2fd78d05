"""Distinct transport failures, so callers (and exit codes) can tell them apart, and ``connect_error``, which
names the failure to open a connection the same way for the asyncio and the blocking transport."""

from __future__ import annotations


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

    @classmethod
    def by_server(cls, addr: str) -> ConnectionClosed:
        """The stream ended (the server closed it, maybe in the middle of a frame)."""
        return cls(addr, "by the server")

    @classmethod
    def undecodable(cls, addr: str, error: Exception) -> ConnectionClosed:
        """The server sent a frame that cannot be read (``FrameError``): nothing after it can be trusted."""
        return cls(addr, f"undecodable frame from the server ({error})")

    @classmethod
    def broken(cls, addr: str, error: OSError) -> ConnectionClosed:
        """Reading or writing failed (reset, broken pipe)."""
        return cls(addr, str(error) or type(error).__name__)


class HostNotFound(TransportError):
    def __init__(self, addr: str, detail: str = "") -> None:
        super().__init__(addr, f"cannot resolve the host of {addr}{': ' + detail if detail else ''}")


class Interrupted(TransportError):
    """Not sent: the command was told to stop sending (Ctrl-C; ``mqadmin.transport.stop``)."""

    def __init__(self, addr: str) -> None:
        super().__init__(addr, f"not sent to {addr}: interrupted (Ctrl-C)")


class TlsConfigError(ValueError):
    """A TLS setting that cannot be used (a missing or unreadable file, a key that does not match). Here, not
    in ``transport.tls``, so that a command without TLS can catch it without loading the TLS settings."""


class TlsHandshakeFailed(TransportError):
    """The TLS handshake failed; ``verify`` when it is the server's certificate that was not accepted."""

    def __init__(self, addr: str, detail: str, *, verify: bool = False) -> None:
        what = "the server's certificate was not accepted" if verify else "the TLS handshake failed"
        super().__init__(addr, f"{what} at {addr}: {detail}")
        self.verify = verify


def connect_error(addr: str, error: OSError, *, timeout: float, tls: bool) -> TransportError:
    """The failure to connect to ``addr`` (and, with ``tls``, to shake hands) that ``error`` stands for."""
    import socket

    if isinstance(error, TimeoutError):
        return ConnectTimeout(addr, timeout)
    if isinstance(error, ConnectionRefusedError):
        return ConnectionRefused(addr, error.strerror or "")
    if tls:
        import ssl  # already loaded: the connection uses it

        if isinstance(error, ssl.SSLCertVerificationError):
            return TlsHandshakeFailed(addr, error.verify_message or str(error), verify=True)
        if isinstance(error, ssl.SSLError | ConnectionResetError | BrokenPipeError):
            return TlsHandshakeFailed(addr, f"{error} (is TLS enabled on that server?)")
    if isinstance(error, ConnectionResetError | BrokenPipeError):
        return ConnectionClosed(addr, str(error))
    if isinstance(error, socket.gaierror):
        return HostNotFound(addr, error.strerror or str(error))
    return ConnectionRefused(addr, error.strerror or str(error))
