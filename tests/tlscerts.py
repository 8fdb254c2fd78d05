"""Throw-away certificates for TLS tests, made with the ``openssl`` command (``mqadmin.server.tls``): a CA, a
server certificate for 127.0.0.1 / localhost / rocketmq.test signed by it, a client certificate signed by it,
and a second CA that signed nothing (to be refused with). Keys are unencrypted PKCS#8 PEM, which both Python's
ssl and Netty (Apache RocketMQ's ``tls.server.keyPath``) read."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from mqadmin.server.tls import new_ca, new_signed, server_ext

SERVER_NAMES = ("127.0.0.1", "localhost", "rocketmq.test")


@dataclass(frozen=True)
class Certs:
    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path
    other_ca: Path


def skip_reason() -> str | None:
    return None if shutil.which("openssl") else "TLS tests need the openssl command to make certificates"


def make_certs(d: Path) -> Certs:
    d.mkdir(parents=True, exist_ok=True)
    new_ca("test-ca", d, days=2)
    new_ca("other-ca", d, days=2)
    new_signed("server", "test-ca", server_ext(SERVER_NAMES), d, days=2)
    new_signed("client", "test-ca", "extendedKeyUsage=clientAuth\n", d, days=2)
    return Certs(
        ca=d / "test-ca.pem",
        server_cert=d / "server.pem",
        server_key=d / "server.key",
        client_cert=d / "client.pem",
        client_key=d / "client.key",
        other_ca=d / "other-ca.pem",
    )
