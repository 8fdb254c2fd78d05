"""setCommitLogReadAheadMode: the read-ahead mode of the commit-log files of one broker or a cluster's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetResultDoc
from mqadmin.cli.params import BrokerAddrOpt, ClusterOpt, NamesrvOpt, exactly_one

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


class ReadAheadModeDoc(TypedDict):
    mode: Annotated[int, "0 normal, 1 random (no read-ahead)"]
    results: list[TargetResultDoc]
    outcome: Outcome


@command(
    "setCommitLogReadAheadMode",
    "mqadmin setCommitLogReadAheadMode -b 127.0.0.1:10911 -m 1   # random reads",
    "mqadmin setCommitLogReadAheadMode -c DefaultCluster -m 0    # normal read-ahead",
    document=ReadAheadModeDoc,
)
def set_commit_log_read_ahead_mode(
    mode: Annotated[
        str,
        Option("-m", "--commitLogReadAheadMode", metavar="0|1", help="0: normal read-ahead, 1: random reads."),
    ],
    namesrv: NamesrvOpt = None,
    broker_addr: BrokerAddrOpt = None,
    cluster: ClusterOpt = None,
) -> None:
    """Set how the commit-log files are read (SET_COMMITLOG_READ_MODE, 5.x): 0 with the kernel's read-ahead
    (the default), 1 for random reads (madvise MADV_RANDOM, for brokers whose consumers read far behind). On one
    broker (-b) or every broker, masters and slaves, of a cluster (-c). The broker also sets its
    dataReadAheadEnable (getBrokerConfig shows it); the mode is not kept over a restart.
    """
    from mqadmin.cli.errors import usage_error
    from mqadmin.cli.render import json_output, print_json
    from mqadmin.cli.runner import exit_for_results, print_results, results_json, run_admin

    exactly_one(broker_addr, cluster)
    if mode.strip() not in ("0", "1"):
        raise usage_error(f"-m takes 0 or 1, not {mode!r}", "0 is normal read-ahead, 1 random reads")

    async def go(admin: AdminClient) -> list[TargetResult]:
        from mqadmin.cli.commands.broker._shared import brokers

        return await admin.set_read_ahead_mode(await brokers(admin, broker_addr, cluster, slaves=True), int(mode))

    results = run_admin(namesrv, go)
    if json_output():
        print_json(results_json(results, mode=int(mode)))
    else:
        print_results(results)
    exit_for_results(results, "setCommitLogReadAheadMode")
