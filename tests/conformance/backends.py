"""Clusters the conformance tests run against, behind one small interface.

Each backend is a context manager factory yielding a ``Backend``: one name server and two master
brokers (broker-a, broker-b) in one cluster. Adding a backend (the embedded cluster of
``mqadmin dev up``, say) is one entry in ``BACKENDS``.
"""

from __future__ import annotations

import contextlib
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
    if name.startswith("apache-"):
        from tests.realrmq.apache import skip_reason as apache_skip_reason

        return apache_skip_reason(_APACHE_VERSIONS[name])
    return None


_APACHE_VERSIONS = {"apache-5.3": "5.3.3", "apache-4.9": "4.9.8"}


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
        finally:
            slave.stop()

    def reference(args: list[str]) -> str:
        done = java_mqadmin(version, args, cluster.namesrv_addr)
        return done.stdout

    with cluster:
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


BACKENDS: dict[str, Callable[[], AbstractContextManager[Backend]]] = {
    "apache-5.3": lambda: apache("apache-5.3"),
    "apache-4.9": lambda: apache("apache-4.9"),
}
