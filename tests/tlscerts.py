"""Throw-away certificates for TLS tests, made with the ``openssl`` command: a CA, a server certificate for
127.0.0.1 / localhost / rocketmq.test signed by it, a client certificate signed by it, and a second CA
that signed nothing (to be refused with). Keys are unencrypted PKCS#8 PEM, which both Python's ssl and
Netty (Apache RocketMQ's ``tls.server.keyPath``) read."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

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


def _run(*args: str, cwd: Path) -> None:
    done = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise RuntimeError(f"openssl {' '.join(args)} failed: {done.stderr.strip()}")


def _key(name: str, d: Path) -> Path:
    _run("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", f"{name}.key", cwd=d)
    return d / f"{name}.key"


def _ca(name: str, d: Path) -> Path:
    _key(name, d)
    _run(
        "req", "-x509", "-new", "-key", f"{name}.key", "-days", "2", "-subj", f"/CN={name}", "-out", f"{name}.pem",
        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        cwd=d,
    )  # fmt: skip
    return d / f"{name}.pem"


def _signed(name: str, ca: str, ext: str, d: Path) -> Path:
    _key(name, d)
    _run("req", "-new", "-key", f"{name}.key", "-subj", f"/CN={name}", "-out", f"{name}.csr", cwd=d)
    (d / f"{name}.ext").write_text(ext)
    _run(
        "x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key", "-CAcreateserial",
        "-days", "2", "-extfile", f"{name}.ext", "-out", f"{name}.pem",
        cwd=d,
    )  # fmt: skip
    return d / f"{name}.pem"


def make_certs(d: Path) -> Certs:
    d.mkdir(parents=True, exist_ok=True)
    _ca("test-ca", d)
    _ca("other-ca", d)
    sans = ",".join(f"IP:{n}" if n[0].isdigit() else f"DNS:{n}" for n in SERVER_NAMES)
    _signed("server", "test-ca", f"subjectAltName={sans}\nextendedKeyUsage=serverAuth\n", d)
    _signed("client", "test-ca", "extendedKeyUsage=clientAuth\n", d)
    return Certs(
        ca=d / "test-ca.pem",
        server_cert=d / "server.pem",
        server_key=d / "server.key",
        client_cert=d / "client.pem",
        client_key=d / "client.key",
        other_ca=d / "other-ca.pem",
    )
