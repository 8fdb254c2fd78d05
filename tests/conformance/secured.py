"""Apache RocketMQ clusters with ACL 2.0 authentication and authorization on, and/or TLS, for the
conformance tests of credentials, user/ACL commands and TLS.

Built on the harness's public classes (``tests/realrmq/apache.py``: ``NameServer``, ``Broker``,
``java_mqadmin`` with ``config``, ``java_opts`` and ``credentials``). Two things the harness does not offer
yet are done here, by subclassing:

* readiness: the harness probes with plain, unsigned requests, which a TLS-enforcing server drops and an
  authenticating broker refuses; ``_probe`` is overridden to ask with our own client, over TLS and signed;
* ``ApacheCluster`` cannot pass ``java_opts`` (the TLS system properties) to its brokers, so the servers
  are started one by one here.

The super user is created by the broker at start (``initAuthenticationUser``); the brokers' own inner
client signs as the same user (``innerClientAuthenticationCredentials``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mqadmin.admin import AdminClient
from mqadmin.transport.credentials import Credentials
from mqadmin.transport.tcp import TcpTransport
from mqadmin.transport.tls import TlsSettings
from tests.realrmq.apache import DEFAULT_CLUSTER, VERSIONS, Broker, NameServer, java_mqadmin
from tests.tlscerts import Certs

SUPER_USER = ("mqadminRoot", "root-secret-0x5EC")
"""(username, password) of the super user every secured broker starts with."""

SECURED_VERSIONS = ("5.3.3", "5.5.0")
"""Versions with ACL 2.0; one that the harness does not have yet is skipped with that reason."""


def version_skip_reason(version: str) -> str | None:
    from tests.realrmq.apache import skip_reason

    if version not in VERSIONS:
        return f"Apache RocketMQ {version} is not in the test harness yet (tests/realrmq/apache.py VERSIONS)"
    return skip_reason(version)


def auth_broker_config(super_user: tuple[str, str] = SUPER_USER) -> dict[str, str]:
    """broker.conf entries turning ACL 2.0 on, as Apache's access-control guide sets them."""
    user, password = super_user
    pkg = "org.apache.rocketmq.auth"
    return {
        "authenticationEnabled": "true",
        "authenticationProvider": f"{pkg}.authentication.provider.DefaultAuthenticationProvider",
        "authenticationMetadataProvider": f"{pkg}.authentication.provider.LocalAuthenticationMetadataProvider",
        "authorizationEnabled": "true",
        "authorizationProvider": f"{pkg}.authorization.provider.DefaultAuthorizationProvider",
        "authorizationMetadataProvider": f"{pkg}.authorization.provider.LocalAuthorizationMetadataProvider",
        "initAuthenticationUser": json.dumps({"username": user, "password": password}),
        "innerClientAuthenticationCredentials": json.dumps({"accessKey": user, "secretKey": password}),
    }


@dataclass(frozen=True)
class TlsSetup:
    """How the servers run TLS: ``mode`` (tls.server.mode) and whether they require client certificates."""

    certs: Certs
    mode: str = "enforcing"
    mutual: bool = False

    def server_opts(self, workdir: Path) -> list[str]:
        """System properties of a name server or broker (the broker is also a TLS client of the name server)."""
        c = self.certs
        opts = [
            f"-Dtls.config.file={workdir / 'no-tls.properties'}",  # never /etc/rocketmq/tls.properties
            f"-Dtls.server.mode={self.mode}",
            "-Dtls.test.mode.enable=false",
            f"-Dtls.server.certPath={c.server_cert}",
            f"-Dtls.server.keyPath={c.server_key}",
            f"-Dtls.server.trustCertPath={c.ca}",
            f"-Dtls.server.need.client.auth={'require' if self.mutual else 'none'}",
            f"-Dtls.server.authClient={'true' if self.mutual else 'false'}",
        ]
        return opts + self.client_opts(workdir)

    def client_opts(self, workdir: Path) -> list[str]:
        """System properties of a Java client (Java mqadmin, or a broker dialling the name server) using TLS."""
        c = self.certs
        return [
            f"-Dtls.config.file={workdir / 'no-tls.properties'}",
            "-Dtls.enable=true",
            "-Dtls.test.mode.enable=false",
            "-Dtls.client.authServer=true",
            f"-Dtls.client.trustCertPath={c.ca}",
            f"-Dtls.client.certPath={c.client_cert}",
            f"-Dtls.client.keyPath={c.client_key}",
        ]

    def settings(self, *, mutual: bool | None = None) -> TlsSettings:
        """What our client needs to reach these servers (with the client certificate when they require one)."""
        with_cert = self.mutual if mutual is None else mutual
        c = self.certs
        return TlsSettings(
            ca_file=str(c.ca),
            cert_file=str(c.client_cert) if with_cert else None,
            key_file=str(c.client_key) if with_cert else None,
        )


@dataclass
class SecuredCluster:
    version: str
    namesrv_addr: str
    cluster: str
    brokers: dict[str, str]
    """Broker name -> address."""
    auth: bool
    tls: TlsSetup | None
    workdir: Path
    super_user: tuple[str, str] = SUPER_USER
    servers: list[NameServer | Broker] = field(default_factory=list)

    def java_mqadmin(
        self, args: Sequence[str], credentials: tuple[str, str] | None = SUPER_USER
    ) -> subprocess.CompletedProcess[str]:
        """The real Java mqadmin of this version, signing with ``credentials`` (its tools.yml), and over TLS
        when the servers require it. Servers in permissive mode take plaintext too: the reference reads them
        without the TLS set-up that would double the CPU each run costs (measured 1.0 -> 2.1 s)."""
        opts = self.tls.client_opts(self.workdir) if self.tls and self.tls.mode == "enforcing" else []
        return java_mqadmin(self.version, list(args), self.namesrv_addr, credentials=credentials, java_opts=opts)

    def java_output(self, args: Sequence[str]) -> str:
        """What Java mqadmin prints (stdout and stderr) for ``args``, asked again while it fails with an exception
        (on a busy machine its 3-5 s request timeouts expire), within a bounded time."""
        from tests.conftest import wait_until

        def attempt() -> str | None:
            done = self.java_mqadmin(args)
            out = done.stdout + done.stderr
            return None if "Exception" in out else out

        return wait_until(attempt, timeout=300, interval=1, what=f"Java mqadmin {' '.join(args)} without an exception")

    def client_tls(self) -> TlsSettings | None:
        return self.tls.settings() if self.tls else None


def _ask(coro_fn, namesrv: str, tls: TlsSettings | None, credentials: Credentials | None):  # type: ignore[no-untyped-def]
    async def go():  # type: ignore[no-untyped-def]
        transport = TcpTransport(timeout=10.0, connect_timeout=10.0, tls=tls, credentials=credentials)
        try:
            async with AdminClient([namesrv], transport=transport, timeout=10.0) as admin:
                return await coro_fn(admin)
        finally:
            await transport.aclose()

    return asyncio.run(go())


class _SecuredNameServer(NameServer):
    probe_tls: TlsSettings | None = None

    def _probe(self) -> bool:
        try:
            _ask(lambda admin: admin.cluster_info(), self.addr, self.probe_tls, None)
        except Exception:  # not ready yet (the harness polls again until its deadline)
            return False
        return True


class _SecuredBroker(Broker):
    probe_tls: TlsSettings | None = None
    probe_credentials: Credentials | None = None

    def _probe(self) -> bool:
        """Registered at its address, and GET_BROKER_RUNTIME_INFO (signed, over TLS) answers."""

        async def check(admin: AdminClient) -> bool:
            info = await admin.cluster_info()
            bd = info.brokers.get(self.broker_name)
            if bd is None or bd.broker_addrs.get(self.broker_id) != self.addr:
                return False
            await admin.broker_runtime_info(self.addr)
            return True

        try:
            return bool(_ask(check, self.namesrv_addr, self.probe_tls, self.probe_credentials))
        except Exception:  # not ready yet: refused, closed, no such element, ...
            return False


@contextlib.contextmanager
def secured_cluster(
    version: str,
    workdir: Path,
    *,
    auth: bool = True,
    tls: TlsSetup | None = None,
    brokers: int = 2,
) -> Iterator[SecuredCluster]:
    """A name server and ``brokers`` masters (broker-a, broker-b, ...) of ``DefaultCluster``, with ACL 2.0
    on when ``auth`` and TLS as ``tls`` says; everything killed on exit."""
    workdir.mkdir(parents=True, exist_ok=True)
    server_opts = tls.server_opts(workdir) if tls else []
    probe_tls = tls.settings(mutual=True) if tls else None
    probe_credentials = Credentials(*SUPER_USER) if auth else None
    servers: list[NameServer | Broker] = []
    try:
        ns = _SecuredNameServer(version, java_opts=server_opts)
        ns.probe_tls = probe_tls
        servers.append(ns)
        ns.start()
        addrs = {}
        for i in range(brokers):
            name = f"broker-{chr(ord('a') + i)}"
            b = _SecuredBroker(
                version,
                ns.addr,
                broker_name=name,
                config=auth_broker_config() if auth else None,
                java_opts=server_opts,
            )
            b.probe_tls, b.probe_credentials = probe_tls, probe_credentials
            servers.append(b)
            b.start()
            addrs[name] = b.addr
        yield SecuredCluster(version, ns.addr, DEFAULT_CLUSTER, addrs, auth, tls, workdir, servers=servers)
    finally:
        for s in servers:  # throwaway servers: a graceful stop (10-15 s for 5.x) would check nothing
            s.kill()


@contextlib.contextmanager
def secured_dev_up(work: Path) -> Iterator[dict]:
    """``mqadmin dev up --auth`` with the super user every secured cluster starts with; its ready line."""
    from tests.devprocs import start_dev

    user, password = SUPER_USER
    auth = work / "auth.toml"
    auth.write_text(f'[[users]]\nusername = "{user}"\npassword = "{password}"\ntype = "Super"\n')
    proc, info = start_dev(
        "up", "--namesrv-port", "0", "--broker-port", "0", "--data-dir", str(work / "data"), "--auth", str(auth)
    )
    try:
        yield info
    finally:
        proc.stop()
