"""Parity with Java mqadmin: every command Apache RocketMQ 5.5.0's ``MQAdminStartup`` registers (read
from the published rocketmq-tools-5.5.0 jar), and for each one that mqadmin does not offer, why.

``python -m mqadmin.cli.generate`` writes docs/parity.md from this list and the command registry;
``tests/cli/test_parity.py`` fails when a Java command is neither reachable in our CLI nor explained here.
"""

from __future__ import annotations

JAVA_COMMANDS: tuple[tuple[str, str], ...] = (
    ("copyAcl", "auth"),
    ("copyUser", "auth"),
    ("createAcl", "auth"),
    ("createUser", "auth"),
    ("deleteAcl", "auth"),
    ("deleteUser", "auth"),
    ("getAcl", "auth"),
    ("getUser", "auth"),
    ("listAcl", "auth"),
    ("listUser", "auth"),
    ("updateAcl", "auth"),
    ("updateUser", "auth"),
    ("brokerConsumeStats", "broker"),
    ("brokerStatus", "broker"),
    ("cleanExpiredCQ", "broker"),
    ("cleanUnusedTopic", "broker"),
    ("deleteExpiredCommitLog", "broker"),
    ("getBrokerConfig", "broker"),
    ("getBrokerEpoch", "broker"),
    ("getColdDataFlowCtrInfo", "broker"),
    ("removeColdDataFlowCtrGroupConfig", "broker"),
    ("resetMasterFlushOffset", "broker"),
    ("sendMsgStatus", "broker"),
    ("setCommitLogReadAheadMode", "broker"),
    ("switchTimerEngine", "broker"),
    ("updateBrokerConfig", "broker"),
    ("updateColdDataFlowCtrGroupConfig", "broker"),
    ("clusterList", "cluster"),
    ("clusterRT", "cluster"),
    ("consumerConnection", "connection"),
    ("producerConnection", "connection"),
    ("consumerProgress", "consumer"),
    ("consumerStatus", "consumer"),
    ("deleteSubGroup", "consumer"),
    ("getConsumerConfig", "consumer"),
    ("setConsumeMode", "consumer"),
    ("startMonitoring", "consumer"),
    ("updateSubGroup", "consumer"),
    ("updateSubGroupList", "consumer"),
    ("addBroker", "container"),
    ("removeBroker", "container"),
    ("cleanBrokerMetadata", "controller"),
    ("electMaster", "controller"),
    ("getControllerConfig", "controller"),
    ("getControllerMetaData", "controller"),
    ("updateControllerConfig", "controller"),
    ("exportConfigs", "export"),
    ("exportMetadata", "export"),
    ("exportMetadataInRocksDB", "export"),
    ("exportMetrics", "export"),
    ("exportPopRecord", "export"),
    ("getSyncStateSet", "ha"),
    ("haStatus", "ha"),
    ("getBrokerLiteInfo", "lite"),
    ("getLiteClientInfo", "lite"),
    ("getLiteGroupInfo", "lite"),
    ("getLiteTopicInfo", "lite"),
    ("getParentTopicInfo", "lite"),
    ("triggerLiteDispatch", "lite"),
    ("checkMsgSendRT", "message"),
    ("consumeMessage", "message"),
    ("dumpCompactionLog", "message"),
    ("printMsg", "message"),
    ("printMsgByQueue", "message"),
    ("queryMsgById", "message"),
    ("queryMsgByKey", "message"),
    ("queryMsgByOffset", "message"),
    ("queryMsgByUniqueKey", "message"),
    ("queryMsgTraceById", "message"),
    ("sendMessage", "message"),
    ("rocksDBConfigToJson", "metadata"),
    ("addWritePerm", "namesrv"),
    ("deleteKvConfig", "namesrv"),
    ("getNamesrvConfig", "namesrv"),
    ("updateKvConfig", "namesrv"),
    ("updateNamesrvConfig", "namesrv"),
    ("wipeWritePerm", "namesrv"),
    ("cloneGroupOffset", "offset"),
    ("resetOffsetByTime", "offset"),
    ("skipAccumulatedMessage", "offset"),
    ("producer", "producer"),
    ("checkRocksdbCqWriteProgress", "queue"),
    ("queryCq", "queue"),
    ("statsAll", "stats"),
    ("allocateMQ", "topic"),
    ("deleteTopic", "topic"),
    ("remappingStaticTopic", "topic"),
    ("topicClusterList", "topic"),
    ("topicList", "topic"),
    ("topicRoute", "topic"),
    ("topicStatus", "topic"),
    ("updateOrderConf", "topic"),
    ("updateStaticTopic", "topic"),
    ("updateTopic", "topic"),
    ("updateTopicList", "topic"),
    ("updateTopicPerm", "topic"),
)
"""(command name, the Java package under ``org.apache.rocketmq.tools.command`` it lives in)."""

NOT_APPLICABLE: dict[str, str] = {
    "addBroker": "BrokerContainer only: adds a broker to a running BrokerContainer process, not to a cluster",
    "removeBroker": "BrokerContainer only: removes a broker from a running BrokerContainer process",
    "dumpCompactionLog": "local files only: decodes a compaction log file on the broker host, sends no request",
    "exportMetadataInRocksDB": (
        "local files only: opens the broker's RocksDB config store on the broker host and sends no request "
        "(Java recommends rocksDBConfigToJson, which mqadmin offers: its -b/-c mode has the broker export)"
    ),
}
"""Java commands that make no sense for mqadmin, with the reason."""

PLANNED: dict[str, str] = {}
"""Java commands not built yet, with the issue that builds them (listed in docs/parity.md as missing)."""


def render_parity() -> str:
    """docs/parity.md: each Java command with what mqadmin offers for it."""
    from mqadmin.cli import registry

    rows = []
    for name, area in JAVA_COMMANDS:
        entry = registry.find(name)
        if entry is not None and entry.name == name:
            status = f"implemented: `mqadmin {name}`"
        elif name in NOT_APPLICABLE:
            status = f"not applicable: {NOT_APPLICABLE[name]}"
        else:
            status = f"missing: {PLANNED.get(name, 'no plan')}"
        rows.append(f"| `{name}` | {area} | {status} |")
    done = sum(1 for r in rows if "| implemented" in r)
    return (
        "# Parity with Java mqadmin 5.5.0\n\n"
        "Every command that Apache RocketMQ 5.5.0's `mqadmin` registers (`MQAdminStartup`, read from the\n"
        "published `rocketmq-tools-5.5.0.jar`), and what mqadmin offers for it. Generated by\n"
        "`python -m mqadmin.cli.generate` from `mqadmin/cli/parity.py` and the command registry;\n"
        "`tests/cli/test_parity.py` fails when a command is neither reachable nor explained.\n\n"
        f"{done} of {len(rows)} implemented.\n\n"
        "| command | Java package | mqadmin |\n|---|---|---|\n" + "\n".join(rows) + "\n"
    )
