"""AdminClient: typed, async RocketMQ admin operations (a subset of Java's ``MQAdminExt``).

Each area's operations live in their own module (topics, groups, brokers, name servers) on the
shared ``AdminCore`` (requests by declaration, name-server fail-over, fan-out targets); this class
combines them. Fan-outs to brokers run concurrently and return one ``TargetResult`` per broker,
never stopping at the first failure.
"""

from __future__ import annotations

from mqadmin.admin.brokers import BrokerOps
from mqadmin.admin.groups import GroupOps
from mqadmin.admin.nameservers import NamesrvOps
from mqadmin.admin.offsets import OffsetOps
from mqadmin.admin.topics import TopicOps


class AdminClient(OffsetOps, TopicOps, GroupOps, BrokerOps, NamesrvOps):
    """``async with AdminClient(["127.0.0.1:9876"]) as admin: await admin.topic_route("T")``."""
