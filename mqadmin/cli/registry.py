"""Every mqadmin command in one place: its name (Java mqadmin's spelling), the module that holds it,
its help section and one-line summary.

Commands are imported only when run (or when their own help is shown), so start-up stays fast however
many there are; the root help is built from this table alone. Adding a command: write its module
under ``mqadmin/cli/commands/`` (see docs/development.md) and add one line here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from mqadmin.cli.errors import CliError


class Entry(NamedTuple):  # a NamedTuple: about 100 of them are built at every start, far cheaper than a dataclass
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
    Entry("updateTopicPerm", "topic.update_topic_perm", TOPICS, "Change only a topic's permission on brokers."),
    Entry(
        "updateTopicList",
        "topic.update_topic_list",
        TOPICS,
        "Create or update every topic of a JSON or TOML file on one broker or every master.",
    ),
    Entry("topicClusterList", "topic.topic_cluster_list", TOPICS, "List the clusters a topic is on."),
    Entry("allocateMQ", "topic.allocate_mq", TOPICS, "Show which queues each consumer client would get."),
    Entry(
        "updateStaticTopic",
        "topic.update_static_topic",
        TOPICS,
        "Create a static topic (fixed logic queues) or add queues to one (5.x).",
    ),
    Entry("remappingStaticTopic", "topic.remapping_static_topic", TOPICS, "Move a static topic's logic queues (5.x)."),
    Entry("getBrokerLiteInfo", "topic.get_broker_lite_info", TOPICS, "A broker's lite-topic metadata (5.5)."),
    Entry("getParentTopicInfo", "topic.get_parent_topic_info", TOPICS, "A lite parent topic on each broker (5.5)."),
    Entry("getLiteTopicInfo", "topic.get_lite_topic_info", TOPICS, "One lite topic's offsets and subscribers (5.5)."),
    Entry("getLiteClientInfo", "topic.get_lite_client_info", TOPICS, "One client's lite subscriptions (5.5)."),
    Entry(
        "getLiteGroupInfo",
        "topic.get_lite_group_info",
        TOPICS,
        "A lite group's lag per broker and top lite topics (5.5).",
    ),
    Entry("triggerLiteDispatch", "topic.trigger_lite_dispatch", TOPICS, "Dispatch a lite group's events again (5.5)."),
    Entry("clusterList", "cluster.cluster_list", CLUSTERS, "List brokers by cluster: TPS, load, disk, activation."),
    Entry("top", "cluster.top", CLUSTERS, "A live view of one cluster: brokers' health, groups by lag."),
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
    Entry("getBrokerConfig", "broker.get_broker_config", CLUSTERS, "Show the config of one broker or of a cluster's."),
    Entry(
        "updateBrokerConfig",
        "broker.update_broker_config",
        CLUSTERS,
        "Change a config key on one broker or a cluster's masters (old → new on each).",
    ),
    Entry(
        "brokerConsumeStats", "broker.broker_consume_stats", CLUSTERS, "Every group's offsets and lag on one broker."
    ),
    Entry("sendMsgStatus", "broker.send_msg_status", CLUSTERS, "Send messages to one broker and time each send."),
    Entry("cleanExpiredCQ", "broker.store_maintenance", CLUSTERS, "Drop consume queues whose messages are gone."),
    Entry("cleanUnusedTopic", "broker.store_maintenance", CLUSTERS, "Drop the stored queues of deleted topics."),
    Entry(
        "deleteExpiredCommitLog",
        "broker.store_maintenance",
        CLUSTERS,
        "Delete commit-log files past their retention now.",
    ),
    Entry(
        "setCommitLogReadAheadMode",
        "broker.set_commit_log_read_ahead_mode",
        CLUSTERS,
        "Normal read-ahead or random reads of commit-log files (5.x).",
    ),
    Entry(
        "getColdDataFlowCtrInfo",
        "broker.cold_data_flow_ctr",
        CLUSTERS,
        "Cold-read flow control of one broker or a cluster's (5.x).",
    ),
    Entry(
        "updateColdDataFlowCtrGroupConfig",
        "broker.cold_data_flow_ctr",
        CLUSTERS,
        "Set a group's cold-read threshold (5.x).",
    ),
    Entry(
        "removeColdDataFlowCtrGroupConfig",
        "broker.cold_data_flow_ctr",
        CLUSTERS,
        "Remove a group's cold-read threshold (5.x).",
    ),
    Entry(
        "switchTimerEngine",
        "broker.switch_timer_engine",
        CLUSTERS,
        "RocksDB timeline or file time wheel for timer messages (5.5).",
    ),
    Entry(
        "resetMasterFlushOffset",
        "broker.reset_master_flush_offset",
        HA,
        "Set the master flush offset a slave replicates from.",
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
    Entry("createUser", "auth.create_user", AUTH, "Create an ACL 2.0 user on one broker or every broker of a cluster."),
    Entry("updateUser", "auth.update_user", AUTH, "Change a user's password, type or status."),
    Entry("deleteUser", "auth.delete_user", AUTH, "Delete a user (and its ACL)."),
    Entry("getUser", "auth.get_user", AUTH, "Show a user's type and status on each broker (never its password)."),
    Entry("listUser", "auth.list_user", AUTH, "List the users of a broker or of each master of a cluster."),
    Entry("copyUser", "auth.copy_user", AUTH, "Copy users from one broker to another."),
    Entry("createAcl", "auth.put_acl", AUTH, "Give a subject ACL entries (resources, actions, decision)."),
    Entry("updateAcl", "auth.put_acl", AUTH, "Add or replace a subject's ACL entries."),
    Entry("deleteAcl", "auth.delete_acl", AUTH, "Delete a subject's ACL, or its entry for one resource."),
    Entry("getAcl", "auth.get_acl", AUTH, "Show a subject's ACL entries on each broker."),
    Entry("listAcl", "auth.list_acl", AUTH, "List the ACLs of a broker or of each master of a cluster."),
    Entry("copyAcl", "auth.copy_acl", AUTH, "Copy ACLs from one broker to another."),
    Entry("profile", "profile", PROFILES, "Named connection profiles: create, use, list, show, delete, edit."),
    Entry("queryMsgById", "message.query_msg_by_id", MESSAGES, "Show messages by offset message id or unique key."),
    Entry("queryMsgByUniqueKey", "message.query_msg_by_unique_key", MESSAGES, "Show a message by its unique key."),
    Entry("queryMsgByKey", "message.query_msg_by_key", MESSAGES, "List the messages of a topic that carry a key."),
    Entry("queryMsgByOffset", "message.query_msg_by_offset", MESSAGES, "Show the message at a queue offset."),
    Entry("printMsg", "message.print_msg", MESSAGES, "Print the messages of every queue of a topic."),
    Entry(
        "printMsgByQueue",
        "message.print_msg_by_queue",
        MESSAGES,
        "Print the messages of one queue, or count them by tag.",
    ),
    Entry("queryCq", "message.query_cq", MESSAGES, "Show the consume-queue entries of one queue."),
    Entry("queryMsgTraceById", "message.query_msg_trace_by_id", MESSAGES, "Show a message's trace (sends, consumes)."),
    Entry("checkMsgSendRT", "message.check_msg_send_rt", MESSAGES, "Send test messages and show each send's time."),
    Entry("decodeMessageId", "message.decode_message_id", MESSAGES, "Decode message ids offline."),
    Entry(
        "resendDlqMessage",
        "message.resend_dlq_message",
        MESSAGES,
        "Send a group's dead-lettered messages back to their topic (mqadmin's own).",
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
        "startMonitoring",
        "consumer.start_monitoring",
        CONSUMERS,
        "Every group's unconsumed messages per topic, round after round (Java's monitor).",
    ),
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
    Entry("haStatus", "ha.ha_status", HA, "Replication status of a broker or every master: slaves, lag, in sync."),
    Entry("getBrokerEpoch", "ha.get_broker_epoch", HA, "Epoch entries of every replica of a broker name or cluster."),
    Entry("getSyncStateSet", "ha.get_sync_state_set", HA, "A broker name's master, epochs and in-sync replicas."),
    Entry("getControllerMetaData", "ha.get_controller_meta_data", HA, "The controller group, its leader and peers."),
    Entry("getControllerConfig", "ha.get_controller_config", HA, "Show the config of every controller of -a."),
    Entry("updateControllerConfig", "ha.update_controller_config", HA, "Change one config key on every controller."),
    Entry("electMaster", "ha.elect_master", HA, "Have the controller elect a given replica as master."),
    Entry("cleanBrokerMetadata", "ha.clean_broker_metadata", HA, "Make the controller forget replicas of a broker."),
    Entry(
        "checkRocksdbCqWriteProgress",
        "store.check_rocksdb_cq_write_progress",
        CLUSTERS,
        "Have masters check their RocksDB consume queues against the file ones.",
    ),
    Entry(
        "rocksDBConfigToJson",
        "store.rocks_db_config_to_json",
        CLUSTERS,
        "Have brokers write RocksDB-held metadata to their JSON config files.",
    ),
    Entry("exportPopRecord", "store.export_pop_record", CLUSTERS, "Have brokers move POP records to the file store."),
    Entry("dev", "dev", DEV, "Run an embedded RocketMQ-compatible name server and brokers (no Java)."),
    Entry("help", "help", HELP, "Show the help of a command: mqadmin help updateTopic."),
)

_BY_NAME = {e.name.lower(): e for e in COMMANDS}


def find(name: str) -> Entry | None:
    """The entry for a command name, in any case (``updatetopic`` as Java mqadmin accepts it)."""
    return _BY_NAME.get(name.lower())


def no_such_command(name: str) -> CliError:
    """The usage error for a command name that is not ours, with the nearest names (``updatTopic``:
    ``Did you mean 'updateTopic'?``)."""
    from mqadmin.cli.errors import usage_error
    from mqadmin.cli.suggest import did_you_mean, nearest

    close = nearest(name, [e.name for e in COMMANDS])
    return usage_error(f"No such command {name!r}.{did_you_mean(close)}", "see: mqadmin --help")
