"""What Java mqadmin's export commands keep: user topics and groups (exportMetadata, exportMetrics) and
the broker config keys of configs.json (exportConfigs)."""

from __future__ import annotations

from mqadmin.model.names import is_system_topic
from mqadmin.model.topic import TopicConfig

RETRY_PREFIX = "%RETRY%"
DLQ_PREFIX = "%DLQ%"

PREDEFINED_GROUPS = frozenset(
    {
        "DEFAULT_CONSUMER", "DEFAULT_PRODUCER", "TOOLS_CONSUMER", "SCHEDULE_CONSUMER", "FILTERSRV_CONSUMER",
        "__MONITOR_CONSUMER", "CLIENT_INNER_PRODUCER", "SELF_TEST_P_GROUP", "SELF_TEST_C_GROUP",
        "CID_ONS-HTTP-PROXY", "CID_ONSAPI_PERMISSION", "CID_ONSAPI_OWNER", "CID_ONSAPI_PULL",
    }
)  # fmt: skip
"""Groups every broker has (Java MixAll's system group set)."""
SYSTEM_GROUP_PREFIX = "CID_RMQ_SYS_"

CONFIG_KEYS = (
    "brokerClusterName", "brokerId", "brokerName", "brokerRole", "fileReservedTime", "filterServerNums",
    "flushDiskType", "maxMessageSize", "messageDelayLevel", "msgTraceTopicName", "slaveReadEnable", "traceOn",
    "traceTopicEnable", "useTLS", "autoCreateTopicEnable", "autoCreateSubscriptionGroup",
)  # fmt: skip
"""The broker config keys exportConfigs writes (those the broker has)."""


def is_user_group(group: str) -> bool:
    """Java's getUserSubscriptionGroup: every group but the predefined ones and ``CID_RMQ_SYS_*``."""
    return group not in PREDEFINED_GROUPS and not group.startswith(SYSTEM_GROUP_PREFIX)


def is_user_topic(cfg: TopicConfig, system_topics: frozenset[str] | set[str], special: bool) -> bool:
    """Java's getUserTopicConfig: not a system topic (the broker's list or the fixed ones), a valid
    permission, and no ``%RETRY%``/``%DLQ%`` topic unless ``special``."""
    name = cfg.topic_name
    if name in system_topics or is_system_topic(name) or not 0 <= cfg.perm < 8:
        return False
    return special or not name.startswith((RETRY_PREFIX, DLQ_PREFIX))


def broker_config_subset(props: dict[str, str]) -> dict[str, str]:
    return {k: props[k] for k in CONFIG_KEYS if k in props}
