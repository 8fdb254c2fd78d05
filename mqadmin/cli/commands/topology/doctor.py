"""doctor: a live cluster checked for the known pitfalls (the fleet audit's rules and the brokers' own)."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.params import ClusterOpt, NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.topology.doctor import Report


class DoctorFormat(StrEnum):
    table = "table"
    json = "json"
    nagios = "nagios"


NAGIOS_EXIT = {None: 0, "low": 0, "medium": 1, "high": 2}
NAGIOS_UNKNOWN = 3
NAGIOS_STATE = {0: "OK", 1: "WARNING", 2: "CRITICAL", 3: "UNKNOWN"}


class FindingDoc(TypedDict):
    rule: str
    severity: Literal["high", "medium", "low"]
    cluster: str
    broker: str | None
    topic: str | None
    group: str | None
    message: str
    evidence: Annotated[dict[str, Any], "what the rule saw (JSON, as the rule has it)"]
    fix: Annotated[str, "the command that fixes it, or the step to take"]


class DoctorDoc(TypedDict):
    clusters: list[str]
    findings: list[FindingDoc]
    counts: Annotated[dict[str, int], "severity -> findings"]
    worst: Annotated[Literal["high", "medium", "low"] | None, "the worst severity found (null: none)"]
    unread: Annotated[list[str], "what could not be read: its rules were not checked"]


@command(
    "doctor",
    "mqadmin doctor",
    "mqadmin doctor -c DefaultCluster --format json",
    "mqadmin doctor --format nagios        # one status line, Nagios exit codes (0 OK, 1, 2, 3)",
    document=DoctorDoc,
)
def doctor(
    namesrv: NamesrvOpt = None,
    cluster: ClusterOpt = None,
    lag_threshold: Annotated[
        int, Option("--lag-threshold", min=0, metavar="N", help="A group's lag above N is a finding.")
    ] = 100_000,
    slave_behind: Annotated[
        int,
        Option("--slave-behind", min=0, metavar="BYTES", help="A slave this far behind its master is a finding."),
    ] = 256 * 1024 * 1024,
    format_: Annotated[
        DoctorFormat | None,
        Option("--format", help="Output format: table, json, or nagios (one line, Nagios exit codes)."),
    ] = None,
) -> None:
    """Check a live cluster (-c; every cluster by default) for the known pitfalls; each finding with its severity,
    its evidence and the command that fixes it.

    The fleet audit's rules (mqadmin audit: topics on a subset of masters, queue counts, orderTopicConf, orphan
    retry and dead-letter topics, lag, skew) run on what is read from the cluster, with the same code, plus the
    rules only a live cluster shows: autoCreateTopicEnable on, TBW102 missing or left over, a master's write
    permission wiped, version skew, slaves far behind. Exit code by the worst finding: 0 none or only low, 8
    medium, 9 high (with --format nagios: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN when the cluster could not be
    read). What could not be read is named on stderr (its rules were not checked).
    """
    from mqadmin.audit.job import Params as AuditParams
    from mqadmin.cli.errors import CliError, Exit, ExitCode, usage_error
    from mqadmin.cli.runner import run_admin
    from mqadmin.topology.doctor import CollectFailed, Params, UnknownCluster, diagnose

    params = Params(AuditParams(lag_threshold=lag_threshold), slave_behind)
    nagios = format_ == DoctorFormat.nagios

    async def go(admin: AdminClient) -> Report:
        try:
            return await diagnose(admin, cluster, params)
        except UnknownCluster as e:
            raise usage_error(f"no cluster {e.cluster!r}", f"known clusters: {', '.join(e.known) or 'none'}") from None
        except CollectFailed as e:
            raise CliError(f"the cluster could not be read: {e}") from None

    try:
        report = run_admin(namesrv, go)
    except CliError as e:
        if not nagios:
            raise
        print(f"DOCTOR UNKNOWN - {e.message}")
        raise Exit(NAGIOS_UNKNOWN) from None
    if nagios:
        code = NAGIOS_EXIT[report.worst]
        print(_nagios_line(report, code))
        raise Exit(code)
    _print(report)
    if report.worst == "high":
        raise Exit(ExitCode.DOCTOR_CRITICAL)
    if report.worst == "medium":
        raise Exit(ExitCode.DOCTOR_WARNING)


def _print(report: Report) -> None:
    from mqadmin.cli.render import Column, json_output, note, print_json, print_table, warn

    for what in report.unread:
        warn(f"not checked: {what}")
    if json_output():
        print_json(
            {
                "clusters": report.clusters,
                "findings": [f.to_json() for f in report.findings],
                "counts": report.counts(),
                "worst": report.worst,
                "unread": report.unread,
            }
        )
        return
    if not report.findings:
        note(f"no findings on {', '.join(report.clusters) or 'the cluster'}")
        return
    rows = [
        [f.severity, f.rule, f.cluster, f.broker or "", f.topic or f.group or "", f.message, f.fix]
        for f in report.findings
    ]
    columns = [Column(c) for c in ("SEVERITY", "RULE", "CLUSTER", "BROKER", "TOPIC/GROUP", "FINDING", "FIX")]
    print_table(columns, rows)


def _nagios_line(report: Report, code: int) -> str:
    """``DOCTOR CRITICAL - 2 findings: RULE topic; ... | high=1;;; medium=1;;; low=0;;;`` (plugin output format)."""
    counts = report.counts()
    shown = [f for f in report.findings if f.severity != "low"] or report.findings
    summary = "; ".join(f"{f.rule} {f.topic or f.group or f.broker or f.cluster}" for f in shown[:5])
    if len(shown) > 5:
        summary += f"; and {len(shown) - 5} more"
    text = f"{len(report.findings)} finding(s): {summary}" if report.findings else "no findings"
    if report.unread:
        text += f" (not checked: {len(report.unread)})"
    perf = " ".join(f"{k}={v};;;0" for k, v in counts.items())
    return f"DOCTOR {NAGIOS_STATE[code]} - {text} | {perf}"
