"""Paths built from names stay inside their directory (mqadmin.server.paths), in the store too.

This is the second line of defence: the servers refuse illegal names before a handler runs, but
the store must not create, write or delete outside ``consumequeue/`` whatever name reaches it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mqadmin.server.paths import UnsafePath, child
from mqadmin.server.store import PutStatus
from mqadmin.server.store import state as store_state

from .conftest import crash, message

HOSTILE = ["..", ".", "", "/abs", "a/b", "x/../../evil", "a\x00b", "\ud800", "n" * 256]


@pytest.fixture
def canary(tmp_path: Path) -> Path:
    """A directory next to the data directory that no request may touch."""
    d = tmp_path / "canary"
    d.mkdir()
    (d / "keep").write_text("untouched")
    return d


def untouched(canary: Path) -> bool:
    return sorted(p.name for p in canary.iterdir()) == ["keep"] and (canary / "keep").read_text() == "untouched"


@pytest.mark.parametrize("name", HOSTILE)
def test_child_refuses_anything_but_one_plain_component(tmp_path: Path, name: str):
    with pytest.raises(UnsafePath):
        child(tmp_path, name)


def test_child_follows_symlinks_and_refuses_one_that_leads_out(tmp_path: Path, canary: Path):
    area = tmp_path / "area"
    area.mkdir()
    (area / "T").symlink_to(canary)
    with pytest.raises(UnsafePath, match="outside"):
        child(area, "T")
    linked_area = tmp_path / "linked"
    linked_area.symlink_to(area)  # a whole area on another disk is fine
    assert child(linked_area, "Orders") == area.resolve() / "Orders"


@pytest.mark.parametrize("topic", ["../../canary", "/abs/olute", "..", "a\x00"])
async def test_a_put_with_an_unsafe_topic_is_illegal_and_writes_nothing(open_store, canary: Path, topic: str):
    store = await open_store()
    result = await store.put(message(topic=topic))
    assert result.status == PutStatus.MESSAGE_ILLEGAL
    await store.flush()
    assert untouched(canary) and store.max_phys_offset == 0


@pytest.mark.parametrize("topic", ["..", "../canary", "/", ""])
async def test_delete_topic_refuses_unsafe_names_before_changing_anything(open_store, tmp_path, canary, topic):
    store = await open_store()
    await store.put(message(topic="Kept"))
    await store.flush()
    with pytest.raises(UnsafePath):
        await store.delete_topic(topic)
    assert untouched(canary)
    assert (tmp_path / "store" / "consumequeue" / "Kept" / "0").is_file() and store.max_offset("Kept", 0) == 1


async def test_recovery_leaves_records_of_unsafe_topics_unindexed(open_store, tmp_path, canary, monkeypatch):
    """A commit log written before validation existed may hold such a record: it is skipped, not followed."""
    store = await open_store()
    await store.put(message(topic="Good", body=b"kept"))
    monkeypatch.setattr(store_state, "child", lambda d, n: d / n)  # the old, unchecked path building
    assert (await store.put(message(topic="../../canary/evil"))).status == PutStatus.PUT_OK
    monkeypatch.undo()
    await crash(store)
    os.remove(tmp_path / "store" / "checkpoint")  # make recovery re-index the whole log
    for p in (tmp_path / "store").rglob("*"):
        if p.parent.name == "consumequeue" and p.is_dir():
            for f in p.iterdir():
                f.unlink()
    reopened = await open_store()
    assert reopened.max_offset("Good", 0) == 1
    assert reopened.max_offset("../../canary/evil", 0) == 0
    assert untouched(canary)
