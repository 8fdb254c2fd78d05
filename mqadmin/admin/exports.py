"""What Java mqadmin's exportMetadata, exportConfigs and exportMetrics collect from a cluster's masters, and
the JSON documents they write (metadata.json / topic.json / subscriptionGroup.json, configs.json,
metrics.json).

Unlike the Java tool, a master that cannot be read does not abort the export: it is reported failed and
left out of the document.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqadmin.admin.errors import ResponseError
from mqadmin.admin.fanout import Target, every_address, fan_out, masters
from mqadmin.admin.results import Status, TargetResult
from mqadmin.admin.stats import StatsOps
from mqadmin.model import broker_stats as items
from mqadmin.model.broker_health import first_number
from mqadmin.model.broker_stats import BrokerStatsData
from mqadmin.model.data_version import DataVersion
from mqadmin.model.exports import broker_config_subset, is_user_group, is_user_topic
from mqadmin.model.rpc import brokers as broker_rpc
from mqadmin.model.rpc import clients as client_rpc
from mqadmin.model.rpc import groups as group_rpc
from mqadmin.model.rpc import stats as rpc
from mqadmin.model.rpc import topics as topic_rpc
from mqadmin.model.topic import TopicConfig

TRANS_HALF_TOPIC = "RMQ_SYS_TRANS_HALF_TOPIC"
SCHEDULE_TOPIC = "SCHEDULE_TOPIC_XXXX"


@dataclass(slots=True)
class TopicTable:
    """A broker's user topics (TopicConfigSerializeWrapper)."""

    data_version: DataVersion | None = None
    topics: dict[str, TopicConfig] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"dataVersion": _json(self.data_version), "topicConfigTable": _topics_json(self.topics)}


@dataclass(slots=True)
class GroupTable:
    """A broker's user subscription groups (SubscriptionGroupWrapper), configs as the broker wrote them."""

    data_version: DataVersion | None = None
    forbidden: dict[str, Any] = field(default_factory=dict)
    groups: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "dataVersion": _json(self.data_version),
            "forbiddenTable": self.forbidden,
            "subscriptionGroupTable": self.groups,
        }


def _json(version: DataVersion | None) -> dict[str, Any] | None:
    return version.to_json() if version is not None else None


def _topics_json(topics: dict[str, TopicConfig]) -> dict[str, Any]:
    return {name: cfg.to_json() for name, cfg in sorted(topics.items())}


@dataclass(slots=True)
class ClusterMetadata:
    """exportMetadata -c: the masters' user topics and groups merged by name, queue counts summed (a topic on
    two 8-queue masters has 16), the last master's other settings kept."""

    topics: dict[str, TopicConfig] = field(default_factory=dict)
    groups: dict[str, dict[str, Any]] = field(default_factory=dict)

    def add(self, topics: TopicTable, groups: GroupTable) -> None:
        for name, cfg in topics.topics.items():
            seen = self.topics.get(name)
            if seen is not None:
                cfg = cfg.with_(
                    read_queue_nums=cfg.read_queue_nums + seen.read_queue_nums,
                    write_queue_nums=cfg.write_queue_nums + seen.write_queue_nums,
                )
            self.topics[name] = cfg
        for name, group in groups.groups.items():
            seen_group = self.groups.get(name)
            if seen_group is not None:
                retries = int(group.get("retryQueueNums") or 0) + int(seen_group.get("retryQueueNums") or 0)
                group = {**group, "retryQueueNums": retries}
            self.groups[name] = group

    def to_json(self, *, topics: bool = True, groups: bool = True) -> dict[str, Any]:
        doc: dict[str, Any] = {}
        if topics:
            doc["topicConfigTable"] = _topics_json(self.topics)
        if groups:
            doc["subscriptionGroupTable"] = dict(sorted(self.groups.items()))
        return doc


class ExportOps(StatsOps):
    # --- one broker ---------------------------------------------------------------------------------

    async def user_topics(self, addr: str, special: bool = False) -> TopicTable:
        """Java's getUserTopicConfig: GET_ALL_TOPIC_CONFIG without the broker's system topics
        (GET_SYSTEM_TOPIC_LIST_FROM_BROKER), invalid permissions and, unless ``special``, %RETRY%/%DLQ%."""
        reply = await self.request(addr, topic_rpc.GET_ALL_TOPIC_CONFIG)
        system = set((await self.request(addr, rpc.GET_SYSTEM_TOPIC_LIST_FROM_BROKER)).body or [])
        table = reply.body or topic_rpc.TopicTable()
        kept = {n: c for n, c in table.items() if is_user_topic(c.with_(topic_name=n), system, special)}
        return TopicTable(table.data_version, kept)

    async def user_groups(self, addr: str) -> GroupTable:
        """Java's getUserSubscriptionGroup: GET_ALL_SUBSCRIPTIONGROUP_CONFIG without the system groups."""
        table = (await self.request(addr, group_rpc.GET_ALL_SUBSCRIPTIONGROUP_CONFIG)).body or group_rpc.GroupTable()
        groups = {n: dict(g) for n, g in sorted(table.as_written.items()) if is_user_group(n)}  # as Java's export
        return GroupTable(table.data_version, dict(table.forbidden), groups)

    async def client_versions(self, addr: str, groups: list[str]) -> list[str]:
        """``LANGUAGE%Vx_y_z`` of the consumers of ``groups`` connected to this broker (groups offline skipped)."""
        found: set[str] = set()
        for group in groups:
            header = client_rpc.ConsumerGroupHeader(consumer_group=group)
            try:
                body = (await self.request(addr, client_rpc.GET_CONSUMER_CONNECTION_LIST, header)).body
            except ResponseError:
                continue  # not online here (CONSUMER_NOT_ONLINE): skipped, as Java does
            for conn in body.connections if body is not None else []:
                found.add(f"{conn.language}%{conn.version_desc}")
        return sorted(found)

    # --- one cluster ---------------------------------------------------------------------------------

    async def cluster_metadata(self, cluster: str, special: bool = False) -> tuple[ClusterMetadata, list[TargetResult]]:
        """exportMetadata -c: every master's user topics and groups, merged."""
        merged = ClusterMetadata()

        async def one(t: Target) -> TargetResult:
            tables = (await self.user_topics(t.addr, special), await self.user_groups(t.addr))
            return TargetResult(t.name, t.addr, Status.OK, data=tables)

        results = await fan_out(await self.targets(None, cluster), one)
        for r in results:
            if r.ok:
                merged.add(*r.data)
        return merged, results

    async def configs_export(self, cluster: str) -> tuple[dict[str, Any], list[TargetResult]]:
        """exportConfigs: the masters' main config keys (by broker name) and the cluster's size."""
        info = await self.cluster_info()
        brokers = await self.cluster_brokers(cluster, info)

        async def one(t: Target) -> TargetResult:
            props = (await self.request(t.addr, broker_rpc.GET_BROKER_CONFIG)).body or {}
            return TargetResult(t.name, t.addr, Status.OK, data=props)

        results = await fan_out(masters(brokers), one)
        configs = {r.data.get("brokerName") or r.name: broker_config_subset(r.data) for r in results if r.ok}
        scale = {
            "namesrvSize": len(self.namesrv.addrs),
            "masterBrokerSize": sum(1 for b in brokers if b.master_addr),
            "slaveBrokerSize": sum(1 for t in every_address(brokers) if t.broker_id != 0),
        }
        return {"brokerConfigs": dict(sorted(configs.items())), "clusterScale": scale}, results

    async def metrics_export(self, cluster: str) -> tuple[dict[str, Any], list[TargetResult]]:
        """exportMetrics: per master its environment, TPS and day counts (normal, transactional, scheduled),
        sizes and client versions, plus the cluster's totals."""
        results = await fan_out(await self.targets(None, cluster), self._broker_metrics)
        report = {r.name: r.data for r in results if r.ok}
        tps = {"totalNormalInTps": 0.0, "totalNormalOutTps": 0.0, "totalTransInTps": 0.0, "totalScheduleInTps": 0.0}
        day = {"normalOneDayInNum": 0, "normalOneDayOutNum": 0, "transOneDayInNum": 0, "scheduleOneDayInNum": 0}
        for broker in report.values():
            quota = broker["runtimeQuota"]
            for total, key in zip(tps, ("normalInTps", "normalOutTps", "transInTps", "scheduleInTps"), strict=True):
                tps[total] += quota["tps"][key]
            for key in day:
                day[key] += quota["oneDayNum"][key]
        doc = {"evaluateReport": dict(sorted(report.items())), "totalData": {"totalTps": tps, "totalOneDayNum": day}}
        return doc, results

    async def _broker_metrics(self, t: Target) -> TargetResult:
        kv = (await self.request(t.addr, broker_rpc.GET_BROKER_RUNTIME_INFO)).body or {}
        props = (await self.request(t.addr, broker_rpc.GET_BROKER_CONFIG)).body or {}
        topics, groups = await self.user_topics(t.addr), await self.user_groups(t.addr)
        trans = await self.broker_stats(t.addr, items.TOPIC_PUT_NUMS, TRANS_HALF_TOPIC) or BrokerStatsData()
        schedule = await self.broker_stats(t.addr, items.TOPIC_PUT_NUMS, SCHEDULE_TOPIC) or BrokerStatsData()
        quota = {
            "diskRatio": {k: kv.get(k) for k in ("commitLogDiskRatio", "consumeQueueDiskRatio")},
            "tps": {
                "normalInTps": first_number(kv.get("putTps")) or 0.0,
                "normalOutTps": first_number(kv.get("getTransferredTps") or kv.get("getTransferedTps")) or 0.0,
                "transInTps": trans.minute.tps,
                "scheduleInTps": schedule.minute.tps,
            },
            "oneDayNum": {
                "normalOneDayInNum": _diff(kv, "msgPutTotalTodayMorning", "msgPutTotalYesterdayMorning"),
                "normalOneDayOutNum": _diff(kv, "msgGetTotalTodayMorning", "msgGetTotalYesterdayMorning"),
                "transOneDayInNum": trans.sum_24h,
                "scheduleOneDayInNum": schedule.sum_24h,
            },
            "messageAverageSize": kv.get("putMessageAverageSize"),
            "topicSize": len(topics.topics),
            "groupSize": len(groups.groups),
        }
        metrics = {
            "runtimeEnv": {
                "cpuNum": props.get("clientCallbackExecutorThreads"),
                "totalMemKBytes": kv.get("totalMemKBytes"),
            },
            "runtimeQuota": quota,
            "runtimeVersion": {
                "rocketmqVersion": kv.get("brokerVersionDesc"),
                "clientInfo": await self.client_versions(t.addr, list(groups.groups)),
            },
        }
        return TargetResult(t.name, t.addr, Status.OK, data=metrics)


def _diff(kv: dict[str, str], later: str, earlier: str) -> int:
    try:
        return int(kv[later]) - int(kv[earlier])
    except (KeyError, ValueError):
        return 0
