"""switchTimerEngine: which engine stores timer messages on one broker or a cluster's masters (5.5)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetResultDoc
from mqadmin.cli.params import BrokerAddrOpt, ClusterOpt, NamesrvOpt, exactly_one

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult

ENGINES = {"R": "ROCKSDB_TIMELINE", "F": "FILE_TIME_WHEEL"}


class TimerEngineDoc(TypedDict):
    engine: Annotated[str, "R (RocksDB timeline) or F (file time wheel), as sent"]
    results: list[TargetResultDoc]
    outcome: Outcome


@command(
    "switchTimerEngine",
    "mqadmin switchTimerEngine -c DefaultCluster -e F   # the file time wheel",
    "mqadmin switchTimerEngine -b 127.0.0.1:10911 -e R  # the RocksDB timeline (timerRocksDBEnable at start)",
    document=TimerEngineDoc,
)
def switch_timer_engine(
    engine: Annotated[
        str,
        Option("-e", "--engineType", metavar="R|F", help="R: RocksDB timeline, F: file time wheel."),
    ],
    namesrv: NamesrvOpt = None,
    broker_addr: BrokerAddrOpt = None,
    cluster: ClusterOpt = None,
) -> None:
    """Switch the engine that stores timer (scheduled) messages (SWITCH_TIMER_ENGINE, 5.5) on one broker (-b)
    or every master of a cluster (-c): R the RocksDB timeline (the broker must have started with
    timerRocksDBEnable=true), F the file time wheel. The broker changes timerStopEnqueue and
    timerRocksDBStopScan in its config (getBrokerConfig shows them); one row per broker with its answer, a
    refusal (timerWheelEnable false, no RocksDB timeline) as its reason. Brokers before 5.5 refuse it
    (REQUEST_CODE_NOT_SUPPORTED); the embedded broker, without a timer store, answers timerWheelEnable false.
    """
    from mqadmin.cli.errors import usage_error
    from mqadmin.cli.render import json_output, print_json
    from mqadmin.cli.runner import exit_for_results, print_results, results_json, run_admin

    exactly_one(broker_addr, cluster)
    engine = engine.strip()
    if engine not in ENGINES:
        raise usage_error(f"-e takes R or F, not {engine!r}", "R is the RocksDB timeline, F the file time wheel")

    async def go(admin: AdminClient) -> list[TargetResult]:
        from mqadmin.cli.commands.broker._shared import brokers

        targets = await brokers(admin, broker_addr, cluster, slaves=False)
        return await admin.switch_timer_engine(targets, engine)

    results = run_admin(namesrv, go)
    if json_output():
        print_json(results_json(results, engine=ENGINES[engine]))
    else:
        print_results(results)
    exit_for_results(results, f"switchTimerEngine {ENGINES[engine]}")
