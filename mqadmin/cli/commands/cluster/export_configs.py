"""exportConfigs: a cluster's main broker configs and size, written to configs.json."""

from __future__ import annotations

from mqadmin.cli.command import command
from mqadmin.cli.commands.cluster._export import (
    DEFAULT_EXPORT_DIR,
    ExportClusterOpt,
    ExportDoc,
    FilePathOpt,
    run_cluster_export,
)
from mqadmin.cli.params import NamesrvOpt


@command("exportConfigs", "mqadmin exportConfigs -c DefaultCluster -f ./export", document=ExportDoc)
def export_configs(
    cluster: ExportClusterOpt,
    namesrv: NamesrvOpt = None,
    file_path: FilePathOpt = DEFAULT_EXPORT_DIR,
) -> None:
    """Write the main config keys of each master of a cluster, and the cluster's size, to DIR/configs.json.

    As Java mqadmin's exportConfigs: brokerConfigs (per broker name: brokerClusterName, brokerId, brokerName,
    brokerRole, fileReservedTime, filterServerNums, flushDiskType, maxMessageSize, messageDelayLevel,
    msgTraceTopicName, slaveReadEnable, traceOn, traceTopicEnable, useTLS, autoCreateTopicEnable,
    autoCreateSubscriptionGroup; those the broker has) and clusterScale (namesrvSize, masterBrokerSize,
    slaveBrokerSize). A master that cannot be read is reported and left out (exit 3).
    """
    run_cluster_export(
        namesrv, cluster, file_path, "configs.json", "exportConfigs", lambda admin: admin.configs_export(cluster)
    )
