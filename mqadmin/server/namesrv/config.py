"""NamesrvConfig and its Java property names (GET/UPDATE_NAMESRV_CONFIG)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from mqadmin.server.paths import child
from mqadmin.server.properties import Prop, apply_properties, properties_of
from mqadmin.server.remoting import ConnectionLimits
from mqadmin.server.tls import ServerTls


@dataclass
class NamesrvConfig:
    listen_host: str = "127.0.0.1"
    listen_port: int = 9876
    data_dir: Path = field(default_factory=lambda: Path.home() / "namesrv")
    scan_interval: float = 10.0
    """Seconds between scans for silent brokers (Java scanNotActiveBrokerInterval)."""
    broker_expire: float = 120.0
    """A broker silent this long is removed, unless its registration asked for another timeout."""
    order_message_enable: bool = True
    """Routes carry orderTopicConf from KV ORDER_TOPIC_CONFIG. Java defaults this to false; we
    default to true so that ``updateTopic -o true`` / ``updateOrderConf`` take effect."""
    return_order_topic_config_to_broker: bool = True
    enable_all_topic_list: bool = True
    enable_topic_list: bool = True
    product_env_name: str = "center"
    cluster_test: bool = False
    limits: ConnectionLimits = field(default_factory=ConnectionLimits)
    """Idle and partial-frame limits of client connections (mqadmin.server.remoting)."""
    tls: ServerTls | None = None
    """Serve TLS with this certificate (None: plain TCP)."""
    reset_unreadable_metadata: bool = False
    """Start with empty tables when a metadata file and its backup cannot be read (they are moved
    aside), instead of refusing to start (mqadmin.server.persist.read_metadata)."""

    @property
    def addr(self) -> str:
        return f"{self.listen_host}:{self.listen_port}"

    @property
    def kv_config_path(self) -> Path:
        return child(Path(self.data_dir), "kvConfig.json")

    @property
    def config_store_path(self) -> Path:
        return Path(self.data_dir) / "namesrv.properties"

    def to_properties(self) -> dict[str, str]:
        props = properties_of(self, PROPERTIES)
        props["kvConfigPath"] = str(self.kv_config_path)
        props["configStorePath"] = str(self.config_store_path)
        props["configBlackList"] = ";".join(sorted(CONFIG_BLACKLIST))
        return props

    def apply_properties(self, props: dict[str, str]) -> list[str]:
        return apply_properties(self, PROPERTIES, props, CONFIG_BLACKLIST)


CONFIG_BLACKLIST = frozenset({"configBlackList", "configStorePath", "kvConfigPath"})
"""Keys UPDATE_NAMESRV_CONFIG refuses with NO_PERMISSION."""

PROPERTIES: dict[str, Prop] = {
    "listenPort": Prop("listen_port", "int", runtime=False),
    "rocketmqHome": Prop("data_dir", "path", runtime=False),
    "scanNotActiveBrokerInterval": Prop("scan_interval", "ms", runtime=False),
    "brokerChannelExpiredTime": Prop("broker_expire", "ms", runtime=False),
    "orderMessageEnable": Prop("order_message_enable", "bool"),
    "returnOrderTopicConfigToBroker": Prop("return_order_topic_config_to_broker", "bool"),
    "enableAllTopicList": Prop("enable_all_topic_list", "bool"),
    "enableTopicList": Prop("enable_topic_list", "bool"),
    "productEnvName": Prop("product_env_name"),
    "clusterTest": Prop("cluster_test", "bool"),
}
"""UPDATE_NAMESRV_CONFIG changes the runtime ones; the scan interval and the broker expiry are read
at start-up (Java schedules its scan once), so an update cannot make the scan spin."""
