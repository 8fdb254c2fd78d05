"""BrokerConfig and its Java property names (GET/UPDATE_BROKER_CONFIG)."""

from __future__ import annotations

import json
import ssl
from dataclasses import dataclass, field
from pathlib import Path

from mqadmin.model.names import shown
from mqadmin.model.rpc.spec import RequestRefused
from mqadmin.model.topic import PERM_READ, PERM_WRITE
from mqadmin.server.auth.config import AuthSettings
from mqadmin.server.properties import (
    JAVA_INT_MAX,
    TEXT_MAX_LENGTH,
    Prop,
    apply_properties,
    properties_of,
    refuse_blacklisted,
)
from mqadmin.server.remoting import ConnectionLimits
from mqadmin.server.store import DEFAULT_SEGMENT_SIZE, FlushDiskType
from mqadmin.server.store.types import MAX_TRANSFER_BYTES, MAX_TRANSFER_COUNT
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
    forward_timeout: float = 3.0
    """Seconds a request forwarded to another broker may take, connecting included (Java forwardTimeout): a
    read of a static topic's logic queue whose older items are on another broker."""
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
    flush_interval_commitlog: float = 0.5
    """Seconds between flushes of the message store with ASYNC_FLUSH (Java flushIntervalCommitLog)."""
    flush_consumer_offset_interval: float = 5.0
    """Seconds between writes of the consumer offsets (Java flushConsumerOffsetInterval)."""
    file_reserved_hours: int = 72
    """How long a commit-log segment is kept after its last write (Java fileReservedTime, in hours): what
    DELETE_EXPIRED_COMMITLOG deletes."""
    delete_when: str = "04"
    """The hours (``04;16``) at which expired commit-log segments are deleted (Java deleteWhen)."""
    disk_max_used_space_ratio: int = 75
    """Above this percentage of its disk used, expired segments are deleted at any hour (Java
    diskMaxUsedSpaceRatio)."""
    clean_resource_interval: float = 10.0
    """Seconds between the checks for expired segments (Java cleanResourceInterval)."""
    max_transfer_count: int = MAX_TRANSFER_COUNT
    """Most messages one pull returns (Java maxTransferCountOnMessageInMemory)."""
    max_transfer_bytes: int = MAX_TRANSFER_BYTES
    """Most bytes one pull returns past its first message (Java maxTransferBytesOnMessageInMemory)."""
    data_read_ahead: bool = True
    """The kernel's read-ahead over the commit log (Java dataReadAheadEnable; SET_COMMITLOG_READ_MODE sets it)."""
    timer_wheel_enable: bool = False
    """This broker has no timer-message store (Java timerWheelEnable, true by default there): messages with a
    delivery time are not held back, and SWITCH_TIMER_ENGINE is refused as Apache refuses it without one."""
    stored: dict[str, str] = field(default_factory=dict)
    """Apache settings this broker does not implement, as updates set them: reported by GET_BROKER_CONFIG
    and without effect, as an Apache broker reports a setting it reads only at start."""
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
        return f"{self.listen_host}:{self.ha_port}"

    @property
    def ha_port(self) -> int:
        return self.listen_port + 1

    @property
    def broker_role(self) -> str:
        """Java's brokerRole: this broker is an ASYNC_MASTER (id 0) or a SLAVE."""
        return "ASYNC_MASTER" if self.broker_id == 0 else "SLAVE"

    @property
    def commitlog_dir(self) -> Path:
        return Path(self.data_dir) / "commitlog"

    @property
    def config_dir(self) -> Path:
        return Path(self.data_dir) / "config"

    def to_properties(self) -> dict[str, str]:
        """Every setting an Apache 5.5 broker reports: this broker's own, then the ones updates stored, then
        Apache's defaults; and the keys an update refuses (Java reports its ``configBlackList`` too)."""
        own = properties_of(self, PROPERTIES) | {"configBlackList": ";".join(sorted(CONFIG_BLACKLIST))}
        return APACHE_DEFAULTS | self.stored | own

    def apply_properties(self, props: dict[str, str]) -> list[str]:
        """Apply an update: this broker's settings by ``PROPERTIES``; any other setting Apache 5.5 lets an
        update change is checked against its Java type and stored (reported, no effect). All or nothing;
        RequestRefused names the first bad key."""
        refuse_blacklisted(props, CONFIG_BLACKLIST)
        stored = {k: v for k, v in props.items() if k in APACHE_KEYS and k not in PROPERTIES}
        try:
            checked = {k: java_value(k, APACHE_KEYS[k][0], v) for k, v in stored.items()}
        except ValueError as e:
            raise RequestRefused(str(e)) from None
        ours = {k: v for k, v in props.items() if k not in stored}
        applied = apply_properties(self, PROPERTIES, ours, CONFIG_BLACKLIST)
        self.stored.update(checked)
        return applied + list(checked)


def _apache_keys() -> dict[str, tuple[str, str | None]]:
    """``apache_broker_config.json`` (``python -m tests.realrmq.broker_config_table`` writes it from Apache's
    jars): each setting's Java type (``start-only``: an update cannot set it) and default (None: not reported)."""
    table = json.loads(Path(__file__).with_name("apache_broker_config.json").read_text())
    return {key: (type_, default) for key, (type_, default) in table["keys"].items()}


APACHE_KEYS = _apache_keys()
APACHE_DEFAULTS = {key: default for key, (_, default) in APACHE_KEYS.items() if default is not None}
_JAVA_INTS = {"int": JAVA_INT_MAX, "Integer": JAVA_INT_MAX, "long": 2**63 - 1, "Long": 2**63 - 1}


def java_value(key: str, type_: str, raw: str) -> str:
    """``raw`` as Apache's update would parse it into a setting of Java type ``type_`` (ValueError naming the key
    and value when it cannot: Apache ignores such a value silently, and reports success)."""
    raw = raw.strip()
    if type_ == "start-only":
        raise ValueError(f"{key} cannot be changed by an update; Apache reads it at start-up only")
    if type_ in _JAVA_INTS:
        high = _JAVA_INTS[type_]
        if not raw.lstrip("+-").isdigit() or not -high - 1 <= int(raw) <= high:
            raise ValueError(f"{key}={shown(raw)} is not a Java {type_.lower()}")
        return str(int(raw))
    if type_ in ("boolean", "Boolean"):
        if raw.lower() not in ("true", "false"):
            raise ValueError(f"{key}={shown(raw)} is not true or false")
        return raw.lower()
    if type_ in ("double", "Double", "float", "Float"):
        try:
            float(raw)
        except ValueError:
            raise ValueError(f"{key}={shown(raw)} is not a number") from None
        return raw
    if not raw.isprintable() or len(raw) > TEXT_MAX_LENGTH:
        raise ValueError(f"{key}={shown(raw)} must be printable text of at most {TEXT_MAX_LENGTH} characters")
    return raw


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
    "forwardTimeout": Prop("forward_timeout", "ms", low=1),
    "longPollingEnable": Prop("long_polling_enable", "bool"),
    "shortPollingTimeMills": Prop("short_polling_time", "ms", low=1),
    "regionId": Prop("region_id"),
    "traceOn": Prop("trace_on", "bool"),
    "rejectTransactionMessage": Prop("reject_transaction_message", "bool"),
    "reviveQueueNum": Prop("revive_queue_num", "int", runtime=False),
    "messageDelayLevel": Prop("message_delay_level", runtime=False),
    "flushDiskType": Prop("flush_disk_type", runtime=False),
    "mappedFileSizeCommitLog": Prop("mapped_file_size_commitlog", "int", runtime=False),
    "brokerIP2": Prop("listen_host", runtime=False),
    "haListenPort": Prop("ha_port", "int", runtime=False),
    "brokerRole": Prop("broker_role", runtime=False),
    "storePathCommitLog": Prop("commitlog_dir", "path", runtime=False),
    "fileReservedTime": Prop("file_reserved_hours", "int"),
    "deleteWhen": Prop("delete_when"),
    "diskMaxUsedSpaceRatio": Prop("disk_max_used_space_ratio", "int", low=10, high=95),
    "cleanResourceInterval": Prop("clean_resource_interval", "ms", low=100),
    "dataReadAheadEnable": Prop("data_read_ahead", "bool"),
    "maxTransferCountOnMessageInMemory": Prop("max_transfer_count", "int", low=1),
    "maxTransferBytesOnMessageInMemory": Prop("max_transfer_bytes", "int", low=1),
    "timerWheelEnable": Prop("timer_wheel_enable", "bool", runtime=False),
    "flushIntervalCommitLog": Prop("flush_interval_commitlog", "ms", low=1),
    "flushConsumerOffsetInterval": Prop("flush_consumer_offset_interval", "ms", low=1),
}
"""The broker's settings under Java's names. UPDATE_BROKER_CONFIG changes only those a Java broker
reads while running (``runtime``), within Java's ranges (PermName.isValid for brokerPermission); the
others (defaultTopicQueueNums, registerNameServerPeriod: read once at start) are refused, as are
names this broker does not know. registerBrokerTimeoutMills below one second would make every
registration fail, so it is refused too. Every other setting of Apache 5.5 (``APACHE_KEYS``) is reported with
Apache's default, and an update stores it (``BrokerConfig.stored``)."""
