"""TLS for remoting connections: one ``TlsSettings`` (CA, client certificate and key, server-name override,
insecure) and the ``ssl.SSLContext`` built from it.

RocketMQ runs TLS on the server's usual port (rocketmq-protocol.md §8). Unlike the Java client, whose
default (``tls.client.authServer=false``) trusts any certificate, mqadmin verifies the server's certificate
against the system's CAs or ``ca_file`` and checks its name, unless ``insecure`` is set explicitly.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mqadmin.transport.errors import TlsConfigError

if TYPE_CHECKING:
    import ssl

__all__ = ["TlsConfigError", "TlsSettings"]


@dataclass(frozen=True, slots=True)
class TlsSettings:
    ca_file: str | None = None
    """PEM file of the CA(s) that signed the servers' certificates; None: the system's CAs."""
    cert_file: str | None = None
    """Client certificate (PEM) for mutual TLS; the key is in ``key_file`` or in this file."""
    key_file: str | None = None
    server_name: str | None = None
    """The name to expect in the server's certificate (and to send as SNI) instead of the host dialled."""
    insecure: bool = False
    """Accept any certificate (no verification): only for test clusters with self-signed certificates."""

    def context(self) -> ssl.SSLContext:
        """The client context; ``TlsConfigError`` names the file that cannot be used and why."""
        import ssl  # about 10 ms: only for commands that use TLS

        ctx = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
        if self.insecure:
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
        elif self.ca_file:
            _readable(self.ca_file, "CA file")
            try:
                ctx.load_verify_locations(cafile=self.ca_file)
            except ssl.SSLError as e:
                raise TlsConfigError(
                    f"the CA file {self.ca_file} holds no usable PEM certificate ({e.reason})"
                ) from None
        if self.key_file and not self.cert_file:
            raise TlsConfigError("a client key was given without a client certificate")
        if self.cert_file:
            _readable(self.cert_file, "client certificate")
            if self.key_file:
                _readable(self.key_file, "client key")
            try:
                ctx.load_cert_chain(self.cert_file, self.key_file)
            except ssl.SSLError as e:
                files = f"{self.cert_file} and {self.key_file}" if self.key_file else self.cert_file
                raise TlsConfigError(f"cannot load the client certificate and key from {files} ({e.reason})") from None
        return ctx

    def hostname(self, host: str) -> str:
        """The name to send as SNI and to check the certificate against when dialling ``host``."""
        return self.server_name or host


def _readable(path: str, what: str) -> None:
    try:
        with Path(path).open("rb"):
            pass
    except OSError as e:
        raise TlsConfigError(f"cannot read the {what} {path}: {e.strerror or e}") from None
