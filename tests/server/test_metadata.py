"""Metadata files (topics.json and its journal, subscriptionGroup.json, consumerOffset.json,
kvConfig.json): a backup from the first snapshot on; a file that cannot be used falls back to its
backup with a warning; with neither usable the server does not start and says which file and why
(unless told to start empty); a bad journal record is reported with its position and the valid
ones after it are kept; a failed write leaves no trace in memory."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from mqadmin.files import atomic_write
from mqadmin.model.topic import TopicConfig
from mqadmin.server.broker.broker import Broker
from mqadmin.server.broker.config import BrokerConfig
from mqadmin.server.namesrv.config import NamesrvConfig
from mqadmin.server.namesrv.server import NameServer
from mqadmin.server.persist import MetadataError
from tests.conftest import wait_until
from tests.devprocs import Proc

GOOD_TOPIC = TopicConfig("Orders", 4, 4).to_json()

# (file under config/, content that a broker reads back, what it must hold afterwards)
BROKER_FILES: dict[str, tuple[dict, Callable[[Broker], bool]]] = {
    "topics.json": (
        {"dataVersion": {"counter": 3, "stateVersion": 0, "timestamp": 1}, "topicConfigTable": {"Orders": GOOD_TOPIC}},
        lambda b: b.topics.get("Orders") is not None,
    ),
    "subscriptionGroup.json": (
        {"subscriptionGroupTable": {"CG_KEEP": {"groupName": "CG_KEEP", "retryMaxTimes": 3}}},
        lambda b: (b.groups.get("CG_KEEP") or {}).get("retryMaxTimes") == 3,
    ),
    "consumerOffset.json": (
        {"offsetTable": {"Orders@CG_KEEP": {"0": 42}}},
        lambda b: b.store.offsets.query("CG_KEEP", "Orders", 0) == 42,
    ),
}

DAMAGE: dict[str, tuple[Callable[[bytes], bytes], str]] = {
    "truncated": (lambda good: good[: len(good) // 2], "is not JSON"),
    "empty": (lambda good: b"", "is empty"),
    "garbage": (lambda good: b"\x00\xff garbage \x13", "is not JSON"),
    "not an object": (lambda good: b"[1, 2, 3]", "cannot be used"),
    "lone surrogate": (lambda good: good.replace(b'"Or', b'"\\ud800').replace(b'"CG', b'"\\udfff'), "Unicode"),
}


def wrong_type(name: str) -> bytes:
    """A value of the wrong type deep inside (it used to stop start-up with a bare int() error)."""
    content = json.loads(json.dumps(BROKER_FILES[name][0]))
    if name == "topics.json":
        content["topicConfigTable"]["Orders"]["readQueueNums"] = "abc"
        return json.dumps(content).encode()
    if name == "subscriptionGroup.json":
        content["subscriptionGroupTable"]["CG_KEEP"]["retryMaxTimes"] = "abc"
    else:
        content["offsetTable"]["Orders@CG_KEEP"]["0"] = "abc"
    return json.dumps(content).encode()


def broker_config(root: Path, **kw) -> BrokerConfig:
    return BrokerConfig(listen_port=0, namesrv_addrs=[], data_dir=root, **kw)


async def started(cfg: BrokerConfig) -> Broker:
    broker = Broker(cfg)
    await broker.start()
    return broker


def write_file(root: Path, name: str, data: bytes, *, with_backup: bytes | None = None) -> Path:
    path = root / "config" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    if with_backup is not None:
        path.with_name(name + ".bak").write_bytes(with_backup)
    return path


async def test_every_metadata_file_has_a_backup_from_the_first_snapshot_on(tmp_path):
    broker = await started(broker_config(tmp_path / "b"))
    await broker.topics.update(TopicConfig("First"))
    await broker.groups.update({"groupName": "CG_FIRST"})
    broker.store.offsets.commit("CG_FIRST", "First", 0, 1)
    await broker.stop()
    ns = NameServer(NamesrvConfig(listen_port=0, data_dir=tmp_path / "ns"))
    await ns.start()
    await ns.kv.put("N", "k", "v")
    await ns.stop()
    for path in [
        *(tmp_path / "b" / "config" / name for name in BROKER_FILES),
        tmp_path / "ns" / "kvConfig.json",
    ]:
        bak = path.with_name(path.name + ".bak")
        assert bak.is_file(), f"no backup of {path.name} after its first snapshot"
        assert json.loads(bak.read_bytes()) == json.loads(path.read_bytes())


@pytest.mark.parametrize("name", list(BROKER_FILES))
@pytest.mark.parametrize("damage", [*DAMAGE, "wrong type"])
async def test_an_unusable_file_without_backup_stops_the_start_and_names_the_file(tmp_path, name, damage):
    good = json.dumps(BROKER_FILES[name][0]).encode()
    data, words = (wrong_type(name), "abc") if damage == "wrong type" else (DAMAGE[damage][0](good), DAMAGE[damage][1])
    path = write_file(tmp_path, name, data)
    broker = Broker(broker_config(tmp_path))
    with pytest.raises(MetadataError) as err:
        await broker.start()
    message = str(err.value)
    assert str(path) in message and words in message and f"{name}.bak is missing" in message
    assert path.read_bytes() == data  # untouched


@pytest.mark.parametrize("name", list(BROKER_FILES))
@pytest.mark.parametrize("damage", [*DAMAGE, "wrong type"])
async def test_an_unusable_file_falls_back_to_its_backup_with_a_warning(tmp_path, caplog, name, damage):
    content, holds = BROKER_FILES[name]
    good = json.dumps(content).encode()
    data = wrong_type(name) if damage == "wrong type" else DAMAGE[damage][0](good)
    path = write_file(tmp_path, name, data, with_backup=good)
    caplog.set_level(logging.WARNING, logger="mqadmin.server.persist")
    broker = await started(broker_config(tmp_path))
    try:
        assert holds(broker)
        assert any(str(path) in r.getMessage() and "using its backup" in r.getMessage() for r in caplog.records)
    finally:
        await broker.stop()


@pytest.mark.parametrize("name", list(BROKER_FILES))
async def test_the_reset_setting_starts_empty_and_keeps_the_unreadable_file(tmp_path, caplog, name):
    path = write_file(tmp_path, name, b"{broken", with_backup=b"")
    caplog.set_level(logging.ERROR, logger="mqadmin.server.persist")
    broker = await started(broker_config(tmp_path, reset_unreadable_metadata=True))
    try:
        assert not BROKER_FILES[name][1](broker)
        kept = sorted(p.name for p in path.parent.glob(f"{name}*.unreadable-*"))
        assert len(kept) == 2
        assert any(r.levelno == logging.ERROR and str(path) in r.getMessage() for r in caplog.records)
    finally:
        await broker.stop()


async def test_a_kv_config_that_cannot_be_used_stops_the_name_server(tmp_path):
    path = tmp_path / "kvConfig.json"
    path.write_bytes(b'{"configTable": {"N": "not an object"}}')
    ns = NameServer(NamesrvConfig(listen_port=0, data_dir=tmp_path))
    with pytest.raises(MetadataError, match="kvConfig.json holds content that cannot be used"):
        await ns.start()


async def test_a_bad_journal_record_is_reported_and_the_valid_ones_after_it_are_kept(tmp_path, caplog):
    broker = await started(broker_config(tmp_path))
    for i in range(3):
        await broker.topics.update(TopicConfig(f"Before{i}"))
    journal = broker.topics._file.journal_path
    good_lines = journal.read_bytes()
    await broker.stop()  # compacts the journal into topics.json; the old lines are replayed again below
    second = b'{"put": {"topicName": "After0", "readQueueNums": 2, "writeQueueNums": 2, "perm": 6}}\n'
    bad = [b"this is not json\n", b'{"put": {"topicName": "x", "perm": "rw"}}\n', b'{"put": {"topicName": "a/b"}}\n']
    journal.write_bytes(good_lines + bad[0] + second + bad[1] + bad[2] + second.replace(b"After0", b"After1"))
    caplog.set_level(logging.WARNING)
    again = await started(broker_config(tmp_path))
    try:
        assert all(again.topics.get(t) for t in ("Before0", "Before1", "Before2", "After0", "After1"))
        assert again.topics.get("x") is None and again.topics.get("a/b") is None
        errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
        assert any("line 4 (byte" in m and "not valid" in m for m in errors), errors
        assert any("line 6 (byte" in m and "perm" in m for m in errors), errors
        rejected = journal.with_name(journal.name + ".rejected").read_bytes()
        assert rejected == bad[0] + bad[1]
        assert any("a/b" in r.getMessage() for r in caplog.records)  # an illegal name is left out, named
    finally:
        await again.stop()


async def test_a_failed_write_leaves_no_trace_in_memory(tmp_path, monkeypatch):
    ns = NameServer(NamesrvConfig(listen_port=0, data_dir=tmp_path))
    await ns.start()
    try:
        await ns.kv.put("N", "kept", "1")

        def disk_full(*args, **kwargs):
            raise OSError(28, "No space left on device")

        monkeypatch.setattr("mqadmin.server.durable.atomic_write", disk_full)
        with pytest.raises(OSError):
            await ns.kv.put("N", "lost", "2")
        with pytest.raises(OSError):
            await ns.kv.put("Other", "lost", "3")
        with pytest.raises(OSError):
            await ns.kv.delete("N", "kept")
        assert ns.kv.table == {"N": {"kept": "1"}}
    finally:
        monkeypatch.undo()
        await ns.stop()


def test_dev_broker_refuses_to_start_on_an_unreadable_file_and_says_which(tmp_path):
    path = write_file(tmp_path, "topics.json", b'{"topicConfigTable": {"T": ')
    p = Proc("dev", "broker", "--port", "0", "-n", "127.0.0.1:1", "--data-dir", str(tmp_path))
    assert p.p.wait(60) == 1
    err = p.p.stderr.read()
    assert f"mqadmin: error: cannot start: {path} is not JSON" in err and "Traceback" not in err
    assert "--reset-unreadable-metadata" in err
    p.p.stderr.close()
    q = Proc("--format", "json", "dev", "broker", "--port", "0", "-n", "127.0.0.1:1", "--data-dir", str(tmp_path),
             "--reset-unreadable-metadata")  # fmt: skip
    try:
        assert q.json()["dataDir"] == str(tmp_path)
        wait_until(lambda: list(path.parent.glob("topics.json.unreadable-*")), 10, what="the file kept aside")
    finally:
        q.stop()


def test_atomic_write_keeps_a_backup_only_when_asked_on_the_first_write(tmp_path):
    atomic_write(tmp_path / "plain", b"1")
    atomic_write(tmp_path / "meta", b"1", backup=True)
    assert not (tmp_path / "plain.bak").exists() and (tmp_path / "meta.bak").read_bytes() == b"1"
    atomic_write(tmp_path / "meta", b"2", backup=True)
    assert (tmp_path / "meta.bak").read_bytes() == b"1" and (tmp_path / "meta").read_bytes() == b"2"
