"""TLS for the embedded servers (``mqadmin dev up --tls``).

``generate`` makes a throw-away CA and a server certificate for 127.0.0.1 / localhost signed by it with the
``openssl`` command; ``ServerTls`` gives the servers' SSL context and the context a broker dials its name
servers with (verifying them against that CA). Keys are unencrypted PKCS#8 PEM (P-256), which Python's ssl
and Netty both read.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import ssl
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from mqadmin.transport.tls import TlsSettings

SERVER_NAMES = ("127.0.0.1", "localhost")
VALID_DAYS = 365

TlsMode = Literal["enforcing", "permissive"]
"""Apache's ``tls.server.mode``: TLS only, or TLS and plain TCP on one port."""


class CertificateError(Exception):
    """The certificate could not be made (no ``openssl`` command, or it failed)."""


@dataclass(frozen=True, slots=True)
class ServerTls:
    ca_file: Path
    """The CA that signed ``cert_file``: what clients pass to ``--tls-ca``."""
    cert_file: Path
    key_file: Path
    permissive: bool = False
    """Accept plain TCP on the same ports too (Apache's ``tls.server.mode=permissive``); else TLS only."""

    def server_context(self) -> ssl.SSLContext:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(self.cert_file, self.key_file)
        return ctx

    def client_context(self) -> ssl.SSLContext:
        """For a server's own connections to the others (a broker registering with its name servers)."""
        return TlsSettings(ca_file=str(self.ca_file)).context()


def openssl(*args: str, cwd: Path) -> None:
    if shutil.which("openssl") is None:
        raise CertificateError("TLS needs the openssl command to make a certificate, and it is not on PATH")
    done = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise CertificateError(f"openssl {args[0]} failed: {last}")


def new_key(name: str, d: Path) -> Path:
    openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", f"{name}.key", cwd=d)
    os.chmod(d / f"{name}.key", 0o600)
    return d / f"{name}.key"


def new_ca(name: str, d: Path, days: int = VALID_DAYS) -> Path:
    """``name.pem``, a self-signed CA certificate, and its key ``name.key``, in ``d``."""
    new_key(name, d)
    openssl(
        "req", "-x509", "-new", "-key", f"{name}.key", "-days", str(days), "-subj", f"/CN={name}",
        "-out", f"{name}.pem",
        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        cwd=d,
    )  # fmt: skip
    return d / f"{name}.pem"


def new_signed(name: str, ca: str, ext: str, d: Path, days: int = VALID_DAYS) -> Path:
    """``name.pem`` signed by the CA ``ca`` (``ca.pem`` / ``ca.key`` in ``d``) with the X.509v3 extensions
    ``ext`` (openssl's extfile syntax), and its key ``name.key``."""
    new_key(name, d)
    openssl("req", "-new", "-key", f"{name}.key", "-subj", f"/CN={name}", "-out", f"{name}.csr", cwd=d)
    (d / f"{name}.ext").write_text(ext)
    openssl(
        "x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key", "-CAcreateserial",
        "-days", str(days), "-extfile", f"{name}.ext", "-out", f"{name}.pem",
        cwd=d,
    )  # fmt: skip
    return d / f"{name}.pem"


def server_ext(names: tuple[str, ...] = SERVER_NAMES) -> str:
    """Extensions of a server certificate valid for ``names`` (IP addresses and DNS names)."""
    sans = ",".join(f"IP:{n}" if n[0].isdigit() else f"DNS:{n}" for n in names)
    return f"subjectAltName={sans}\nextendedKeyUsage=serverAuth\n"


def generate(directory: Path, mode: TlsMode = "enforcing") -> ServerTls:
    """A new CA (``ca.pem``) and server certificate (``server.pem`` / ``server.key``) in ``directory``,
    replacing what was there. They are made in a sibling directory first, so ``directory`` never holds
    a half-made set."""
    directory.parent.mkdir(parents=True, exist_ok=True)
    work = directory.with_name(f"{directory.name}.new-{os.getpid()}")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(mode=0o700)
    try:
        new_ca("ca", work)
        new_signed("server", "ca", server_ext(), work)
        for leftover in ("ca.key", "ca.srl", "server.csr", "server.ext"):
            (work / leftover).unlink()  # the CA key signs nothing more
        shutil.rmtree(directory, ignore_errors=True)
        work.rename(directory)
    except BaseException:
        with contextlib.suppress(OSError):
            shutil.rmtree(work)
        raise
    return ServerTls(directory / "ca.pem", directory / "server.pem", directory / "server.key", mode == "permissive")
