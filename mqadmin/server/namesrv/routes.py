"""RouteInfoManager: which brokers are alive, which topics they serve, and the routes built from that.

Pure state with the time passed in, so it can be tested without sockets or sleeps
(docs/protocol.md, "Name server").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqadmin.model.data_version import DataVersion
from mqadmin.model.names import topic_problem
from mqadmin.model.register_body import RegisterBody
from mqadmin.model.route import MASTER_ID, BrokerData, ClusterInfo, QueueData, TopicRouteData
from mqadmin.model.static_topic import TopicQueueMappingInfo
from mqadmin.model.topic import PERM_READ, PERM_WRITE, TopicConfig


@dataclass
class LiveInfo:
    broker_name: str
    broker_id: int
    last_update: float
    timeout: float
    data_version: DataVersion | None
    channel: Any
    ha_server_addr: str


@dataclass
class RegisterResult:
    ha_server_addr: str = ""
    master_addr: str = ""
    left_out: list[str] = field(default_factory=list)
    """Registered topics with illegal names, kept out of the routes (the broker itself is registered)."""


@dataclass
class RouteInfoManager:
    default_timeout: float = 120.0
    clusters: dict[str, set[str]] = field(default_factory=dict)
    brokers: dict[str, BrokerData] = field(default_factory=dict)
    topics: dict[str, dict[str, QueueData]] = field(default_factory=dict)
    live: dict[tuple[str, str], LiveInfo] = field(default_factory=dict)
    mappings: dict[str, dict[str, TopicQueueMappingInfo]] = field(default_factory=dict)
    """Static topics: topic → broker name → its logic-queue mapping, as its master last registered it."""

    # --- registration ----------------------------------------------------------------------

    def register(
        self,
        *,
        cluster: str,
        addr: str,
        name: str,
        broker_id: int,
        ha_addr: str,
        body: RegisterBody,
        channel: Any,
        now: float,
        timeout: float | None = None,
    ) -> RegisterResult | None:
        """Apply a REGISTER_BROKER. None means refused (5.x: an unknown broker id sending exactly one topic)."""
        bd = self.brokers.get(name)
        first = bd is None
        if bd is None:
            bd = BrokerData(cluster=cluster, broker_name=name)
        if broker_id not in bd.broker_addrs and len(body.topics) == 1:
            return None
        self.clusters.setdefault(cluster, set()).add(name)
        self.brokers[name] = bd
        # The same address under another id is dropped first (a slave that became master).
        for other_id in [i for i, a in bd.broker_addrs.items() if a == addr and i != broker_id]:
            del bd.broker_addrs[other_id]
        old_addr = bd.broker_addrs.get(broker_id)
        bd.broker_addrs[broker_id] = addr
        first = first or not old_addr
        dv = DataVersion.from_json(body.data_version) if body.data_version is not None else None
        left_out = [t for t in body.topics if topic_problem(t) is not None]
        if broker_id == MASTER_ID:
            prev = self.live.get((cluster, addr))
            dv_changed = prev is None or prev.data_version is None or prev.data_version != dv
            for tc in body.topics.values():
                if tc.topic_name in left_out:
                    continue
                if first or dv_changed or name not in self.topics.get(tc.topic_name, {}):
                    self._put_queue_data(name, tc)
            for topic, info in body.mappings.items():
                if topic_problem(topic) is None:
                    self.mappings.setdefault(topic, {})[info.bname or name] = info
        self.live[(cluster, addr)] = LiveInfo(
            name, broker_id, now, timeout or self.default_timeout, dv or DataVersion(0, 0, 0), channel, ha_addr
        )
        result = RegisterResult(left_out=left_out)
        if broker_id != MASTER_ID:
            master = bd.broker_addrs.get(MASTER_ID)
            master_live = self.live.get((cluster, master)) if master else None
            if master and master_live is not None:
                result.ha_server_addr, result.master_addr = master_live.ha_server_addr, master
        return result

    def _put_queue_data(self, broker_name: str, tc: TopicConfig) -> None:
        qd = QueueData(broker_name, tc.read_queue_nums, tc.write_queue_nums, tc.perm, tc.topic_sys_flag)
        self.topics.setdefault(tc.topic_name, {})[broker_name] = qd

    def unregister(self, cluster: str, addr: str, name: str, broker_id: int) -> bool:
        """Remove one broker address; the broker name goes (with its queue data) when its last address does."""
        self.live.pop((cluster, addr), None)
        bd = self.brokers.get(name)
        if bd is None or bd.broker_addrs.get(broker_id) != addr:
            return False
        del bd.broker_addrs[broker_id]
        if bd.broker_addrs:
            return True
        del self.brokers[name]
        names = self.clusters.get(bd.cluster)
        if names is not None:
            names.discard(name)
            if not names:
                del self.clusters[bd.cluster]
        for table in (self.topics, self.mappings):
            for topic in list(table):
                by_broker = table[topic]
                by_broker.pop(name, None)
                if not by_broker:
                    del table[topic]
        return True

    def channel_closed(self, channel: Any) -> list[str]:
        """Unregister every broker that registered over ``channel``; returns their addresses."""
        gone = [(key, info) for key, info in self.live.items() if info.channel is channel]
        for (cluster, addr), info in gone:
            self.unregister(cluster, addr, info.broker_name, info.broker_id)
        return [addr for (_, addr), _ in gone]

    def expire(self, now: float) -> list[tuple[str, Any]]:
        """Unregister brokers silent longer than their timeout; returns (address, channel) of each."""
        dead = [(key, info) for key, info in self.live.items() if now - info.last_update > info.timeout]
        for (cluster, addr), info in dead:
            self.unregister(cluster, addr, info.broker_name, info.broker_id)
        return [(addr, info.channel) for (_, addr), info in dead]

    def heartbeat(self, cluster: str, addr: str, now: float) -> None:
        info = self.live.get((cluster, addr))
        if info is not None:
            info.last_update = now

    def query_data_version(
        self, cluster: str, addr: str, dv: DataVersion, now: float
    ) -> tuple[bool, DataVersion | None]:
        """(changed, the stored version); an unchanged version counts as a heartbeat."""
        info = self.live.get((cluster, addr))
        stored = info.data_version if info is not None else None
        changed = stored is None or stored != dv
        if not changed and info is not None:
            info.last_update = now
        return changed, stored

    # --- queries ---------------------------------------------------------------------------

    def route(self, topic: str) -> TopicRouteData | None:
        qds = self.topics.get(topic)
        if not qds:
            return None
        brokers = [self.brokers[n] for n in sorted(qds) if n in self.brokers]
        if not brokers:
            return None
        return TopicRouteData(
            broker_datas=[BrokerData(b.cluster, b.broker_name, dict(b.broker_addrs)) for b in brokers],
            queue_datas=[qds[n] for n in sorted(qds)],
            queue_mappings=dict(self.mappings.get(topic, {})),
        )

    def cluster_info(self) -> ClusterInfo:
        return ClusterInfo(
            brokers={n: BrokerData(b.cluster, b.broker_name, dict(b.broker_addrs)) for n, b in self.brokers.items()},
            clusters={c: sorted(names) for c, names in self.clusters.items()},
        )

    def all_topics(self) -> list[str]:
        return sorted(self.topics)

    def topics_of_cluster(self, cluster: str) -> list[str]:
        names = self.clusters.get(cluster, set())
        return sorted(t for t, qds in self.topics.items() if names.intersection(qds))

    def system_topics(self) -> tuple[list[str], str | None]:
        """Cluster names and broker names (what Java lists as system topics) and one broker address."""
        out: list[str] = []
        for cluster, names in sorted(self.clusters.items()):
            out.append(cluster)
            out.extend(sorted(names))
        addr = next((a for b in self.brokers.values() for a in b.broker_addrs.values()), None)
        return out, addr

    # --- admin changes ---------------------------------------------------------------------

    def delete_topic(self, topic: str, cluster: str | None = None) -> None:
        for table in (self.topics, self.mappings):
            if not cluster:
                table.pop(topic, None)
                continue
            by_broker = table.get(topic)
            if by_broker is None:
                continue
            for name in self.clusters.get(cluster, set()):
                by_broker.pop(name, None)
            if not by_broker:
                del table[topic]

    def register_topic(self, topic: str, queue_datas: list[QueueData]) -> None:
        """REGISTER_TOPIC_IN_NAMESRV: queue data of known brokers only."""
        for qd in queue_datas:
            if qd.broker_name in self.brokers:
                self.topics.setdefault(topic, {})[qd.broker_name] = qd

    def wipe_write_perm(self, broker_name: str) -> int:
        return self._operate_perm(broker_name, wipe=True)

    def add_write_perm(self, broker_name: str) -> int:
        return self._operate_perm(broker_name, wipe=False)

    def _operate_perm(self, broker_name: str, wipe: bool) -> int:
        count = 0
        for qds in self.topics.values():
            qd = qds.get(broker_name)
            if qd is None:
                continue
            qd.perm = qd.perm & ~PERM_WRITE if wipe else PERM_READ | PERM_WRITE
            count += 1
        return count
