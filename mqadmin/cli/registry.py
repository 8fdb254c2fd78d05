"""Every mqadmin command in one place: its name (Java mqadmin's spelling), the module that holds it,
its help section and one-line summary.

Commands are imported only when run (or when their own help is shown), so start-up stays fast however
many there are; the root help is built from this table alone. Adding a command: write its module
under ``mqadmin/cli/commands/`` (see docs/development.md) and add one line here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Entry:
    name: str
    module: str
    """Under ``mqadmin.cli.commands``; it registers the command with ``mqadmin.cli.command.command``."""
    section: str
    summary: str


TOPICS = "Topics"
GROUPS = "Subscription groups"
CLUSTERS = "Clusters and brokers"
HA = "High availability and controllers"
NAMESRV = "Name servers"
MESSAGES = "Messages"
CONSUMERS = "Consumers, producers and offsets"
AUTH = "Users and ACLs"
PROFILES = "Profiles"
TOPOLOGY = "Topology as code"
FLEET = "Fleet audit"
DEV = "Embedded cluster"
HELP = "Help"

SECTIONS = (TOPICS, GROUPS, CLUSTERS, HA, NAMESRV, MESSAGES, CONSUMERS, AUTH, PROFILES, TOPOLOGY, FLEET, DEV, HELP)
"""Root-help sections, in order."""

COMMANDS: tuple[Entry, ...] = (
    Entry(
        "updateTopic",
        "topic.update_topic",
        TOPICS,
        "Create a topic, or change the settings given, on one broker or every master.",
    ),
    Entry(
        "deleteTopic",
        "topic.delete_topic",
        TOPICS,
        "Delete a topic from every master of a cluster and from the name servers.",
    ),
    Entry("topicRoute", "topic.topic_route", TOPICS, "Show a topic's route: brokers, addresses and queues."),
    Entry("topicList", "topic.topic_list", TOPICS, "List every topic the name server knows."),
    Entry("topicStatus", "topic.topic_status", TOPICS, "Min/max offset and last update time of each queue of a topic."),
    Entry(
        "updateOrderConf",
        "topic.update_order_conf",
        TOPICS,
        "Put, get or delete a topic's orderTopicConf on the name servers.",
    ),
    Entry("clusterList", "cluster.cluster_list", CLUSTERS, "List brokers by cluster with version and in/out TPS."),
    Entry(
        "brokerStatus",
        "cluster.broker_status",
        CLUSTERS,
        "Runtime statistics of one broker or of every broker of a cluster.",
    ),
    Entry("sendMessage", "message.send_message", MESSAGES, "Send one message and show where it was stored."),
    Entry(
        "consumeMessage", "message.consume_message", MESSAGES, "Read messages from a topic without committing offsets."
    ),
    Entry(
        "consumerProgress",
        "consumer.consumer_progress",
        CONSUMERS,
        "A group's offsets and lag per queue with totals, or every group's lag.",
    ),
    Entry(
        "consumerConnection",
        "consumer.consumer_connection",
        CONSUMERS,
        "A consumer group's clients (id, address, language, version) and subscriptions.",
    ),
    Entry("producerConnection", "consumer.producer_connection", CONSUMERS, "A producer group's clients on a topic."),
    Entry("producer", "consumer.producer", CONSUMERS, "Every producer connected to one broker, by group."),
    Entry(
        "consumerStatus",
        "consumer.consumer_status",
        CONSUMERS,
        "What each consumer of a group reports about itself (queues, rates, thread dump).",
    ),
    Entry(
        "getConsumerStatus",
        "consumer.get_consumer_status",
        CONSUMERS,
        "The offsets each consumer of a group holds in memory for a topic.",
    ),
    Entry("setConsumeMode", "consumer.set_consume_mode", CONSUMERS, "Whether a group reads a topic by pull or pop."),
    Entry(
        "resetOffsetByTime",
        "consumer.reset_offset_by_time",
        CONSUMERS,
        "Move a group on a topic to a point in time (old and new offset per queue).",
    ),
    Entry(
        "skipAccumulatedMessage",
        "consumer.skip_accumulated_message",
        CONSUMERS,
        "Move a group to the end of every queue of a topic (lag 0).",
    ),
    Entry("cloneGroupOffset", "consumer.clone_group_offset", CONSUMERS, "Give a group another group's offsets."),
    Entry(
        "exportMetadata",
        "metadata",
        FLEET,
        "Collect topics, groups and lag of many clusters into an export.",
    ),
    Entry("audit", "metadata", FLEET, "Audit an export for misplaced topics and write a remediation plan."),
    Entry(
        "generateFleet",
        "metadata",
        FLEET,
        "Write a synthetic fleet export (for trying the audit at scale).",
    ),
    Entry("dev", "dev", DEV, "Run an embedded RocketMQ-compatible name server and brokers (no Java)."),
    Entry("help", "help", HELP, "Show the help of a command: mqadmin help updateTopic."),
)

_BY_NAME = {e.name.lower(): e for e in COMMANDS}


def find(name: str) -> Entry | None:
    """The entry for a command name, in any case (``updatetopic`` as Java mqadmin accepts it)."""
    return _BY_NAME.get(name.lower())
