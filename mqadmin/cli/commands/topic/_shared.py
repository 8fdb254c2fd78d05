"""What several topic commands share: a topic config as JSON, permission values, reserved names."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

if TYPE_CHECKING:
    from mqadmin.model.route import ClusterInfo
    from mqadmin.model.topic import TopicConfig

PERMS = {2: "write-only", 4: "read-only", 6: "read-write"}
PERM_HINT = "use 2 (write-only), 4 (read-only) or 6 (read-write)"


class TopicConfigDoc(TypedDict):
    readQueueNums: int
    writeQueueNums: int
    perm: Annotated[int, "2 write-only, 4 read-only, 6 read-write"]
    permString: Annotated[str, "RW-, R--, -W-"]
    order: bool
    topicSysFlag: int
    topicFilterType: str
    attributes: Annotated[dict[str, str], "5.x attributes, e.g. message.type"]


def topic_config_json(cfg: TopicConfig) -> TopicConfigDoc:
    from mqadmin.model.topic import perm_to_string

    return {
        "readQueueNums": cfg.read_queue_nums,
        "writeQueueNums": cfg.write_queue_nums,
        "perm": cfg.perm,
        "permString": perm_to_string(cfg.perm),
        "order": cfg.order,
        "topicSysFlag": cfg.topic_sys_flag,
        "topicFilterType": cfg.topic_filter_type,
        "attributes": dict(cfg.attributes),
    }


def check_reserved(topic: str, info: ClusterInfo) -> None:
    """A usage error for a topic named like a cluster or broker (brokers reserve those names as topics)."""
    from mqadmin.cli.errors import usage_error

    if topic in info.clusters:
        raise usage_error(f"{topic!r} is the name of a cluster; brokers reserve it as a topic", "pick another name")
    if topic in info.brokers:
        raise usage_error(f"{topic!r} is the name of a broker; brokers reserve it as a topic", "pick another name")


def java_time(ms: int) -> str:
    """mqadmin's ``yyyy-MM-dd HH:mm:ss,SSS`` in local time; empty for never (0 or negative)."""
    import datetime

    if ms <= 0:
        return ""
    return datetime.datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M:%S,") + f"{ms % 1000:03d}"
