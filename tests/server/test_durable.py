"""DurableJson: group commit, journal replay, torn tails, the .bak fall-back, atomic snapshots."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from mqadmin.files import atomic_write
from mqadmin.server.durable import DurableJson, dumps_table


class Table:
    """A tiny journaled map, the way TopicConfigManager uses DurableJson."""

    def __init__(self, path: Path, compact_min: int = 1000) -> None:
        self.data: dict[str, int] = {}
        self.file = DurableJson(
            path, lambda: {"table": dict(self.data)}, journal=True, size=lambda: len(self.data), compact_min=compact_min
        )

    def load(self) -> None:
        snapshot, records = self.file.load()
        self.data = dict((snapshot or {}).get("table", {}))
        for rec in records:
            self.data[rec["k"]] = rec["v"]

    async def put(self, k: str, v: int) -> None:
        self.data[k] = v
        await self.file.commit({"k": k, "v": v})


async def test_concurrent_commits_share_flushes_and_all_survive_reload(tmp_path):
    t = Table(tmp_path / "t.json")
    await asyncio.gather(*(t.put(f"k{i}", i) for i in range(500)))
    assert t.file.flushes < 500  # batched: far fewer disk writes than changes
    again = Table(tmp_path / "t.json")
    again.load()  # no close(): what a crash right after the acknowledgements leaves
    assert again.data == {f"k{i}": i for i in range(500)}


async def test_commit_returns_only_after_the_record_is_on_disk(tmp_path):
    t = Table(tmp_path / "t.json")
    await t.put("a", 1)
    assert json.loads(t.file.journal_path.read_text().splitlines()[-1]) == {"k": "a", "v": 1}


async def test_journal_is_compacted_into_the_snapshot(tmp_path):
    t = Table(tmp_path / "t.json", compact_min=10)
    for i in range(25):
        await t.put(f"k{i}", i)
    snapshot = json.loads((tmp_path / "t.json").read_text())
    assert len(snapshot["table"]) >= 10
    assert len(t.file.journal_path.read_text().splitlines()) < 25
    await t.file.close()
    assert json.loads((tmp_path / "t.json").read_text())["table"] == {f"k{i}": i for i in range(25)}
    assert t.file.journal_path.read_text() == ""


async def test_snapshot_is_written_while_entries_are_only_added_to_a_table_with_initial_entries(tmp_path):
    """Like a broker's start-up topics: entries in the table that never went through the journal."""
    t = Table(tmp_path / "t.json", compact_min=10)
    t.data = {f"start{i}": i for i in range(12)}
    for i in range(40):
        await t.put(f"k{i}", i)
    snapshot = json.loads((tmp_path / "t.json").read_text())  # written without any close()
    assert len(snapshot["table"]) >= 12 + 10
    again = Table(tmp_path / "t.json")
    again.load()
    assert again.data == t.data


async def test_torn_journal_tail_is_cut_and_later_appends_stay_readable(tmp_path):
    t = Table(tmp_path / "t.json")
    await t.put("a", 1)
    with open(t.file.journal_path, "ab") as f:
        f.write(b'{"k":"b","v"')  # a crash in the middle of an append
    again = Table(tmp_path / "t.json")
    again.load()
    assert again.data == {"a": 1}
    await again.put("c", 3)
    third = Table(tmp_path / "t.json")
    third.load()
    assert third.data == {"a": 1, "c": 3}


def test_unreadable_snapshot_falls_back_to_bak(tmp_path):
    path = tmp_path / "t.json"
    atomic_write(path, dumps_table({"table": {"old": 1}}))
    atomic_write(path, dumps_table({"table": {"new": 2}}))
    assert json.loads(path.with_name("t.json.bak").read_text()) == {"table": {"old": 1}}
    path.write_bytes(b'{"table": {"new"')  # damaged main file
    t = Table(path)
    t.load()
    assert t.data == {"old": 1}
    path.unlink()  # missing main file
    t.load()
    assert t.data == {"old": 1}


def test_a_leftover_tmp_file_from_a_crashed_write_is_ignored(tmp_path):
    path = tmp_path / "t.json"
    atomic_write(path, dumps_table({"table": {"kept": 1}}))
    path.with_name("t.json.tmp").write_bytes(b"{half")
    t = Table(path)
    t.load()
    assert t.data == {"kept": 1}


async def test_snapshot_mode_rewrites_the_whole_file(tmp_path):
    state = {"n": 0}
    f = DurableJson(tmp_path / "s.json", lambda: dict(state))
    for i in range(3):
        state["n"] = i
        await f.commit()
    assert json.loads((tmp_path / "s.json").read_text()) == {"n": 2}
    assert not f.journal_path.exists()


def test_dumps_table_is_valid_json_with_one_entry_per_line() -> None:
    obj = {"dataVersion": {"counter": 1}, "topicConfigTable": {"A": {"x": 1}, "B": {"y": "é"}}, "empty": {}}
    text = dumps_table(obj).decode()
    assert json.loads(text) == obj
    assert '\t\t"A":{"x":1},\n' in text
