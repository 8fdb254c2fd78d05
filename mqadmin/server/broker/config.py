"""BrokerConfig and its Java property names (GET/UPDATE_BROKER_CONFIG)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mqadmin.model.topic import PERM_READ, PERM_WRITE


@dataclass
class BrokerConfig:
    broker_name: str = "broker-a"
    cluster_name: str = "DefaultCluster"
    broker_id: int = 0
    listen_host: str = "127.0.0.1"
    listen_port: int = 10911
    namesrv_addrs: list[str] = field(default_factory=lambda: ["127.0.0.1:9876"])
    data_dir: Path = field(default_factory=lambda: Path.home() / "store")
    auto_create_topic_enable: bool = True
    default_topic_queue_nums: int = 8
    broker_permission: int = PERM_READ | PERM_WRITE
    max_message_size: int = 4 * 1024 * 1024
    cluster_topic_enable: bool = True
    broker_topic_enable: bool = True
    auto_create_subscription_group: bool = True
    register_interval: float = 30.0
    """Seconds between full registrations with every name server (Java registerNameServerPeriod)."""
    register_timeout: float = 6.0
    long_polling_enable: bool = True
    long_polling_max_wait: float = 30.0
    """Upper bound in seconds on how long a suspended pull is held (the client asks for less)."""
    short_polling_time: float = 1.0
    region_id: str = "DefaultRegion"
    trace_on: bool = True
    reject_transaction_message: bool = False
    revive_queue_num: int = 8

    @property
    def addr(self) -> str:
        return f"{self.listen_host}:{self.listen_port}"

    @property
    def ha_addr(self) -> str:
        return f"{self.listen_host}:{self.listen_port + 1}"

    @property
    def config_dir(self) -> Path:
        return Path(self.data_dir) / "config"

    # --- Java properties --------------------------------------------------------------------

    def to_properties(self) -> dict[str, str]:
        return {java: _format(getattr(self, attr), kind) for java, (attr, kind, _) in PROPERTIES.items()}

    def apply_properties(self, props: dict[str, str]) -> list[str]:
        """Apply the runtime-changeable keys among ``props`` (others are ignored, as Java ignores
        unknown keys). Returns the Java names applied; raises ValueError naming a bad value."""
        parsed: dict[str, Any] = {}
        for java, raw in props.items():
            spec = PROPERTIES.get(java)
            if spec is None or not spec[2]:
                continue
            attr, kind, _ = spec
            parsed[attr] = _parse(java, raw, kind)
        for attr, value in parsed.items():
            setattr(self, attr, value)
        return [j for j in props if j in PROPERTIES and PROPERTIES[j][2]]


CONFIG_BLACKLIST = frozenset({"brokerConfigPath", "configBlackList", "rocketmqHome"})
"""Keys UPDATE_BROKER_CONFIG refuses with NO_PERMISSION."""

# Java name -> (attribute, kind, changeable at runtime)
PROPERTIES: dict[str, tuple[str, str, bool]] = {
    "brokerName": ("broker_name", "str", False),
    "brokerClusterName": ("cluster_name", "str", False),
    "brokerId": ("broker_id", "int", False),
    "brokerIP1": ("listen_host", "str", False),
    "listenPort": ("listen_port", "int", False),
    "namesrvAddr": ("namesrv_addrs", "addrs", False),
    "storePathRootDir": ("data_dir", "path", False),
    "autoCreateTopicEnable": ("auto_create_topic_enable", "bool", True),
    "defaultTopicQueueNums": ("default_topic_queue_nums", "int", True),
    "brokerPermission": ("broker_permission", "int", True),
    "maxMessageSize": ("max_message_size", "int", True),
    "clusterTopicEnable": ("cluster_topic_enable", "bool", False),
    "brokerTopicEnable": ("broker_topic_enable", "bool", False),
    "autoCreateSubscriptionGroup": ("auto_create_subscription_group", "bool", True),
    "registerNameServerPeriod": ("register_interval", "ms", True),
    "registerBrokerTimeoutMills": ("register_timeout", "ms", True),
    "longPollingEnable": ("long_polling_enable", "bool", True),
    "shortPollingTimeMills": ("short_polling_time", "ms", True),
    "regionId": ("region_id", "str", True),
    "traceOn": ("trace_on", "bool", True),
    "rejectTransactionMessage": ("reject_transaction_message", "bool", True),
    "reviveQueueNum": ("revive_queue_num", "int", False),
}


def _format(value: Any, kind: str) -> str:
    if kind == "bool":
        return "true" if value else "false"
    if kind == "ms":
        return str(int(round(value * 1000)))
    if kind == "addrs":
        return ";".join(value)
    return str(value)


def _parse(java: str, raw: str, kind: str) -> Any:
    raw = raw.strip()
    if kind == "bool":
        if raw.lower() not in ("true", "false"):
            raise ValueError(f"{java}={raw!r} is not true or false")
        return raw.lower() == "true"
    if kind in ("int", "ms"):
        try:
            n = int(raw)
        except ValueError:
            raise ValueError(f"{java}={raw!r} is not an integer") from None
        if n < 0:
            raise ValueError(f"{java}={raw!r} must not be negative")
        return n / 1000 if kind == "ms" else n
    if kind == "addrs":
        return [a.strip() for a in raw.split(";") if a.strip()]
    if kind == "path":
        return Path(raw)
    return raw
