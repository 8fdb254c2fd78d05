"""Apache RocketMQ in controller mode: a name server running the controller, and one broker group whose
master the controller elects among its replicas (brokers with ``enableControllerMode=true``; no DLedger
commit log).

Plain standard-library Python, as ``apache.py``; nothing here imports pytest.

Typical use::

    with ControllerCluster(V55, replicas=2) as cluster:
        cluster.controller      # "127.0.0.1:<name server port + 1>"
        cluster.master()        # the Broker the name server lists as broker-a's master
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.realrmq.apache import (
    DEFAULT_CLUSTER,
    LOOPBACK,
    READY_TIMEOUT,
    STOP_TIMEOUT,
    Broker,
    NameServer,
    StartupError,
    _JavaServer,
    _PortBlock,
    _remoting_version,
    _reserve_block,
    _write_properties,
    cluster_info,
    remoting_request,
)

__all__ = [
    "CONTROLLER_GROUP",
    "CONTROLLER_TYPES",
    "Controller",
    "ControllerNameServer",
    "ControllerBroker",
    "ControllerCluster",
]

CONTROLLER_GROUP = "mqadmin"
CONTROLLER_TYPES = ("DLedger", "jRaft")
_CONTROLLER_GET_METADATA_INFO = 1005

# How often a broker in controller mode talks to the controller. Apache's defaults (heartbeats every second;
# the master checks its sync state set and the replicas sync their metadata every 5 s) are kept: shorter
# periods would only load the machine. A stopped broker is noticed by the controller after
# controllerHeartBeatTimeoutMills (10 s) at the next scan (scanNotActiveBrokerInterval, 5 s).
_BROKER_CONTROLLER_CONFIG: dict[str, object] = {
    "enableControllerMode": "true",
    "fetchControllerAddrByDnsLookup": "false",
}


class ControllerNameServer(NameServer):
    """A name server running the controller (``enableControllerInNamesrv``) on its port + 1. The controller keeps
    its own metadata in a one-peer group of ``controller_type``: "DLedger" (Apache's default) or "jRaft" (SOFAJRaft,
    its Raft peer on the port + 2)."""

    def __init__(self, version: str, controller_type: str = "DLedger", **kw: Any) -> None:
        if controller_type not in CONTROLLER_TYPES:
            raise ValueError(f"controller_type {controller_type!r} is none of {CONTROLLER_TYPES}")
        super().__init__(version, **kw)
        self.controller_type = controller_type

    def _port_offsets(self) -> list[int]:
        return [0, 1, 2] if self.controller_type == "jRaft" else [0, 1]

    @property
    def controller_addr(self) -> str:
        return f"{LOOPBACK}:{self.port + 1}"

    @property
    def leader_id(self) -> str:
        """The leader id the controller reports (it is the only peer): its DLedger self id, or its Raft address."""
        return f"{LOOPBACK}:{self.port + 2}" if self.controller_type == "jRaft" else "n0"

    @property
    def peers(self) -> list[str]:
        """The peers the controller reports, as Java mqadmin prints them."""
        return [self.controller_addr] if self.controller_type == "jRaft" else [f"n0:{self.controller_addr}"]

    def _write_config(self) -> None:
        assert self.workdir is not None
        self.config.update(
            enableControllerInNamesrv="true",
            controllerType=self.controller_type,
            controllerStorePath=self.workdir / "controller",
            mappedFileSize=16 * 1024 * 1024,
        )
        if self.controller_type == "jRaft":
            self.config.update(
                jRaftGroupId=CONTROLLER_GROUP,
                jRaftServerId=self.leader_id,
                jRaftInitConf=self.leader_id,
                jRaftControllerRPCAddr=self.controller_addr,
                jRaftSnapshotIntervalSecs=3600,  # Apache's default; one snapshot per hour at most
            )
        else:
            self.config.update(
                controllerDLegerGroup=CONTROLLER_GROUP,
                controllerDLegerPeers=f"n0-{self.controller_addr}",
                controllerDLegerSelfId="n0",
            )
        super()._write_config()


class Controller(_JavaServer):
    """A standalone controller (ControllerStartup): one peer of a DLedger group of controllers, on a port the
    group chose (the peers' addresses are in each one's config)."""

    role = "controller"
    main_class = "org.apache.rocketmq.controller.ControllerStartup"
    heap = ("-Xms64m", "-Xmx128m")

    def __init__(self, version: str, port: int, self_id: str, peers: str, **kw: Any) -> None:
        super().__init__(version, port=port, **kw)
        self.self_id = self_id
        self.peers = peers

    def _write_config(self) -> None:
        assert self.workdir is not None
        props = {
            "controllerDLegerGroup": CONTROLLER_GROUP,
            "controllerDLegerPeers": self.peers,
            "controllerDLegerSelfId": self.self_id,
            "controllerStorePath": self.workdir / "controller",
            "mappedFileSize": 16 * 1024 * 1024,
        }
        _write_properties(self.workdir / "controller.conf", props)

    def _args(self) -> list[str]:
        assert self.workdir is not None
        return ["-c", str(self.workdir / "controller.conf")]

    def _probe(self) -> bool:
        code, _, _ = remoting_request(self.addr, _CONTROLLER_GET_METADATA_INFO, version=_remoting_version(self.version))
        return code == 0


class ControllerBroker(Broker):
    """A broker in controller mode: the controller gives it its broker id and its role, so it is ready when
    the name server lists its address under its broker name with any id (0 once it is the master)."""

    def __init__(self, version: str, namesrv_addr: str, controller: str, **kw: Any) -> None:
        config = {**_BROKER_CONTROLLER_CONFIG, "controllerAddr": controller, **(kw.pop("config", None) or {})}
        super().__init__(version, namesrv_addr, config=config, **kw)

    def registered_id(self) -> int | None:
        """The broker id the name server lists this broker under (0: the master), or None."""
        info = cluster_info(self.namesrv_addr, version=_remoting_version(self.version))
        addrs = (info.get("brokerAddrTable", {}).get(self.broker_name) or {}).get("brokerAddrs") or {}
        return next((int(bid) for bid, addr in addrs.items() if addr == self.addr), None)

    def registered(self) -> bool:
        return self.registered_id() is not None


class ControllerCluster:
    """A controller and ``replicas`` brokers of one broker name (``broker-a``) in controller mode, started
    together; the controller elects one of them master. The controller runs in the name server
    (``ControllerNameServer``, of ``controller_type``), or with ``peers`` > 0 as that many standalone controllers
    (``Controller``, one DLedger group) beside a plain name server, the brokers given all their addresses.
    ``start`` returns once every broker is listed by the name server and one of them as the master (id 0).
    Replicas joining the sync state set is for the caller to wait on (it is what the controller commands show)."""

    def __init__(
        self,
        version: str,
        replicas: int = 2,
        *,
        controller_type: str = "DLedger",
        peers: int = 0,
        broker_name: str = "broker-a",
        cluster: str = DEFAULT_CLUSTER,
        broker_config: Mapping[str, object] | None = None,
        timeout: float = READY_TIMEOUT,
    ) -> None:
        if peers and controller_type != "DLedger":
            raise ValueError("standalone controllers (peers > 0) are started as a DLedger group only")
        self.version = version
        self.broker_name = broker_name
        self.cluster = cluster
        self.timeout = timeout
        self.broker_config = dict(broker_config or {})
        self.namesrv: NameServer = NameServer(version) if peers else ControllerNameServer(version, controller_type)
        self.peers = peers
        self.controllers: list[Controller] = []
        self.replicas = replicas
        self.brokers: list[ControllerBroker] = []
        self._ports: _PortBlock | None = None

    @property
    def namesrv_addr(self) -> str:
        return self.namesrv.addr

    @property
    def controller_addrs(self) -> list[str]:
        if isinstance(self.namesrv, ControllerNameServer):
            return [self.namesrv.controller_addr]
        return [c.addr for c in self.controllers]

    @property
    def controller(self) -> str:
        """The controllers' addresses as a broker's ``controllerAddr`` and mqadmin's ``-a`` take them."""
        return ";".join(self.controller_addrs)

    def new_broker(self) -> ControllerBroker:
        """A broker of this group, not started (``start()`` it; ``stop()`` takes it down)."""
        return ControllerBroker(
            self.version,
            self.namesrv.addr,
            self.controller,
            broker_name=self.broker_name,
            cluster=self.cluster,
            config=self.broker_config,
        )

    def master(self) -> ControllerBroker | None:
        """The broker the name server lists as the master (id 0), if any."""
        return next((b for b in self.brokers if b.alive() and b.registered_id() == 0), None)

    def _start_controllers(self) -> None:
        self._ports = _reserve_block(range(self.peers))  # every peer's port is in every peer's config
        base = self._ports.base
        peers = ";".join(f"n{i}-{LOOPBACK}:{base + i}" for i in range(self.peers))
        self.controllers = [Controller(self.version, base + i, f"n{i}", peers) for i in range(self.peers)]
        for c in self.controllers:
            c.launch()
        for c in self.controllers:
            c.wait_ready(self.timeout)

    def start(self) -> ControllerCluster:
        try:
            self.namesrv.start(self.timeout)
            if self.peers:
                self._start_controllers()
            self.brokers = [self.new_broker() for _ in range(self.replicas)]
            for b in self.brokers:
                b.launch()
            for b in self.brokers:
                b.wait_ready(self.timeout)
            if self.master() is None:
                raise StartupError(f"no master of {self.broker_name} registered; brokers: {self.brokers}")
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self, timeout: float = STOP_TIMEOUT) -> None:
        """Graceful stop of every server at once (SIGTERM, SIGKILL after ``timeout``)."""
        servers = [*self.brokers, *self.controllers, self.namesrv]
        for s in servers:
            s.terminate()
        for s in servers:
            if s.proc is not None:
                s.stop(timeout)
        if self._ports is not None:
            self._ports.release()
            self._ports = None

    def __enter__(self) -> ControllerCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
