"""Clusters the conformance tests run against, behind one small interface.

Each backend is a context manager factory yielding a ``Backend``: one name server and two master
brokers (broker-a, broker-b) in one cluster. Adding a backend (the embedded cluster of
``mqadmin dev up``, say) is one entry in ``BACKENDS``.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass

ORDER_MESSAGE_ENABLE = {"orderMessageEnable": "true"}
"""Name servers return orderTopicConf in routes only with this set (default false)."""


@dataclass
class Backend:
    name: str
    namesrv_addr: str
    cluster: str
    brokers: dict[str, str]  # broker name -> master address
    version_desc: str  # what brokers report as brokerVersionDesc, e.g. "V5_3_3"
    pause: Callable[[str], AbstractContextManager[None]]  # broker name -> while inside, the broker answers nothing
    # broker name -> the address of a registered slave of it, while inside
    start_slave: Callable[[str], AbstractContextManager[str]] | None = None
    java_mqadmin: Callable[[list[str]], str] | None = None  # the reference tool: args -> stdout


def skip_reason(name: str) -> str | None:
    """Why a backend cannot run here. The embedded one needs Java too: Java mqadmin is its reference."""
    from tests.realrmq.apache import skip_reason as apache_skip_reason

    return apache_skip_reason(_APACHE_VERSIONS.get(name, _EMBEDDED_REFERENCE))


_APACHE_VERSIONS = {"apache-5.5": "5.5.0", "apache-5.3": "5.3.3", "apache-4.9": "4.9.8"}


@contextlib.contextmanager
def apache(name: str) -> Iterator[Backend]:
    from tests.realrmq.apache import ApacheCluster, Broker, NameServer, java_mqadmin

    version = _APACHE_VERSIONS[name]
    cluster = ApacheCluster(version, brokers=2)
    cluster.namesrv = NameServer(version, config=ORDER_MESSAGE_ENABLE)

    @contextlib.contextmanager
    def pause(broker: str) -> Iterator[None]:
        b = cluster.broker(broker)
        b.pause()
        try:
            yield
        finally:
            b.resume()

    @contextlib.contextmanager
    def start_slave(broker: str) -> Iterator[str]:
        slave = Broker(version, cluster.namesrv_addr, broker_name=broker, cluster=cluster.cluster, broker_id=1)
        slave.start()
        try:
            yield slave.addr
        finally:  # killed, as the cluster is: its connections close, the name server and master drop it
            slave.kill()

    def reference(args: list[str]) -> str:
        done = java_mqadmin(version, args, cluster.namesrv_addr)
        return done.stdout

    with cluster.throwaway():
        yield Backend(
            name=name,
            namesrv_addr=cluster.namesrv_addr,
            cluster=cluster.cluster,
            brokers=dict(cluster.broker_addrs),
            version_desc="V" + version.replace(".", "_"),
            pause=pause,
            start_slave=start_slave,
            java_mqadmin=reference,
        )


_EMBEDDED_REFERENCE = "5.3.3"
"""The Java mqadmin that checks the embedded cluster (it reports itself as 5.3.3)."""


@contextlib.contextmanager
def embedded(name: str) -> Iterator[Backend]:
    """Our own name server and brokers, one process each (``mqadmin dev namesrv|broker``)."""
    import tempfile
    from pathlib import Path

    from mqadmin.server.broker.admin import VERSION_DESC
    from tests.devprocs import EmbeddedCluster
    from tests.realrmq.apache import java_mqadmin

    with tempfile.TemporaryDirectory(prefix="mqadmin-conformance-") as tmp, EmbeddedCluster(Path(tmp)) as cluster:

        @contextlib.contextmanager
        def pause(broker: str) -> Iterator[None]:
            proc = cluster.broker_procs[broker].p
            proc.send_signal(signal.SIGSTOP)
            try:
                yield
            finally:
                proc.send_signal(signal.SIGCONT)

        @contextlib.contextmanager
        def start_slave(broker: str) -> Iterator[str]:
            proc, addr = cluster.start_broker(broker, broker_id=1)
            try:
                yield addr
            finally:
                proc.stop()

        def reference(args: list[str]) -> str:
            return java_mqadmin(_EMBEDDED_REFERENCE, args, cluster.namesrv_addr).stdout

        yield Backend(
            name=name,
            namesrv_addr=cluster.namesrv_addr,
            cluster=cluster.cluster,
            brokers=dict(cluster.broker_addrs),
            version_desc=VERSION_DESC,
            pause=pause,
            start_slave=start_slave,
            java_mqadmin=reference,
        )


BACKENDS: dict[str, Callable[[], AbstractContextManager[Backend]]] = {
    **{name: (lambda name=name: apache(name)) for name in _APACHE_VERSIONS},
    "embedded": lambda: embedded("embedded"),
}
