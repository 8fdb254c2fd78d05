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
    Entry(
        "updateSubGroup",
        "group.update_sub_group",
        GROUPS,
        "Create a subscription group, or change the settings given, on one broker or every master.",
    ),
    Entry(
        "updateSubGroupList",
        "group.update_sub_group_list",
        GROUPS,
        "Create or update the subscription groups of a JSON or TOML file on one broker or every master.",
    ),
    Entry(
        "deleteSubGroup", "group.delete_sub_group", GROUPS, "Delete a subscription group from one broker or a cluster."
    ),
    Entry("getConsumerConfig", "group.get_consumer_config", GROUPS, "A subscription group's config on every broker."),
    Entry("clusterList", "cluster.cluster_list", CLUSTERS, "List brokers by cluster with version and in/out TPS."),
    Entry(
        "brokerStatus",
        "cluster.broker_status",
        CLUSTERS,
        "Runtime statistics of one broker or of every broker of a cluster.",
    ),
    Entry(
        "clusterRT", "cluster.cluster_rt", CLUSTERS, "Send messages to every broker and show the send RT per broker."
    ),
    Entry("statsAll", "cluster.stats_all", CLUSTERS, "TPS and 24-hour counts per topic and consumer group."),
    Entry(
        "exportConfigs", "cluster.export_configs", CLUSTERS, "Write a cluster's main broker configs to configs.json."
    ),
    Entry(
        "exportMetrics", "cluster.export_metrics", CLUSTERS, "Write a cluster's TPS, counts and sizes to metrics.json."
    ),
    Entry("getNamesrvConfig", "namesrv.get_namesrv_config", NAMESRV, "Show the config of every name server."),
    Entry(
        "updateNamesrvConfig",
        "namesrv.update_namesrv_config",
        NAMESRV,
        "Change a config key on every name server (old → new on each).",
    ),
    Entry("getKvConfig", "namesrv.get_kv_config", NAMESRV, "Show a KV namespace's entries, or one key's value."),
    Entry("updateKvConfig", "namesrv.update_kv_config", NAMESRV, "Create or update a KV entry on every name server."),
    Entry("deleteKvConfig", "namesrv.delete_kv_config", NAMESRV, "Delete a KV entry from every name server."),
    Entry(
        "wipeWritePerm",
        "namesrv.wipe_write_perm",
        NAMESRV,
        "Remove a broker's write permission in every name server's routes (drain it).",
    ),
    Entry("addWritePerm", "namesrv.add_write_perm", NAMESRV, "Give a broker's queues write permission again."),
    Entry("sendMessage", "message.send_message", MESSAGES, "Send one message and show where it was stored."),
    Entry(
        "consumeMessage", "message.consume_message", MESSAGES, "Read messages from a topic without committing offsets."
    ),
    Entry("plan", "topology.plan", TOPOLOGY, "Show what applying a topology file would change (exit 6: changes)."),
    Entry("apply", "topology.apply", TOPOLOGY, "Make the clusters hold the topics and groups of a topology file."),
    Entry(
        "exportTopology",
        "topology.export_topology",
        TOPOLOGY,
        "Write a live cluster's topics and groups as a topology file.",
    ),
    Entry("wait", "topology.wait", TOPOLOGY, "Wait for writable masters, a routable topic or an online consumer."),
    Entry("doctor", "topology.doctor", TOPOLOGY, "Check a live cluster for known pitfalls; each finding with its fix."),
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
