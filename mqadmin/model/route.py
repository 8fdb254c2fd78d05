"""TopicRouteData and ClusterInfo: parsed from either JSON style, written in standard form."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mqadmin.model.static_topic import TopicQueueMappingInfo

MASTER_ID = 0


@dataclass(slots=True)
class BrokerData:
    cluster: str
    broker_name: str
    broker_addrs: dict[int, str] = field(default_factory=dict)

    @property
    def master_addr(self) -> str | None:
        return self.broker_addrs.get(MASTER_ID)

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> BrokerData:
        addrs = {int(k): str(v) for k, v in (obj.get("brokerAddrs") or {}).items()}
        return cls(
            cluster=str(obj.get("cluster", "")),
            broker_name=str(obj.get("brokerName", "")),
            broker_addrs=addrs,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "brokerAddrs": {str(k): v for k, v in sorted(self.broker_addrs.items())},
            "brokerName": self.broker_name,
            "cluster": self.cluster,
        }


@dataclass(slots=True)
class QueueData:
    broker_name: str
    read_queue_nums: int
    write_queue_nums: int
    perm: int
    topic_sys_flag: int = 0

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> QueueData:
        return cls(
            broker_name=str(obj.get("brokerName", "")),
            read_queue_nums=int(obj.get("readQueueNums", 0)),
            write_queue_nums=int(obj.get("writeQueueNums", 0)),
            perm=int(obj.get("perm", 0)),
            topic_sys_flag=int(obj.get("topicSysFlag", 0)),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "brokerName": self.broker_name,
            "perm": self.perm,
            "readQueueNums": self.read_queue_nums,
            "topicSysFlag": self.topic_sys_flag,
            "writeQueueNums": self.write_queue_nums,
        }


@dataclass(slots=True)
class TopicRouteData:
    broker_datas: list[BrokerData] = field(default_factory=list)
    queue_datas: list[QueueData] = field(default_factory=list)
    order_topic_conf: str | None = None
    queue_mappings: dict[str, TopicQueueMappingInfo] = field(default_factory=dict)
    """Static topics (5.x): broker name → its logic-queue mapping (``topicQueueMappingByBroker``)."""

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> TopicRouteData:
        mappings = obj.get("topicQueueMappingByBroker") or {}
        queue_mappings: dict[str, TopicQueueMappingInfo] = {}
        if mappings:  # static topics only: most commands never import their model
            from mqadmin.model.static_topic import TopicQueueMappingInfo

            queue_mappings = {str(b): TopicQueueMappingInfo.from_json(m) for b, m in mappings.items()}
        return cls(
            broker_datas=[BrokerData.from_json(b) for b in obj.get("brokerDatas") or []],
            queue_datas=[QueueData.from_json(q) for q in obj.get("queueDatas") or []],
            order_topic_conf=obj.get("orderTopicConf") or None,
            queue_mappings=queue_mappings,
        )

    def to_json(self) -> dict[str, Any]:
        """Standard form with no nulls or booleans (some real clients choke on both)."""
        out: dict[str, Any] = {
            "brokerDatas": [b.to_json() for b in self.broker_datas],
            "filterServerTable": {},
            "queueDatas": [q.to_json() for q in self.queue_datas],
        }
        if self.order_topic_conf:
            out["orderTopicConf"] = self.order_topic_conf
        if self.queue_mappings:
            out["topicQueueMappingByBroker"] = {b: m.to_json() for b, m in sorted(self.queue_mappings.items())}
        return out


@dataclass(slots=True)
class ClusterInfo:
    brokers: dict[str, BrokerData] = field(default_factory=dict)
    clusters: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> ClusterInfo:
        brokers = {name: BrokerData.from_json(b) for name, b in (obj.get("brokerAddrTable") or {}).items()}
        clusters = {name: sorted(str(b) for b in names) for name, names in (obj.get("clusterAddrTable") or {}).items()}
        return cls(brokers=brokers, clusters=clusters)

    def to_json(self) -> dict[str, Any]:
        return {
            "brokerAddrTable": {name: b.to_json() for name, b in sorted(self.brokers.items())},
            "clusterAddrTable": {name: sorted(names) for name, names in sorted(self.clusters.items())},
        }

    def brokers_of(self, cluster: str) -> list[BrokerData]:
        return [self.brokers[n] for n in self.clusters.get(cluster, []) if n in self.brokers]

    def role_of(self, addr: str) -> tuple[BrokerData, int] | None:
        """The broker an address belongs to and its broker id (0 = master)."""
        for bd in self.brokers.values():
            for bid, a in bd.broker_addrs.items():
                if a == addr:
                    return bd, bid
        return None
