"""Running the embedded servers: a whole dev cluster in one asyncio process, or one server alone.

``start_cluster`` is what ``mqadmin dev up`` and ``dev demo`` run and what tests may embed;
``run_until_signalled`` keeps servers in the foreground until Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import signal
import string
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from mqadmin.server.auth.config import AuthSettings
from mqadmin.server.broker.broker import Broker
from mqadmin.server.broker.config import BrokerConfig
from mqadmin.server.namesrv.config import NamesrvConfig
from mqadmin.server.namesrv.server import NameServer
from mqadmin.server.nsaddr import AddressServer
from mqadmin.server.remoting import ConnectionLimits
from mqadmin.server.tls import ServerTls, TlsMode, generate

HOST = "127.0.0.1"
BROKER_PORT_STEP = 10
"""Brokers are spaced so that each one's port-2 (Java's VIP channel) and port+1 (HA) stay free."""


def broker_name(index: int) -> str:
    """broker-a … broker-z, then broker-aa, broker-ab, …"""
    letters = string.ascii_lowercase
    name = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        name = letters[rem] + name
    return f"broker-{name}"


@dataclass
class DevCluster:
    namesrv: NameServer
    brokers: list[Broker]
    address_server: AddressServer
    data_dir: Path
    cluster: str
    tls: ServerTls | None = None
    temporary: bool = False
    stopped: bool = field(default=False, init=False)

    @property
    def namesrv_addr(self) -> str:
        return self.namesrv.addr

    async def stop(self) -> None:
        if self.stopped:
            return
        self.stopped = True
        await self.address_server.stop()
        await asyncio.gather(*(b.stop() for b in self.brokers), return_exceptions=True)
        await self.namesrv.stop()
        if self.temporary:
            shutil.rmtree(self.data_dir, ignore_errors=True)


async def start_cluster(
    *,
    data_dir: Path | None = None,
    brokers: int = 2,
    namesrv_port: int = 9876,
    broker_port: int = 10911,
    auto_create: bool = True,
    cluster: str = "DefaultCluster",
    reset_unreadable_metadata: bool = False,
    limits: ConnectionLimits | None = None,
    tls: TlsMode | None = None,
    nsaddr_port: int = 0,
    auth: AuthSettings | None = None,
) -> DevCluster:
    """A name server and ``brokers`` masters; returns once every broker has registered.

    Port 0 picks free ports (for the name server, or for every broker). Without ``data_dir`` a
    temporary directory is used and deleted by ``stop()``. A metadata file that cannot be read (nor
    its backup) stops the start with MetadataError, unless ``reset_unreadable_metadata``. ``limits``
    bound every server's client connections (default: ConnectionLimits()). With ``tls`` every server
    serves TLS (only, or also plain TCP when "permissive"), with a certificate for 127.0.0.1 made at start
    under ``<data_dir>/tls`` (CertificateError when it cannot be made), and the brokers register over TLS.
    The name-server list is also served over HTTP at ``http://127.0.0.1:<nsaddr_port>/rocketmq/nsaddr``, as
    Java's address server. ``auth``: ACL 2.0 on the brokers (mqadmin.server.auth); the name server, as
    Apache's, checks nothing.
    """
    temporary = data_dir is None
    root = Path(tempfile.mkdtemp(prefix="mqadmin-dev-")) if data_dir is None else Path(data_dir)
    try:
        certs = await asyncio.to_thread(generate, root / "tls", tls) if tls else None
    except BaseException:
        if temporary:
            shutil.rmtree(root, ignore_errors=True)
        raise
    namesrv = NameServer(
        NamesrvConfig(
            listen_host=HOST,
            listen_port=namesrv_port,
            data_dir=root / "namesrv",
            reset_unreadable_metadata=reset_unreadable_metadata,
            limits=limits or ConnectionLimits(),
            tls=certs,
        )
    )
    address_server = AddressServer(lambda: [namesrv.addr])
    started: list[Broker] = []
    try:
        await namesrv.start()
        for i in range(brokers):
            name = broker_name(i)
            cfg = BrokerConfig(
                broker_name=name,
                cluster_name=cluster,
                listen_host=HOST,
                listen_port=broker_port + BROKER_PORT_STEP * i if broker_port else 0,
                namesrv_addrs=[namesrv.addr],
                data_dir=root / name,
                auto_create_topic_enable=auto_create,
                reset_unreadable_metadata=reset_unreadable_metadata,
                limits=limits or ConnectionLimits(),
                tls=certs,
                auth=auth,
            )
            broker = Broker(cfg)
            await broker.start()
            started.append(broker)
        await address_server.start(HOST, nsaddr_port)
    except BaseException:
        await asyncio.gather(*(b.stop() for b in started), return_exceptions=True)
        await namesrv.stop()
        if temporary:
            shutil.rmtree(root, ignore_errors=True)
        raise
    return DevCluster(namesrv, started, address_server, root, cluster, certs, temporary)


async def run_until_signalled(stop: Callable[[], Awaitable[None]], ready: Callable[[], None] | None = None) -> None:
    """Catch SIGINT and SIGTERM, call ``ready`` (so a signal sent right after it is caught), wait for
    a signal, then run ``stop``."""
    loop = asyncio.get_running_loop()
    done = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, done.set)
    try:
        if ready is not None:
            ready()
        await done.wait()
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(sig)
        await stop()
