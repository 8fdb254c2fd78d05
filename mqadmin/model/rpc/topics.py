"""Topic requests a broker answers: create or update, read, delete, queue statistics, consumers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mqadmin.model.access import TopicsInBody
from mqadmin.model.data_version import DataVersion
from mqadmin.model.names import NameKind, first_refusal, topic_refusal
from mqadmin.model.rpc.bodies import JsonBody
from mqadmin.model.rpc.spec import Header, Rpc, wire
from mqadmin.model.stats import TopicStatsBody
from mqadmin.model.topic import DEFAULT_TOPIC, TopicConfig, alter_attributes, attributes_to_wire, parse_attribute_ops
from mqadmin.model.version import V5_3_0
from mqadmin.wire.codes import RequestCode as C
from mqadmin.wire.codes import ResponseCode

if TYPE_CHECKING:
    from mqadmin.model.static_topic import StaticTopicConfig


@dataclass(frozen=True, slots=True, kw_only=True)
class CreateTopicHeader(Header):
    """UPDATE_AND_CREATE_TOPIC (17); ``attributes`` and ``force`` are 5.x fields. Java requires
    ``defaultTopic`` and ``topicFilterType``; the embedded broker takes their usual values when absent."""

    topic: str = wire("topic", check=topic_refusal)
    default_topic: str = wire("defaultTopic", DEFAULT_TOPIC)
    read_queue_nums: int = wire("readQueueNums")
    write_queue_nums: int = wire("writeQueueNums")
    perm: int = wire("perm")
    topic_filter_type: str = wire("topicFilterType", "SINGLE_TAG")
    topic_sys_flag: int | None = wire("topicSysFlag", None)
    order: bool = wire("order", False)
    attributes: str | None = wire("attributes", None)
    force: bool | None = wire("force", None)

    @classmethod
    def of(cls, cfg: TopicConfig, attributes: str | None = None) -> CreateTopicHeader:
        """The header creating ``cfg``; ``attributes`` overrides the attribute operations sent (an update
        sends only the changes: 5.x brokers merge them into what they hold)."""
        return cls(
            topic=cfg.topic_name,
            default_topic=DEFAULT_TOPIC,
            read_queue_nums=cfg.read_queue_nums,
            write_queue_nums=cfg.write_queue_nums,
            perm=cfg.perm,
            topic_filter_type=cfg.topic_filter_type,
            topic_sys_flag=cfg.topic_sys_flag,
            order=cfg.order,
            attributes=attributes_to_wire(cfg.attributes) if attributes is None else attributes,
            force=False,
        )

    def config(self, current_attributes: dict[str, str] | None = None) -> TopicConfig:
        """The TopicConfig this header describes, its attribute operations applied to ``current_attributes``
        (an existing topic's); ValueError for malformed attributes."""
        return TopicConfig(
            topic_name=self.topic,
            read_queue_nums=self.read_queue_nums,
            write_queue_nums=self.write_queue_nums,
            perm=self.perm,
            topic_filter_type=self.topic_filter_type or "SINGLE_TAG",
            topic_sys_flag=self.topic_sys_flag or 0,
            order=self.order,
            attributes=alter_attributes(current_attributes or {}, parse_attribute_ops(self.attributes or "")),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class TopicHeader(Header):
    topic: str = wire("topic", check=topic_refusal)


@dataclass(frozen=True, slots=True, kw_only=True)
class GetTopicConfigHeader(Header):
    topic: str = wire("topic", check=topic_refusal)
    lo: bool | None = wire("lo", None)


class TopicTable(dict[str, TopicConfig]):
    """A broker's topics by name (GET_ALL_TOPIC_CONFIG). ``static`` names the static topics among them (5.x:
    their queues are mapped by updateStaticTopic / remappingStaticTopic, so the brokers' configs differ)."""

    static: frozenset[str] = frozenset()
    data_version: DataVersion | None = None
    """The wrapper's dataVersion (None when the broker sent none)."""


def _table_topic(name: str, cfg: Any) -> TopicConfig:
    return TopicConfig.from_json(cfg, name)


def _topic_table(obj: Any) -> TopicTable:
    """The wrapper, its ``topicConfigTable`` already read into TopicConfigs (``_table_topic``, entry by entry)."""
    written = obj.get("topicConfigTable") or {}
    if not isinstance(written, dict):
        raise ValueError("topicConfigTable is not an object")
    table = TopicTable(written)
    # Apache's brokers answer with the detail map (their registration with the name server carries the info map)
    table.static = frozenset(obj.get("topicQueueMappingDetailMap") or {}) | frozenset(
        obj.get("topicQueueMappingInfoMap") or {}
    )
    dv = obj.get("dataVersion")
    table.data_version = DataVersion.from_json(dv) if isinstance(dv, dict) else None
    return table


def _topic_table_json(table: dict[str, TopicConfig]) -> dict[str, Any]:
    out: dict[str, Any] = {"topicConfigTable": {name: cfg.to_json() for name, cfg in table.items()}}
    if isinstance(table, TopicTable) and table.data_version is not None:
        out["dataVersion"] = table.data_version.to_json()
    return out


def _topic_config_list(obj: Any) -> list[TopicConfig]:
    items = obj.get("topicConfigList")
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise ValueError("topicConfigList is not a list of objects")
    return [TopicConfig.from_json(i) for i in items]


def _static_topic_config(obj: Any) -> StaticTopicConfig:
    from mqadmin.model.static_topic import StaticTopicConfig  # only when a config is read: 4 ms of start-up

    return StaticTopicConfig.from_json(obj)


TOPIC_CONFIG: JsonBody[StaticTopicConfig] = JsonBody(
    "TopicConfigAndQueueMapping", _static_topic_config, lambda cfg: cfg.to_json()
)
"""GET_TOPIC_CONFIG's answer: the config and, asked with ``lo=true`` for a static topic, its queue mapping."""
TOPIC_CONFIG_TABLE = JsonBody(
    "TopicConfigSerializeWrapper", _topic_table, _topic_table_json, tables={"topicConfigTable": _table_topic}
)
TOPIC_CONFIG_LIST = JsonBody(
    "CreateTopicListRequestBody", _topic_config_list, lambda cfgs: {"topicConfigList": [c.to_json() for c in cfgs]}
)
TOPIC_STATS = TopicStatsBody()
GROUP_LIST = JsonBody(
    "GroupList", lambda obj: sorted(str(g) for g in obj.get("groupList") or []), lambda g: {"groupList": g}
)

UPDATE_AND_CREATE_TOPIC = Rpc(
    C.UPDATE_AND_CREATE_TOPIC,
    "UPDATE_AND_CREATE_TOPIC",
    CreateTopicHeader,
    summary="create or update one topic",
)
UPDATE_AND_CREATE_TOPIC_LIST = Rpc(
    C.UPDATE_AND_CREATE_TOPIC_LIST, "UPDATE_AND_CREATE_TOPIC_LIST", body=TOPIC_CONFIG_LIST,
    body_check=lambda cfgs: first_refusal((NameKind.TOPIC, c.topic_name) for c in cfgs),
    access=TopicsInBody(("Create",)), summary="create or update many topics in one request (5.3.0+)",
    since=V5_3_0, fallback=UPDATE_AND_CREATE_TOPIC,
)  # fmt: skip
GET_ALL_TOPIC_CONFIG = Rpc(
    C.GET_ALL_TOPIC_CONFIG, "GET_ALL_TOPIC_CONFIG", response_body=TOPIC_CONFIG_TABLE,
    summary="every topic config the broker holds",
)  # fmt: skip
GET_TOPIC_CONFIG = Rpc(
    C.GET_TOPIC_CONFIG, "GET_TOPIC_CONFIG", GetTopicConfigHeader, response_body=TOPIC_CONFIG,
    ok=frozenset({ResponseCode.SUCCESS, ResponseCode.TOPIC_NOT_EXIST}),
    summary="one topic's config and static-topic mapping (5.0+; TOPIC_NOT_EXIST when absent)",
)  # fmt: skip
DELETE_TOPIC_IN_BROKER = Rpc(
    C.DELETE_TOPIC_IN_BROKER,
    "DELETE_TOPIC_IN_BROKER",
    TopicHeader,
    summary="delete a topic and its queues",
)
GET_TOPIC_STATS_INFO = Rpc(
    C.GET_TOPIC_STATS_INFO, "GET_TOPIC_STATS_INFO", TopicHeader, response_body=TOPIC_STATS,
    summary="min/max offset and last update time of each queue",
)  # fmt: skip
QUERY_TOPIC_CONSUME_BY_WHO = Rpc(
    C.QUERY_TOPIC_CONSUME_BY_WHO, "QUERY_TOPIC_CONSUME_BY_WHO", TopicHeader, response_body=GROUP_LIST,
    summary="the groups consuming a topic on this broker (subscribed or with committed offsets)",
)  # fmt: skip
