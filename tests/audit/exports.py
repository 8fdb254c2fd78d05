"""Hand-built exports for audit tests: small, each row placed on purpose, with the findings expected."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mqadmin.admin.results import overall_status
from mqadmin.fleet.manifest import new_manifest
from mqadmin.fleet.writer import ExportWriter

Key = tuple[str, str, str | None, str | None, str | None, str]  # source, cluster, topic, broker, group, rule


class ExportBuilder:
    def __init__(self, root: Path) -> None:
        self.w = ExportWriter(root)
        self.sources: dict[str, dict[str, Any]] = {}

    def cluster(self, source: str, cluster: str, namesrv: str = "127.0.0.1:9876", order_conf_ok: bool = True) -> None:
        src = self.sources.setdefault(
            source,
            {"source": source, "namesrv": namesrv.split(";"), "status": "ok", "reason": None,
             "order_conf_ok": order_conf_ok, "clusters": []},
        )  # fmt: skip
        src["clusters"].append({"cluster": cluster, "brokers": []})
        self.w.write("clusters", {"source": source, "cluster": cluster, "namesrv": namesrv})

    def broker(
        self, source: str, cluster: str, name: str, perm: int | None = 6, ok: bool = True, groups_ok: bool = True
    ) -> None:
        row = {"source": source, "cluster": cluster, "brokerName": name, "brokerId": 0, "addr": f"{name}:10911",
               "role": "master", "brokerPermission": perm, "topicsOk": ok, "groupsOk": ok and groups_ok}  # fmt: skip
        self.w.write("brokers", row)
        self.w.write("brokers", {**row, "brokerId": 1, "role": "slave", "addr": f"{name}:10912",
                                 "brokerPermission": None, "topicsOk": False, "groupsOk": False})  # fmt: skip
        entry = next(c for c in self.sources[source]["clusters"] if c["cluster"] == cluster)
        entry["brokers"].append(
            {"broker_name": name, "broker_id": 0, "addr": row["addr"], "role": "master",
             "status": "ok" if ok else "failed", "reason": None if ok else "down", "errors": [], "rows": {}}
        )  # fmt: skip

    def topic(self, source: str, cluster: str, brokers: str, topic: str, r: int = 8, w: int = 8, perm: int = 6,
              order: bool = False, attributes: dict[str, str] | None = None) -> None:  # fmt: skip
        for b in brokers.split():
            self.w.write(
                "topics",
                {"source": source, "cluster": cluster, "brokerName": b, "topic": topic, "readQueueNums": r,
                 "writeQueueNums": w, "perm": perm, "order": order, "topicSysFlag": 0,
                 "topicFilterType": "SINGLE_TAG", "attributes": attributes or {}},
            )  # fmt: skip

    def group(self, source: str, cluster: str, brokers: str, group: str) -> None:
        for b in brokers.split():
            self.w.write(
                "groups",
                {"source": source, "cluster": cluster, "brokerName": b, "group": group, "consumeEnable": True,
                 "consumeMessageOrderly": False, "consumeBroadcastEnable": False, "retryQueueNums": 1,
                 "retryMaxTimes": 16},
            )  # fmt: skip

    def lag(self, source: str, cluster: str, broker: str, group: str, topic: str, lag: int) -> None:
        self.w.write(
            "consumer_lag",
            {"source": source, "cluster": cluster, "brokerName": broker, "group": group, "topic": topic,
             "lag": lag, "queues": 4},
        )  # fmt: skip

    def order_conf(self, source: str, topic: str, value: str) -> None:
        self.w.write("order_conf", {"source": source, "topic": topic, "orderConf": value})

    def finish(self) -> dict[str, Any]:
        manifest = new_manifest({"tool": "tests"})
        for src in self.sources.values():
            statuses = [b["status"] for c in src["clusters"] for b in c["brokers"]]
            src["status"] = overall_status(statuses + ([] if src["order_conf_ok"] else ["partial"]))
            manifest["sources"].append(src)
        manifest["status"] = overall_status([s["status"] for s in manifest["sources"]])
        return self.w.finish(manifest)


def edge_case_export(root: Path) -> set[Key]:
    """Every rule's corner cases in two sources; returns the findings a correct audit reports
    (with lag threshold 100, default skew)."""
    b = ExportBuilder(root)
    # s1/C1: a writable, b perm unknown (counts as writable), c read-only (does not count).
    b.cluster("s1", "C1", "127.0.0.1:9876;127.0.0.2:9876")
    b.broker("s1", "C1", "a", 6)
    b.broker("s1", "C1", "b", None)
    b.broker("s1", "C1", "c", 4)
    b.topic("s1", "C1", "a b", "Good")  # not on read-only c: fine
    b.topic("s1", "C1", "a", "Trap", 4, 4)  # created through TBW102 on a only
    b.topic("s1", "C1", "c", "OnlyOnReadOnly")  # on 0 of 2 writable masters
    b.topic("s1", "C1", "a", "Inherit", perm=7)  # plan keeps perm 7
    b.topic("s1", "C1", "a", "Wide", 16, 16)
    b.topic("s1", "C1", "c", "Wide", 8, 8)  # missing on b and unequal: two findings, one plan command
    b.topic("s1", "C1", "a b", "Shrinking", 8, 4)
    b.topic("s1", "C1", "a", "ReadOnly", perm=4)
    b.topic("s1", "C1", "b", "ReadOnly", perm=6)
    b.topic("s1", "C1", "a b", "Fifo", order=True, attributes={"message.type": "FIFO"})
    b.topic("s1", "C1", "a b", "Unconfigured", order=True)
    b.topic("s1", "C1", "a b", "Miscounted", order=True)
    b.order_conf("s1", "Fifo", "x:8; b:8 ;a:8;")  # x is in C2: not this cluster's business
    b.order_conf("s1", "Miscounted", "a:8;b:4")
    b.order_conf("s1", "Ghost", "a:8")  # no such topic anywhere: nothing to say
    # system topics that would trip every rule if they counted
    b.topic("s1", "C1", "a", "a", 1, 1, 7)  # broker-name topic
    b.topic("s1", "C1", "a b c", "C1", 16, 16, 7)
    b.topic("s1", "C1", "a", "BenchmarkTest", 1024, 1024)
    b.topic("s1", "C1", "a", "rmq_sys_SYNC_BROKER_MEMBER_a", 1, 1, 1)
    b.topic("s1", "C1", "a", "C1_REPLY_TOPIC", 1, 1)
    b.group("s1", "C1", "a b c", "G1")
    b.group("s1", "C1", "a b c", "G2")
    b.topic("s1", "C1", "a b", "%RETRY%G1", 1, 1)
    b.topic("s1", "C1", "a", "%RETRY%G1_Trap", 1, 1)  # POP retry topic (v1) of G1
    b.topic("s1", "C1", "a", "%RETRY%G2+Good", 1, 1)  # POP retry topic (v2) of G2
    b.topic("s1", "C1", "a", "%DLQ%G2", 1, 1)
    b.topic("s1", "C1", "a b", "%RETRY%Gone", 1, 1)
    b.topic("s1", "C1", "b", "%DLQ%Gone", 1, 1)
    b.lag("s1", "C1", "a", "G1", "Good", 60)
    b.lag("s1", "C1", "b", "G1", "Good", 41)
    b.lag("s1", "C1", "a", "G2", "Good", 100)  # not above 100
    # s1/C2 under the same name servers: the Fifo conf names x, so it concerns C2 too.
    b.cluster("s1", "C2", "127.0.0.1:9876;127.0.0.2:9876")
    b.broker("s1", "C2", "x")
    b.broker("s1", "C2", "y")
    b.topic("s1", "C2", "x y", "Fifo")  # conf lists x only: y's queues are missing from it
    b.topic("s1", "C2", "x y", "Miscounted")  # conf names only C1 brokers and the topic is not ordered here
    # s2/C1 (same cluster name, another fleet entry): q failed, order configs not read.
    b.cluster("s2", "C1", "127.0.0.3:9876", order_conf_ok=False)
    b.broker("s2", "C1", "p")
    b.broker("s2", "C1", "q", ok=False)
    b.broker("s2", "C1", "r")
    b.topic("s2", "C1", "p r", "Trap")  # q unknown: not reported
    b.topic("s2", "C1", "p r", "Unconfigured", order=True)  # order configs unknown: not reported
    b.topic("s2", "C1", "p r", "%RETRY%Nobody", 1, 1)  # q's groups unknown: not reported
    # s2/D: a drained (read-only) master holding few topics and queues
    b.cluster("s2", "D", "127.0.0.3:9876", order_conf_ok=False)
    for name, perm in (("m1", 6), ("m2", 6), ("m3", 4)):
        b.broker("s2", "D", name, perm)
    for i in range(30):
        b.topic("s2", "D", "m1 m2 m3" if i < 2 else "m1 m2", f"T{i:02d}")
    b.finish()
    return {
        ("s1", "C1", "Trap", None, None, "PLACEMENT_SUBSET"),
        ("s1", "C1", "OnlyOnReadOnly", None, None, "PLACEMENT_SUBSET"),
        ("s1", "C1", "Inherit", None, None, "PLACEMENT_SUBSET"),
        ("s1", "C1", "Wide", None, None, "PLACEMENT_SUBSET"),
        ("s1", "C1", "Wide", None, None, "QUEUE_COUNT_UNEQUAL"),
        ("s1", "C1", "Shrinking", None, None, "READ_WRITE_MISMATCH"),
        ("s1", "C1", "ReadOnly", None, None, "PERM_NOT_RW"),
        ("s1", "C1", "Unconfigured", None, None, "ORDER_CONF_MISSING"),
        ("s1", "C1", "Miscounted", None, None, "ORDER_CONF_MISMATCH"),
        ("s1", "C1", "%RETRY%Gone", None, None, "ORPHAN_RETRY_TOPIC"),
        ("s1", "C1", "%DLQ%Gone", None, None, "ORPHAN_DLQ_TOPIC"),
        ("s1", "C1", None, None, "G1", "LAG_OVER_THRESHOLD"),
        ("s1", "C2", "Fifo", None, None, "ORDER_CONF_MISMATCH"),
        ("s1", "C1", None, "c", None, "BROKER_QUEUE_SKEW"),  # its topic count is within --skew-min
        ("s2", "D", None, "m3", None, "BROKER_TOPIC_SKEW"),
        ("s2", "D", None, "m3", None, "BROKER_QUEUE_SKEW"),
    }


def keys(findings: list[dict[str, Any]]) -> set[Key]:
    return {(f["source"], f["cluster"], f["topic"], f["broker"], f["group"], f["rule"]) for f in findings}


def truth_keys(truth: list[dict[str, Any]]) -> set[Key]:
    return keys(truth)
