"""AdminClient: typed, async RocketMQ admin operations (a subset of Java's ``MQAdminExt``).

Each area's operations live in their own module (topics, groups, brokers, name servers, users/ACLs) on the
shared ``AdminCore`` (requests by declaration, name-server fail-over, fan-out targets); this class
combines them. Fan-outs to brokers run concurrently and return one ``TargetResult`` per broker,
never stopping at the first failure.
"""

from __future__ import annotations

from mqadmin.admin.auth import AuthOps
from mqadmin.admin.brokers import BrokerOps
from mqadmin.admin.exports import ExportOps
from mqadmin.admin.groups import GroupOps
from mqadmin.admin.ha import HaOps
from mqadmin.admin.lite import LiteOps
from mqadmin.admin.monitor import MonitorOps
from mqadmin.admin.nameservers import NamesrvOps
from mqadmin.admin.offsets import OffsetOps
from mqadmin.admin.queries import MessageOps
from mqadmin.admin.static_topics import StaticTopicOps
from mqadmin.admin.stats import StatsOps
from mqadmin.admin.store import StoreOps
from mqadmin.admin.topic_batch import TopicBatchOps
from mqadmin.admin.topics import TopicOps


class AdminClient(
    TopicBatchOps,
    StaticTopicOps,
    LiteOps,
    OffsetOps,
    MonitorOps,
    TopicOps,
    GroupOps,
    BrokerOps,
    NamesrvOps,
    ExportOps,
    StatsOps,
    AuthOps,
    MessageOps,
    HaOps,
    StoreOps,
):
    """``async with AdminClient(["127.0.0.1:9876"]) as admin: await admin.topic_route("T")``."""
