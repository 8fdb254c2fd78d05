"""exportMetrics: a cluster's TPS, day counts, sizes and client versions, written to metrics.json."""

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


@command("exportMetrics", "mqadmin exportMetrics -c DefaultCluster -f ./export", document=ExportDoc)
def export_metrics(
    cluster: ExportClusterOpt,
    namesrv: NamesrvOpt = None,
    file_path: FilePathOpt = DEFAULT_EXPORT_DIR,
) -> None:
    """Write each master's runtime figures, and the cluster's totals, to DIR/metrics.json.

    As Java mqadmin's exportMetrics: per broker name, evaluateReport has runtimeEnv (cpuNum, totalMemKBytes),
    runtimeQuota (disk ratios, in/out TPS of normal, transactional and scheduled messages, yesterday's
    counts, average message size, user topic and group counts) and runtimeVersion (the broker's version and
    the LANGUAGE%VERSION of the consumers connected to it); totalData sums the TPS and counts. A master that
    cannot be read is reported and left out (exit 3).
    """
    run_cluster_export(
        namesrv, cluster, file_path, "metrics.json", "exportMetrics", lambda admin: admin.metrics_export(cluster)
    )
