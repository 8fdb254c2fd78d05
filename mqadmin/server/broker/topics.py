"""TopicConfigManager: the broker's topic table, its start-up topics, auto-creation, persistence.

Every change is in memory at once, durable (topics.json + fsynced journal, group commit) before
the call returns, and then announced to the name servers (an incremental registration, batched
the same way) before the call returns. The DataVersion is bumped on every change.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from mqadmin.model.data_version import DataVersion, data_version_from_file
from mqadmin.model.names import is_system_topic, shown, topic_problem
from mqadmin.model.static_topic import TopicQueueMappingDetail, TopicQueueMappingInfo
from mqadmin.model.topic import (
    DEFAULT_TOPIC,
    PERM_INHERIT,
    PERM_READ,
    PERM_WRITE,
    TopicConfig,
)
from mqadmin.server.bodies import TableJson
from mqadmin.server.broker.config import BrokerConfig
from mqadmin.server.durable import DurableJson, change_durably
from mqadmin.server.persist import check_fields
from mqadmin.wire import fastjson

log = logging.getLogger(__name__)

UpdateResult = Literal["created", "updated", "unchanged"]
Publisher = Callable[[list[TopicConfig], bool], Awaitable[None]]
"""Announce changed topics to the name servers: ``(changed, wait)``, returning once sent when ``wait``."""

ANNOUNCED_BEFORE_ANSWER = 1000
"""A change of up to this many topics is announced to the name servers before it is answered (as Apache does); a
larger one (UPDATE_AND_CREATE_TOPIC_LIST of 50,000 topics) is answered once stored and persisted, and announced
right after: the name servers' decoding of that many topics would outlast the client's 5 s timeout."""

SELF_TEST_TOPIC = "SELF_TEST_TOPIC"
BENCHMARK_TOPIC = "BenchmarkTest"
OFFSET_MOVED_EVENT = "OFFSET_MOVED_EVENT"
SCHEDULE_TOPIC = "SCHEDULE_TOPIC_XXXX"
TRANS_HALF_TOPIC = "RMQ_SYS_TRANS_HALF_TOPIC"
TRANS_OP_HALF_TOPIC = "RMQ_SYS_TRANS_OP_HALF_TOPIC"


def startup_topics(cfg: BrokerConfig) -> list[TopicConfig]:
    """The topics a broker creates at start (docs/protocol.md, "Broker"; 5.x TopicConfigManager constructor)."""
    rw = PERM_READ | PERM_WRITE
    out = [TopicConfig(SELF_TEST_TOPIC, 1, 1, rw)]
    if cfg.auto_create_topic_enable:
        n = cfg.default_topic_queue_nums
        out.append(TopicConfig(DEFAULT_TOPIC, n, n, PERM_INHERIT | rw))
    out += [
        TopicConfig(BENCHMARK_TOPIC, 1024, 1024, rw),
        TopicConfig(cfg.cluster_name, 16, 16, PERM_INHERIT | (rw if cfg.cluster_topic_enable else 0)),
        TopicConfig(cfg.broker_name, 1, 1, PERM_INHERIT | (rw if cfg.broker_topic_enable else 0)),
        TopicConfig(OFFSET_MOVED_EVENT, 1, 1, rw),
        TopicConfig(SCHEDULE_TOPIC, 18, 18, rw),
        TopicConfig(f"{cfg.cluster_name}_REPLY_TOPIC", 1, 1, rw),
        TopicConfig(f"rmq_sys_REVIVE_LOG_{cfg.cluster_name}", cfg.revive_queue_num, cfg.revive_queue_num, rw),
        TopicConfig(f"rmq_sys_SYNC_BROKER_MEMBER_{cfg.broker_name}", 1, 1, PERM_INHERIT),
        TopicConfig(TRANS_HALF_TOPIC, 1, 1, rw),
        TopicConfig(TRANS_OP_HALF_TOPIC, 1, 1, rw),
    ]
    return out


TOPIC_FIELDS: dict[str, type | tuple[type, ...]] = {
    "topicName": str, "readQueueNums": int, "writeQueueNums": int, "perm": int, "topicFilterType": str,
    "topicSysFlag": int, "order": bool, "attributes": dict,
}  # fmt: skip


def topic_from_file(obj: Any, name: str | None, where: str) -> TopicConfig:
    """A TopicConfig read back from topics.json or its journal; ValueError naming the bad field."""
    if not isinstance(obj, dict):
        raise ValueError(f"{where} is not an object")
    check_fields(obj, TOPIC_FIELDS, where)
    return TopicConfig.from_json(obj, name)


def mapping_from_file(obj: Any, where: str) -> TopicQueueMappingDetail:
    if not isinstance(obj, dict) or not isinstance(obj.get("hostedQueues", {}), dict):
        raise ValueError(f"{where} is not a queue mapping object")
    try:
        return TopicQueueMappingDetail.from_json(obj)
    except (TypeError, ValueError, AttributeError) as e:
        raise ValueError(f"{where}: {e}") from None


Mappings = dict[str, TopicQueueMappingDetail]


def parse_topics_file(obj: Any) -> tuple[DataVersion, dict[str, TopicConfig], Mappings]:
    if not isinstance(obj, dict):
        raise ValueError("the file is not a JSON object")
    table = obj.get("topicConfigTable") or {}
    if not isinstance(table, dict):
        raise ValueError("topicConfigTable is not an object")
    topics = {name: topic_from_file(tc, name, f"topic {shown(name)}") for name, tc in table.items()}
    mapping_table = obj.get("topicQueueMappingTable") or {}
    if not isinstance(mapping_table, dict):
        raise ValueError("topicQueueMappingTable is not an object")
    mappings = {name: mapping_from_file(m, f"mapping of {shown(name)}") for name, m in mapping_table.items()}
    return data_version_from_file(obj.get("dataVersion")), topics, mappings


@dataclass(frozen=True, slots=True)
class TopicRecord:
    """One journal line: a full put or a delete, and the DataVersion after it."""

    put: TopicConfig | None
    deleted: str | None
    data_version: DataVersion | None
    mapping: TopicQueueMappingDetail | None = None
    """A static topic's logic-queue mapping, written with its config (one record: both or neither)."""


def parse_topic_record(rec: Any) -> TopicRecord:
    if not isinstance(rec, dict) or not ({"put", "del"} & rec.keys()):
        raise ValueError("not a put or del record")
    put = topic_from_file(rec["put"], None, "put") if "put" in rec else None
    if put is not None and not put.topic_name:
        raise ValueError("put has no topicName")
    deleted = rec.get("del")
    if deleted is not None and not isinstance(deleted, str):
        raise ValueError("del is not a topic name")
    dv = data_version_from_file(rec["dataVersion"]) if "dataVersion" in rec else None
    mapping = mapping_from_file(rec["mapping"], "mapping") if "mapping" in rec else None
    return TopicRecord(put, deleted, dv, mapping)


class TopicConfigManager:
    def __init__(self, config: BrokerConfig, path: Path, publish: Publisher | None = None) -> None:
        self.config = config
        self.path = path
        self._publish = publish
        self._table: dict[str, TopicConfig] = {}
        self._mappings: Mappings = {}
        """Static topics: topic → this broker's logic-queue mapping (Apache keeps it in topicQueueMapping.json;
        here it is in topics.json, so a topic and its mapping are written together)."""
        self._body = TableJson("topicConfigTable", TopicConfig.to_json)
        self._dv = DataVersion()
        self._startup_names: set[str] = set()
        self._file = DurableJson(
            path,
            self._snapshot,
            parse=parse_topics_file,
            parse_record=parse_topic_record,
            reset_unreadable=config.reset_unreadable_metadata,
            journal=True,
            size=lambda: len(self._table),
        )
        self._create_lock = asyncio.Lock()

    # --- reading ---------------------------------------------------------------------------

    def get(self, name: str) -> TopicConfig | None:
        return self._table.get(name)

    def all(self) -> dict[str, TopicConfig]:
        return dict(self._table)

    def mapping(self, name: str) -> TopicQueueMappingDetail | None:
        """A static topic's mapping on this broker (None for a normal topic)."""
        return self._mappings.get(name)

    def mapping_infos(self, names: Iterable[str]) -> dict[str, TopicQueueMappingInfo]:
        """What the name servers are told of the static topics among ``names``."""
        return {name: d.info() for name in names if (d := self._mappings.get(name)) is not None}

    def __len__(self) -> int:
        return len(self._table)

    @property
    def data_version(self) -> dict[str, Any]:
        return self._dv.to_json()

    def is_system_topic(self, name: str) -> bool:
        """Refused by create/delete: the fixed system topics plus the names this broker adds at start."""
        return is_system_topic(name) or name in self._startup_names

    async def wrapper_body(self) -> bytes:
        """TopicConfigAndMappingSerializeWrapper (GET_ALL_TOPIC_CONFIG), made off the loop when large."""
        fields = {
            "dataVersion": self._dv.to_json(),
            "mappingDataVersion": self._dv.to_json(),
            "topicQueueMappingDetailMap": {t: m.to_json() for t, m in sorted(self._mappings.items())},
            "topicQueueMappingInfoMap": {t: m.to_json() for t, m in sorted(self.mapping_infos(self._mappings).items())},
        }
        return await self._body.body(fields, self._table)

    # --- loading ---------------------------------------------------------------------------

    def load(self) -> None:
        """Start-up topics first, then the persisted table over them (as Java does: the file wins).

        Raises MetadataError naming topics.json when neither it nor its backup can be used (unless
        the broker was told to start empty). Entries with illegal names are left out, named in a
        warning; the broker's own start-up topics are kept whatever their names.
        """
        for tc in startup_topics(self.config):
            self._table[tc.topic_name] = tc
            self._startup_names.add(tc.topic_name)
        snapshot, records = self._file.load()
        if snapshot is not None:
            self._dv, table, mappings = snapshot
            for name, tc in table.items():
                if self._legal(name, self.path):
                    self._table[name] = tc
                    if name in mappings:
                        self._mappings[name] = mappings[name]
        for rec in records:
            self._replay(rec)
        self._body.remember(self._table.items())

    def _legal(self, name: str, source: Path) -> bool:
        problem = None if name in self._startup_names else topic_problem(name)
        if problem is not None:
            log.warning("%s: left out a topic: %s", source, problem)
        return problem is None

    def _replay(self, rec: TopicRecord) -> None:
        if rec.data_version is not None:
            self._dv = rec.data_version
        if rec.put is not None and self._legal(rec.put.topic_name, self._file.journal_path):
            self._table[rec.put.topic_name] = rec.put
            if rec.mapping is not None:
                self._mappings[rec.put.topic_name] = rec.mapping
        if rec.deleted is not None:
            self._table.pop(rec.deleted, None)
            self._mappings.pop(rec.deleted, None)

    def _snapshot(self) -> dict[str, Any]:
        return {
            "dataVersion": self._dv.to_json(),
            "topicConfigTable": self._body.entries(self._table),
            "topicQueueMappingTable": {t: m.to_json() for t, m in sorted(self._mappings.items())},
        }

    async def close(self) -> None:
        await self._file.close()

    # --- changing --------------------------------------------------------------------------

    async def update(self, cfg: TopicConfig) -> UpdateResult:
        return (await self.update_many([cfg]))[0]

    async def update_many(self, cfgs: Iterable[TopicConfig]) -> list[UpdateResult]:
        """Create or replace topics; identical configs are left alone (no DataVersion bump)."""
        results: list[UpdateResult] = []
        changed: list[TopicConfig] = []
        for cfg in cfgs:
            old = self._table.get(cfg.topic_name)
            if old == cfg:
                results.append("unchanged")
                continue
            results.append("created" if old is None else "updated")
            changed.append(cfg)
        if changed:
            await self._commit_puts(changed)
        else:  # identical to memory, but maybe not yet on disk (a concurrent request's change): wait for it
            await self._file.commit()
        return results

    async def delete(self, name: str) -> bool:
        if name not in self._table:
            return False
        self._dv.next()
        record = {"del": name, "dataVersion": self._dv.to_json()}
        old_mapping = self._mappings.pop(name, None)
        try:
            await change_durably(self._table, {name: None}, self._file.committer(record))
        except Exception:
            if old_mapping is not None:
                self._mappings[name] = old_mapping
            raise
        return True

    async def update_static(self, cfg: TopicConfig, mapping: TopicQueueMappingDetail) -> None:
        """Store a static topic's config and mapping in one journal record (both or neither survive a crash),
        then announce both to the name servers."""
        self._dv.next()
        record = {"put": cfg.to_json(), "mapping": mapping.to_json(), "dataVersion": self._dv.to_json()}
        name = cfg.topic_name
        old_mapping = self._mappings.get(name)
        self._mappings[name] = mapping
        try:
            await change_durably(self._table, {name: cfg}, self._file.committer(record))
        except Exception:
            if self._mappings.get(name) is mapping:
                if old_mapping is None:
                    self._mappings.pop(name, None)
                else:
                    self._mappings[name] = old_mapping
            raise
        self._body.remember([(name, cfg)])
        if self._publish is not None:
            await self._publish([cfg], True)

    async def create_in_send(
        self, topic: str, default_topic: str, client_queue_nums: int, topic_sys_flag: int = 0
    ) -> TopicConfig | None:
        """Auto-creation on the first send (Java createTopicInSendMessageMethod).

        Allowed only when ``default_topic`` exists here and its perm has INHERIT; TBW102 counts
        as non-inheritable when autoCreateTopicEnable is off. Queues = min(client's
        defaultTopicQueueNums, the default topic's write queues); perm = the default's without
        INHERIT. Returns the existing config if the topic exists, None when not allowed.
        """
        async with self._create_lock:
            existing = self._table.get(topic)
            if existing is not None:
                return existing
            default = self._table.get(default_topic)
            if default is None:
                log.warning("auto-create of %s refused: default topic %s does not exist", topic, default_topic)
                return None
            perm = default.perm
            if default_topic == DEFAULT_TOPIC and not self.config.auto_create_topic_enable:
                perm = PERM_READ | PERM_WRITE
            if not perm & PERM_INHERIT:
                log.warning("auto-create of %s refused: default topic %s has perm %d", topic, default_topic, perm)
                return None
            queues = max(0, min(client_queue_nums, default.write_queue_nums))
            cfg = TopicConfig(
                topic,
                queues,
                queues,
                perm & ~PERM_INHERIT,
                default.topic_filter_type,
                topic_sys_flag,
            )
            await self._commit_puts([cfg])
            return cfg

    async def create_retry_topic(self, topic: str, queue_nums: int = 1, perm: int = 6) -> TopicConfig:
        """A ``%RETRY%`` topic on demand (Java createTopicInSendMessageBackMethod)."""
        async with self._create_lock:
            existing = self._table.get(topic)
            if existing is not None:
                return existing
            cfg = TopicConfig(topic, queue_nums, queue_nums, perm)
            await self._commit_puts([cfg])
            return cfg

    def bump_version(self) -> None:
        """A change the name servers must see that is not in the table (e.g. the broker's permission)."""
        self._dv.next()

    async def apply_order_config(self, order_conf: dict[str, str]) -> None:
        """Mark the topics listed in the name server's ORDER_TOPIC_CONFIG as ordered (what a Java
        broker does with the KVTable of a REGISTER_BROKER response; it never clears the flag)."""
        changed = [tc.with_(order=True) for name, tc in self._table.items() if name in order_conf and not tc.order]
        if changed:
            await self._commit_puts(changed, publish=False)

    async def _commit_puts(self, cfgs: list[TopicConfig], publish: bool = True) -> None:
        if not cfgs:
            return
        for _ in cfgs:
            self._dv.next()
        dv = fastjson.dumps(self._dv.to_json())
        # each topic encoded once: the text kept for the table's body is its journal record's and (when the
        # commit rewrites the snapshot, as after a large list) its snapshot entry
        self._body.remember((cfg.topic_name, cfg) for cfg in cfgs)
        records = [f'{{"put":{self._body.value_text(cfg.topic_name)},"dataVersion":{dv}}}' for cfg in cfgs]
        await change_durably(self._table, {cfg.topic_name: cfg for cfg in cfgs}, self._file.committer(*records))
        if publish and self._publish is not None:
            await self._publish(cfgs, len(cfgs) <= ANNOUNCED_BEFORE_ANSWER)
