"""Fleet commands: exportMetadata (collect), audit (PySpark or plain Python), generateFleet (synthetic).

Heavy imports (asyncio clients, rich progress, pyspark) happen inside the commands.
"""

from __future__ import annotations

import sys
import time
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, NotRequired, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.commands.cluster._export import SingleMetadataExportDoc
from mqadmin.cli.declare import Argument, Option
from mqadmin.cli.errors import CliError, ExitCode, usage_error

if TYPE_CHECKING:
    from mqadmin.fleet.fleetfile import Source


OutOpt = Annotated[Path, Option("--out", metavar="DIR", help="Output directory (created if missing).")]
_JAVA_FORM = "Java's single-cluster export (see below)."


# --- exportMetadata --------------------------------------------------------------------------------


class SourceExportDoc(TypedDict):
    source: Annotated[str, "the name-server set (its name in --fleet, or -n)"]
    status: Literal["ok", "partial", "failed"]
    clusters: int
    masters: int
    failedMasters: Annotated[int, "masters that could not be collected"]
    topicRows: int
    reasons: Annotated[list[str], "what could not be collected, and why"]


class MetadataExportDoc(TypedDict):
    """exportMetadata --out: the fleet export."""

    out: Annotated[str, "the export directory"]
    schemaVersion: Annotated[int, "the export's schema version (docs/fleet-schema.md; 3: camelCase columns)"]
    status: Literal["ok", "partial", "failed"]
    sources: list[SourceExportDoc]
    tables: Annotated[dict[str, dict[str, Any]], "table -> what manifest.json says of it (docs/fleet-schema.md)"]


@command(
    "exportMetadata",
    "mqadmin exportMetadata -n 127.0.0.1:9876 --out export/",
    "mqadmin exportMetadata --fleet fleet.toml --out export/",
    "mqadmin exportMetadata -c DefaultCluster -f ./export        # Java's form: ./export/metadata.json",
    "mqadmin exportMetadata -b 127.0.0.1:10911 -t -f ./export    # one broker's topics: ./export/topic.json",
    document=MetadataExportDoc | SingleMetadataExportDoc,
)
def export_metadata(
    out: Annotated[
        Path | None, Option("--out", metavar="DIR", help="Fleet export: output directory (created if missing).")
    ] = None,
    namesrv: Annotated[
        list[str] | None,
        Option(
            "-n",
            "--namesrvAddr",
            metavar="HOST:PORT[;HOST:PORT]",
            help="Name servers of one cluster (quote a list); repeat -n for more clusters. Default: $NAMESRV_ADDR.",
        ),
    ] = None,
    fleet: Annotated[
        Path | None,
        Option("--fleet", metavar="FILE", help='TOML fleet file: [clusters.<name>] namesrv = ["host:port"].'),
    ] = None,
    concurrency: Annotated[
        int, Option("--concurrency", min=1, max=1024, help="Requests in flight at once, fleet-wide.")
    ] = 16,
    cluster: Annotated[str | None, Option("-c", "--clusterName", metavar="CLUSTER", help=_JAVA_FORM)] = None,
    broker_addr: Annotated[str | None, Option("-b", "--brokerAddr", metavar="HOST:PORT", help=_JAVA_FORM)] = None,
    file_path: Annotated[
        str | None, Option("-f", "--filePath", metavar="DIR", help=f"{_JAVA_FORM} [/tmp/rocketmq/export]")
    ] = None,
    topics_only: Annotated[bool, Option("-t", "--topic", help=f"{_JAVA_FORM} Topics only.")] = False,
    groups_only: Annotated[bool, Option("-g", "--subscriptionGroup", help=f"{_JAVA_FORM} Groups only.")] = False,
    special_topic: Annotated[
        bool, Option("-s", "--specialTopic", help=f"{_JAVA_FORM} Include %RETRY% and %DLQ% topics.")
    ] = False,
) -> None:
    """Collect topic configs, groups, lag and order configs of every cluster into gzip JSON Lines.

    One row per cluster x broker x topic (docs/fleet-schema.md). A cluster or broker that fails is
    recorded in manifest.json and the export goes on; exit code 3 when part of the fleet failed, 1 when
    all of it did. Ctrl-C stops sending: the requests in flight finish, what was collected is written with
    manifest.json naming what was not, and it exits 130.

    With Java mqadmin's options (-c or -b, -f, -t, -g, -s) it is Java's single-cluster export instead: the
    user topics and subscription groups of a cluster's masters (merged, queue counts summed) or of one broker,
    written to DIR/metadata.json, topic.json (-t) or subscriptionGroup.json (-g).
    """
    import asyncio

    from mqadmin.cli.settings import request_timeout

    if cluster or broker_addr or file_path is not None or topics_only or groups_only or special_topic:
        from mqadmin.cli.commands.cluster._metadata_export import export_cluster_metadata

        java = (cluster, broker_addr, file_path, topics_only, groups_only, special_topic)
        export_cluster_metadata(namesrv, fleet, out, *java)
        return
    if out is None:
        raise usage_error("--out DIR is required", "or use Java's single-cluster form: -c CLUSTER [-f DIR]")
    sources = _sources(namesrv, fleet)
    _check_out_dir(out)
    from mqadmin.cli.interrupt import stop_on_ctrl_c

    with stop_on_ctrl_c("exportMetadata") as interruption:
        manifest = asyncio.run(_export(sources, out, concurrency, request_timeout()))
    _print_export(manifest, out)
    if interruption.requested:
        _interrupted(manifest, out)
    status = manifest["status"]
    if status == "failed":
        raise CliError(
            "no cluster could be collected", "see the REASON column above and manifest.json", ExitCode.FAILURE
        )
    if status == "partial":
        raise CliError(
            "part of the fleet could not be collected (recorded in manifest.json)",
            "the rest was exported; the audit skips what is missing",
            ExitCode.PARTIAL,
        )


def _interrupted(manifest: dict[str, Any], out: Path) -> None:
    from mqadmin.cli.interrupt import interrupted

    masters = [b for s in manifest["sources"] for c in s["clusters"] for b in c["brokers"] if b["role"] == "master"]
    whole = sum(1 for b in masters if b["status"] == "ok" and not b["errors"])
    raise interrupted(
        f"exportMetadata interrupted (Ctrl-C): {whole} of {len(masters)} master(s) collected whole; {out} holds "
        "what was collected and manifest.json names what was not",
        "run it again with a new --out for a whole export (the audit skips what is missing from this one)",
    )


def _sources(namesrv: list[str] | None, fleet: Path | None) -> list[Source]:
    from mqadmin.admin.errors import BadNameServerAddress, NoNameServer
    from mqadmin.cli import settings
    from mqadmin.cli.runner import namesrv_addrs
    from mqadmin.fleet.fleetfile import FleetFileError, Source, load_fleet_file, source_from_option

    sources: list[Source] = []
    try:
        if fleet is not None:
            sources += load_fleet_file(fleet)
        for value in namesrv or []:
            sources.append(source_from_option(value))
        if not sources:
            if settings.namesrv(None).value is None:
                raise NoNameServer()
            addrs = namesrv_addrs(None)  # NAMESRV_ADDR or the profile's name servers (or address server)
            sources.append(Source(";".join(addrs), tuple(addrs)))
    except FleetFileError as e:
        raise usage_error(str(e), "see docs/audit.md for the fleet file format") from None
    except NoNameServer:
        raise usage_error(
            "no cluster to export", "pass -n host:9876 (repeatable), --fleet FILE, or set NAMESRV_ADDR"
        ) from None
    except BadNameServerAddress as e:
        raise usage_error(str(e), "-n takes 'host:port' or 'host:port;host:port' (quote it in the shell)") from None
    seen: set[str] = set()
    for s in sources:
        if s.name in seen:
            raise usage_error(f"cluster {s.name!r} is given twice", "name each cluster once (-n or fleet file)")
        seen.add(s.name)
    return sources


def _check_out_dir(out: Path) -> None:
    """Refuse to scatter files into a non-empty directory that does not hold an export already."""
    from mqadmin.fleet.manifest import MANIFEST
    from mqadmin.fleet.schema import TABLES

    if out.exists() and not out.is_dir():
        raise usage_error(f"--out {out} is a file", "pass a directory (it is created if missing)")
    if out.is_dir():
        ours = {MANIFEST} | {f"{t}.jsonl.gz" for t in TABLES}
        names = {p.name for p in out.iterdir()}
        if names and not names & ours:
            raise usage_error(f"--out {out} is not empty and holds no export", "pass a new or empty directory")


async def _export(sources: list[Source], out: Path, concurrency: int, timeout: float) -> dict[str, Any]:
    from mqadmin import __version__
    from mqadmin.cli import runner
    from mqadmin.fleet.collect import Collector, export_status
    from mqadmin.fleet.manifest import new_manifest
    from mqadmin.fleet.writer import ExportWriter

    writer = ExportWriter(out)
    transport = runner.connection_transport([a for s in sources for a in s.namesrv])  # signed, TLS, address map
    manifest = new_manifest({"tool": "mqadmin exportMetadata", "version": __version__})
    try:
        with _progress() as progress:
            collector = Collector(writer, transport, concurrency=concurrency, timeout=timeout, progress=progress)
            manifest["sources"] = await collector.collect(sources)
    except BaseException:
        writer.abort()
        raise
    finally:
        await transport.aclose()
    manifest["status"] = export_status(manifest["sources"])
    return writer.finish(manifest)


class _progress:
    """A request-count progress bar on stderr, shown only on a terminal."""

    def __enter__(self) -> _progress:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._bar = Progress(
            TextColumn("collecting"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("requests"),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
            disable=not sys.stderr.isatty(),
        )
        self._task = self._bar.add_task("collect", total=0)
        self._bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._bar.stop()

    def planned(self, n: int) -> None:
        self._bar.update(self._task, total=(self._bar.tasks[0].total or 0) + n)

    def finished(self) -> None:
        self._bar.advance(self._task)


def _print_export(manifest: dict[str, Any], out: Path) -> None:
    from mqadmin.cli.render import Column, json_output, note, print_json, print_table

    rows = []
    for s in manifest["sources"]:
        brokers = [b for c in s["clusters"] for b in c["brokers"] if b["role"] == "master"]
        failed = [b for b in brokers if b["status"] == "failed"]
        reasons = [s["reason"]] if s["reason"] else []
        reasons += [f"{b['broker_name']}: {b['reason']}" for b in failed]
        reasons += [f"{b['broker_name']}: {e}" for b in brokers for e in b["errors"]]
        if not s["order_conf_ok"] and s["status"] != "failed":
            reasons.append(f"order configs: {s.get('order_conf_error', 'not read')}")
        rows.append(
            {
                "source": s["source"],
                "status": s["status"],
                "clusters": len(s["clusters"]),
                "masters": len(brokers),
                "failedMasters": len(failed),
                "topicRows": sum(b["rows"].get("topics", 0) for b in brokers),
                "reasons": reasons,
            }
        )
    if json_output():
        from mqadmin.audit.job import camel_keys

        print_json(
            camel_keys(
                {
                    "out": str(out),
                    "schema_version": manifest["schema_version"],
                    "status": manifest["status"],
                    "sources": rows,
                    "tables": manifest["tables"],
                }
            )
        )
        return
    cols = [Column("SOURCE"), Column("STATUS", styled=True), Column("CLUSTERS", numeric=True),
            Column("MASTERS", numeric=True), Column("FAILED", numeric=True), Column("TOPIC ROWS", numeric=True),
            Column("REASON")]  # fmt: skip
    print_table(
        cols,
        [[r["source"], r["status"], r["clusters"], r["masters"], r["failedMasters"], r["topicRows"],
          "; ".join(r["reasons"])] for r in rows],
    )  # fmt: skip
    tables = ", ".join(f"{name} {info['rows']}" for name, info in manifest["tables"].items())
    note(f"exported to {out} ({tables} rows)")


# --- audit -----------------------------------------------------------------------------------------


class Engine(StrEnum):
    auto = "auto"
    spark = "spark"
    python = "python"


class AuditParamsDoc(TypedDict):
    lagThreshold: int
    skewFactor: float
    skewMin: int


class AuditInputDoc(TypedDict):
    createdAt: Annotated[str | None, "when the export was made (its manifest)"]
    status: Annotated[str | None, "the export's status: ok, partial or failed"]
    sources: int


class FailedSourceDoc(TypedDict):
    source: str
    reason: str | None


class FailedBrokerDoc(TypedDict):
    source: str
    cluster: str
    broker: str
    reason: str | None


class CoverageDoc(TypedDict):
    exports: list[AuditInputDoc]
    rows: Annotated[dict[str, int], "table -> rows read"]
    failedSources: Annotated[list[FailedSourceDoc], "sources not collected: nothing about them is reported"]
    failedBrokers: Annotated[list[FailedBrokerDoc], "masters not collected: a topic missing there is not reported"]
    sourcesWithoutOrderConf: Annotated[list[str], "sources whose order configs were not read: order rules skipped"]


class RuleCountDoc(TypedDict):
    rule: str
    severity: Literal["high", "medium", "low"]
    count: int
    description: str


class AuditOutputsDoc(TypedDict):
    findingsJsonl: str
    findingsParquet: Annotated[str | None, "null when neither pyarrow nor Spark could write it"]
    plan: str
    summary: str
    resolvedJsonl: NotRequired[
        Annotated[str, "with --baseline: the baseline's findings not found since (resolved or unverified)"]
    ]
    report: str


class ChangeCountDoc(TypedDict):
    new: int
    unchanged: int
    resolved: int
    unverified: Annotated[int, "the baseline's findings not found where this audit could not look"]


class AuditBaselineDoc(TypedDict):
    path: str
    generatedAt: str | None
    new: int
    unchanged: int
    resolved: int
    unverified: Annotated[
        int, "the baseline's findings not found this time where a source, broker or order config was not read"
    ]
    byRule: Annotated[dict[str, ChangeCountDoc], "rule -> its findings new, unchanged, resolved and unverified"]


class BrokerCountDoc(TypedDict):
    source: str
    cluster: str
    broker: str
    topics: int
    writeQueues: int
    writable: bool


class EngineChoiceDoc(TypedDict):
    requested: str
    engine: Literal["python", "spark"]
    reason: str
    topicRows: int | None
    threshold: int | None


class FindingDoc(TypedDict):
    source: str
    cluster: str
    topic: str | None
    broker: str | None
    group: str | None
    rule: str
    severity: Literal["high", "medium", "low"]
    message: str
    evidence: Annotated[dict[str, Any], "what the finding rests on, per rule (docs/audit.md)"]
    id: Annotated[str, "stable id: the same defect has the same id in every audit"]
    change: Annotated[str | None, "with --baseline: new or unchanged"]


class AuditDoc(TypedDict):
    """audit: the summary (also written to summary.json) with the first --top findings."""

    generatedAt: str
    engine: Literal["python", "spark"]
    master: Annotated[str | None, "the Spark master (spark engine)"]
    inputs: list[str]
    params: AuditParamsDoc
    coverage: CoverageDoc
    findings: int
    byRule: list[RuleCountDoc]
    fixes: Annotated[int, "updateTopic commands in plan.toml"]
    outputs: AuditOutputsDoc
    baseline: Annotated[AuditBaselineDoc | None, "with --baseline"]
    brokers: Annotated[list[BrokerCountDoc], "per master, for the clusters with a placement or skew finding"]
    elapsedS: Annotated[float, "seconds from reading the inputs to writing the outputs"]
    engineChoice: EngineChoiceDoc
    top: Annotated[list[FindingDoc], "the first --top findings, as in findings.jsonl"]


@command(
    "audit",
    "mqadmin audit export/ --out audit/",
    "mqadmin audit export/ --out audit/ --engine python",
    document=AuditDoc,
)
def audit(
    inputs: Annotated[list[str], Argument(metavar="DIR...", help="Export directories (exportMetadata --out).")],
    out: OutOpt,
    master: Annotated[
        str, Option("--master", help="Spark master URL: local[*], local[4], spark://host:7077, yarn, ...")
    ] = "local[*]",
    lag_threshold: Annotated[
        int, Option("--lag-threshold", min=0, help="Report groups whose summed lag exceeds this.")
    ] = 100_000,
    skew_factor: Annotated[
        float,
        Option("--skew-factor", min=1.0, help="Report brokers more than X times above or below the median."),
    ] = 2.0,
    skew_min: Annotated[
        int, Option("--skew-min", min=0, help="...and at least this many topics/queues away from it.")
    ] = 10,
    engine: Annotated[
        Engine,
        Option(
            "--engine", help="auto (python on small exports, Spark on large ones), spark, or python (no Spark needed)."
        ),
    ] = Engine.auto,
    top: Annotated[int, Option("--top", min=0, help="Findings to show on the terminal.")] = 20,
    driver_memory: Annotated[
        str | None,
        Option("--driver-memory", metavar="SIZE", help="Spark driver heap, e.g. 4g (in local mode: the whole job's)."),
    ] = None,
    baseline: Annotated[
        str | None,
        Option(
            "--baseline",
            metavar="DIR",
            help="A previous audit's --out: mark each finding new, unchanged, resolved or unverified since then.",
        ),
    ] = None,
) -> None:
    """Audit fleet exports for misplaced topics (the auto-create trap) and other defects, on Spark or in-process.

    Writes findings.parquet/, findings.jsonl, plan.toml (an updateTopic command per placement finding),
    summary.json and report.html (the whole audit as one self-contained page, with charts) to --out; prints
    the summary. For a Spark cluster, run the same job with
    spark-submit (docs/audit.md).
    """
    from mqadmin.audit.job import AuditInputError, BaselineError, Params
    from mqadmin.audit.runner import EngineUnavailable, choose_engine, run_audit
    from mqadmin.cli.render import note

    params = Params(lag_threshold, skew_factor, skew_min)
    choice = choose_engine(inputs, engine.value, master)
    if choice.requested == "auto":
        note(f"engine: {choice.engine} ({choice.reason})")
    try:
        summary = _with_status(
            lambda show: run_audit(
                inputs, str(out), params, choice.engine, master, driver_memory, choice, baseline, show
            ),
            choice.engine,
        )
    except BaselineError as e:
        raise usage_error(str(e), "--baseline takes the --out directory of an earlier mqadmin audit") from None
    except AuditInputError as e:
        raise usage_error(str(e), "pass directories written by mqadmin exportMetadata or generateFleet") from None
    except EngineUnavailable as e:
        raise CliError(
            f"cannot run the audit on Spark: {e}",
            "install the extra: pip install 'mqadmin[spark]', or run with --engine python",
            ExitCode.FAILURE,
        ) from None
    except Exception as e:
        if type(e).__name__ not in ("Py4JJavaError", "AnalysisException", "IllegalArgumentException"):
            raise
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise CliError(f"the Spark job failed: {first}", "run again with --debug for the whole error") from e
    _print_audit(summary, top)


def _with_status(fn: Any, engine: str) -> Any:
    """Run ``fn(show)`` under a spinner on stderr that ``show(text)`` updates with what the audit is doing
    (terminal only: piped, ``show`` is None and nothing is drawn); a Spark start alone takes seconds."""
    if not sys.stderr.isatty():
        return fn(None)
    from rich.console import Console
    from rich.live import Live
    from rich.spinner import Spinner

    def spinner(text: str) -> Spinner:
        return Spinner("dots", f"auditing ({engine}){text}", style="status.spinner")

    # Each phase is drawn when it starts (refresh=True), not only at the next tick: a fast phase is seen too.
    with Live(spinner("..."), console=Console(stderr=True), refresh_per_second=12.5, transient=True) as live:
        return fn(lambda text: live.update(spinner(f": {text}"), refresh=True))


def _print_audit(summary: dict[str, Any], top: int) -> None:
    import json

    from mqadmin.cli.render import Column, json_output, note, print_json, print_table

    shown: list[dict[str, Any]] = []
    if top:
        with open(summary["outputs"]["findings_jsonl"], encoding="utf-8") as f:
            for line in f:
                shown.append(json.loads(line))
                if len(shown) >= top:
                    break
    if json_output():
        from mqadmin.audit.job import camel_keys

        print_json(camel_keys({**summary, "top": shown}))
        return
    cov, base = summary["coverage"], summary.get("baseline")
    columns = [Column("RULE"), Column("SEVERITY"), Column("COUNT", numeric=True)]
    rows = [[r["rule"], r["severity"], r["count"]] for r in summary["by_rule"]]
    if base:  # since the baseline audit
        columns += [Column("NEW", numeric=True), Column("RESOLVED", numeric=True)]
        for row in rows:
            change = base["by_rule"].get(row[0], {})
            row += [change.get("new", 0), change.get("resolved", 0)]
    title = f"{summary['findings']} findings in {cov['rows'].get('topics', 0)} topic rows"
    if base:
        title += f"; since {base['generated_at'] or base['path']}: {base['new']} new, {base['resolved']} resolved"
        title += f", {base['unverified']} unverified" if base.get("unverified") else ""
    print_table(
        [*columns, Column("WHAT")],
        [[*row, r["description"]] for row, r in zip(rows, summary["by_rule"], strict=True)],
        title=title,
    )
    if shown:
        sys.stdout.write("\n")
        print_table(
            [Column("SEVERITY"), Column("RULE"), Column("SOURCE"), Column("CLUSTER"), Column("SUBJECT"),
             Column("MESSAGE")],
            [[f["severity"], f["rule"], f["source"], f["cluster"], f["topic"] or f["broker"] or f["group"],
              f["message"]] for f in shown],
            title=f"first {len(shown)} of {summary['findings']}",
        )  # fmt: skip
    for s in cov["failed_sources"]:
        note(f"warning: source {s['source']} was not collected ({s['reason']}); nothing about it is reported")
    for b in cov["failed_brokers"]:
        note(f"warning: broker {b['broker']} of {b['source']}/{b['cluster']} was not collected ({b['reason']})")
    for s in cov["sources_without_order_conf"]:
        note(f"warning: order configs of {s} were not collected; order rules skipped there")
    outputs = summary["outputs"]
    note(f"findings: {outputs['findings_jsonl']} and {outputs['findings_parquet']}")
    note(f"plan: {outputs['plan']} ({summary['fixes']} updateTopic commands)")
    if outputs.get("resolved_jsonl"):
        note(f"resolved since the baseline: {outputs['resolved_jsonl']}")
    if base and base.get("unverified"):
        note(
            f"warning: {base['unverified']} findings of the baseline are unverified: not found where this audit could "
            "not read a source, a broker or order configs (not counted as resolved)"
        )
    note(f"report: {outputs['report']}")


# --- generateFleet ---------------------------------------------------------------------------------


class FleetDoc(TypedDict):
    out: Annotated[str, "the export directory written"]
    schemaVersion: Annotated[int, "the export's schema version (docs/fleet-schema.md)"]
    seed: int
    clusters: int
    rows: Annotated[dict[str, int], "table -> rows written"]
    seconds: Annotated[float, "how long it took"]


@command("generateFleet", "mqadmin generateFleet --rows 100000 --out fleet/", document=FleetDoc)
def generate_fleet(
    out: OutOpt,
    rows: Annotated[
        int | None,
        Option("--rows", min=1, help="About this many topic rows (clusters of 4 brokers x 2000 topics)."),
    ] = None,
    seed: Annotated[int, Option("--seed", help="Random seed; same seed, same fleet.")] = 7,
    sources: Annotated[int, Option("--sources", min=1, help="Name-server sets (without --rows).")] = 2,
    clusters_per_source: Annotated[int, Option("--clusters-per-source", min=1)] = 2,
    brokers: Annotated[int | None, Option("--brokers", min=1, help="Masters per cluster.")] = None,
    topics: Annotated[int | None, Option("--topics", min=0, help="Regular topics per cluster.")] = None,
    defects: Annotated[bool, Option("--defects/--no-defects", help="Plant every kind of defect.")] = True,
    failed_broker: Annotated[
        bool, Option("--failed-broker/--no-failed-broker", help="Record one master as not collected.")
    ] = True,
    workers: Annotated[int | None, Option("--workers", min=1, help="Processes writing in parallel.")] = None,
) -> None:
    """Write a synthetic fleet export with planted defects and their ground_truth.jsonl (tests, benchmarks)."""
    from mqadmin.audit.job import camel
    from mqadmin.cli.render import json_output, note, print_json
    from mqadmin.fleet.synth import FleetSpec, default_workers, generate, spec_for_rows

    if rows is not None:
        spec = spec_for_rows(rows, seed, brokers or 4, topics or 2000, defects=defects, failed_broker=failed_broker)
    else:
        spec = FleetSpec(seed, sources, clusters_per_source, brokers or 3, topics if topics is not None else 60,
                         defects=defects, failed_broker=failed_broker)  # fmt: skip
    try:
        spec.check()
    except ValueError as e:
        raise usage_error(str(e), "use more brokers/topics, or --no-defects") from None
    started = time.monotonic()
    manifest = generate(out, spec, workers or default_workers())
    elapsed = time.monotonic() - started
    doc: dict[str, Any] = {
        "out": str(out),
        "schemaVersion": manifest["schema_version"],
        "seed": spec.seed,
        "clusters": spec.clusters,
        "rows": {camel(t): info["rows"] for t, info in manifest["tables"].items()},
        "seconds": round(elapsed, 3),
    }
    if json_output():
        print_json(doc)
    else:
        topic_rows = doc["rows"]["topics"]
        sys.stdout.write(f"{out}: {spec.clusters} clusters, {topic_rows} topic rows in {elapsed:.1f}s\n")
        note(f"planted defects listed in {out / 'ground_truth.jsonl'}")
