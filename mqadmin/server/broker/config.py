"""BrokerConfig and its Java property names (GET/UPDATE_BROKER_CONFIG)."""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field
from pathlib import Path

from mqadmin.model.topic import PERM_READ, PERM_WRITE
from mqadmin.server.auth.config import AuthSettings
from mqadmin.server.properties import Prop, apply_properties, properties_of
from mqadmin.server.remoting import ConnectionLimits
from mqadmin.server.store import DEFAULT_SEGMENT_SIZE, FlushDiskType
from mqadmin.server.tls import ServerTls
from mqadmin.transport.credentials import Credentials


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
    message_delay_level: str = "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h"
    """How long each delay level waits (mqadmin.server.broker.schedule); read at start, as Java does."""
    flush_disk_type: FlushDiskType = FlushDiskType.ASYNC
    """ASYNC_FLUSH (flushed every half second) or SYNC_FLUSH (a send is answered once on disk);
    see mqadmin.server.store for what each guarantees."""
    mapped_file_size_commitlog: int = DEFAULT_SEGMENT_SIZE
    """Size of a commit-log segment file."""
    limits: ConnectionLimits = field(default_factory=ConnectionLimits)
    """Idle and partial-frame limits of client connections (mqadmin.server.remoting)."""
    tls: ServerTls | None = None
    """Serve TLS with this certificate, and register with the name servers over TLS trusting its CA (None:
    plain TCP both ways)."""
    reset_unreadable_metadata: bool = False
    """Start with empty tables when a metadata file and its backup cannot be read (they are moved
    aside), instead of refusing to start (mqadmin.server.persist.read_metadata)."""
    auth: AuthSettings | None = None
    """ACL 2.0 on (mqadmin.server.auth): every request authenticated and authorized, users and ACLs
    managed by the AUTH_* requests, registrations signed with the first Super user's keys."""

    @property
    def addr(self) -> str:
        return f"{self.listen_host}:{self.listen_port}"

    def namesrv_tls(self) -> ssl.SSLContext | None:
        """The context the broker dials its name servers with (None: plain TCP)."""
        return self.tls.client_context() if self.tls else None

    def internal_credentials(self) -> Credentials | None:
        """What the broker signs its own requests to name servers with, as Apache brokers sign with
        ``innerClientAuthenticationCredentials``: the first Super user's keys with ACL on, else None."""
        if self.auth is None:
            return None
        user = self.auth.internal
        return Credentials(user.username, user.password or "")

    @property
    def ha_addr(self) -> str:
        return f"{self.listen_host}:{self.listen_port + 1}"

    @property
    def config_dir(self) -> Path:
        return Path(self.data_dir) / "config"

    def to_properties(self) -> dict[str, str]:
        """The settings, and the keys an update refuses (Java reports its ``configBlackList`` too)."""
        return properties_of(self, PROPERTIES) | {"configBlackList": ";".join(sorted(CONFIG_BLACKLIST))}

    def apply_properties(self, props: dict[str, str]) -> list[str]:
        return apply_properties(self, PROPERTIES, props, CONFIG_BLACKLIST)


CONFIG_BLACKLIST = frozenset({"brokerConfigPath", "configBlackList", "rocketmqHome"})
"""Keys UPDATE_BROKER_CONFIG refuses with NO_PERMISSION."""

PROPERTIES: dict[str, Prop] = {
    "brokerName": Prop("broker_name", runtime=False),
    "brokerClusterName": Prop("cluster_name", runtime=False),
    "brokerId": Prop("broker_id", "int", runtime=False),
    "brokerIP1": Prop("listen_host", runtime=False),
    "listenPort": Prop("listen_port", "int", runtime=False),
    "namesrvAddr": Prop("namesrv_addrs", "addrs", runtime=False),
    "storePathRootDir": Prop("data_dir", "path", runtime=False),
    "autoCreateTopicEnable": Prop("auto_create_topic_enable", "bool"),
    "defaultTopicQueueNums": Prop("default_topic_queue_nums", "int", runtime=False),
    "brokerPermission": Prop("broker_permission", "int", high=7),
    "maxMessageSize": Prop("max_message_size", "int", low=1),
    "clusterTopicEnable": Prop("cluster_topic_enable", "bool", runtime=False),
    "brokerTopicEnable": Prop("broker_topic_enable", "bool", runtime=False),
    "autoCreateSubscriptionGroup": Prop("auto_create_subscription_group", "bool"),
    "registerNameServerPeriod": Prop("register_interval", "ms", runtime=False),
    "registerBrokerTimeoutMills": Prop("register_timeout", "ms", low=1000),
    "longPollingEnable": Prop("long_polling_enable", "bool"),
    "shortPollingTimeMills": Prop("short_polling_time", "ms", low=1),
    "regionId": Prop("region_id"),
    "traceOn": Prop("trace_on", "bool"),
    "rejectTransactionMessage": Prop("reject_transaction_message", "bool"),
    "reviveQueueNum": Prop("revive_queue_num", "int", runtime=False),
    "messageDelayLevel": Prop("message_delay_level", runtime=False),
    "flushDiskType": Prop("flush_disk_type", runtime=False),
    "mappedFileSizeCommitLog": Prop("mapped_file_size_commitlog", "int", runtime=False),
}
"""The broker's settings under Java's names. UPDATE_BROKER_CONFIG changes only those a Java broker
reads while running (``runtime``), within Java's ranges (PermName.isValid for brokerPermission); the
others (defaultTopicQueueNums, registerNameServerPeriod: read once at start) are refused, as are
names this broker does not know. registerBrokerTimeoutMills below one second would make every
registration fail, so it is refused too."""
