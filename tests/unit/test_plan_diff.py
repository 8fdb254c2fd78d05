"""plan shows a diff as terraform plan does: per cluster, per topic or group, one line per change with the
brokers it applies to and a mark (+ create, ~ update, - delete), coloured on a terminal, plain when piped."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from mqadmin.cli import render
from mqadmin.model.topic import TopicConfig
from tests.embedded import ThreadedCluster
from tests.unit.cli_helpers import Cli

FILE = """
[clusters.local]
cluster = "DefaultCluster"

[topics.Orders]
queueNums = 8

[topics.Payments]
queueNums = 8
perm = 4
"""

PLAN = [
    "cluster local (DefaultCluster)",
    "    topic Legacy on broker-b (not in the file: left alone)",
    "  + topic Orders on broker-a, broker-b",
    "      readQueueNums=8, writeQueueNums=8, perm=6",
    "  ~ topic Payments on broker-a, broker-b",
    "      perm 6→4",
]


@pytest.fixture
def embedded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadedCluster]:
    """The embedded servers, fresh for each test (apply changes them)."""
    with ThreadedCluster(tmp_path_factory.mktemp("plan")) as c:
        yield c


def planned(
    embedded: ThreadedCluster, monkeypatch, capsys, tmp_path: Path, *args: str, command: str = "plan"
) -> tuple[int, str, str]:
    for broker in ("broker-a", "broker-b"):
        embedded.create_topic(broker, TopicConfig("Payments", 8, 8, 6))
    embedded.create_topic("broker-b", TopicConfig("Legacy", 4, 4, 6))
    (tmp_path / "topology.toml").write_text(FILE)
    cli = Cli(monkeypatch, capsys, namesrvs=[embedded.namesrv_addr])
    r = cli(*args, command, "-f", str(tmp_path / "topology.toml"))
    return r.code, r.out, r.err


def test_plan_is_a_diff_grouped_by_topic_with_the_brokers_on_one_line(embedded, monkeypatch, capsys, tmp_path) -> None:
    code, out, err = planned(embedded, monkeypatch, capsys, tmp_path)
    assert code == 6, err
    assert out.splitlines() == PLAN
    assert "\x1b[" not in out
    assert "plan: 2 to create, 2 to update, 0 to delete; 1 not in the file" in err


def test_on_a_terminal_the_marks_are_coloured(embedded, monkeypatch, capsys, tmp_path) -> None:
    monkeypatch.setattr(render, "styled_output", lambda: True)
    code, out, _ = planned(embedded, monkeypatch, capsys, tmp_path)
    assert code == 6
    assert "\x1b[32m  + topic Orders on broker-a, broker-b\x1b[0m" in out
    assert "\x1b[33m  ~ topic Payments on broker-a, broker-b\x1b[0m" in out
    assert "\x1b[2m    topic Legacy on broker-b (not in the file: left alone)\x1b[0m" in out


def test_apply_shows_the_same_diff_with_each_result(embedded, monkeypatch, capsys, tmp_path) -> None:
    code, out, err = planned(embedded, monkeypatch, capsys, tmp_path, command="apply")
    assert code == 0, err
    cluster, _, created, settings, updated, change = PLAN  # what is not in the file is left out
    assert out.splitlines() == [cluster, f"{created}: created", settings, f"{updated}: updated", change]
    assert "apply: 2 created, 2 updated" in err


def test_an_incomplete_plan_never_says_no_changes(embedded, monkeypatch, capsys, tmp_path) -> None:
    """What could be read matches the file, but the file names a broker the cluster does not have: the plan
    says it is incomplete (not "no changes") and exits 1, in text and in JSON."""
    for broker in ("broker-a", "broker-b"):
        embedded.create_topic(broker, TopicConfig("Payments", 8, 8, 6))
    (tmp_path / "topology.toml").write_text(
        '[clusters.local]\ncluster = "DefaultCluster"\n\n[topics.Payments]\nqueueNums = 8\n\n'
        '[topics.Elsewhere]\nbrokers = ["broker-z"]\n'
    )
    cli = Cli(monkeypatch, capsys, namesrvs=[embedded.namesrv_addr])
    r = cli("plan", "-f", str(tmp_path / "topology.toml"))
    assert r.code == 1, r.err
    assert "no changes" not in r.err
    assert "plan: incomplete (1 part(s) could not be read); of the rest: 0 to create, 0 to update" in r.err
    assert "'broker-z', which 'DefaultCluster' does not have" in r.err
    r = cli("--format", "json", "plan", "-f", str(tmp_path / "topology.toml"))
    assert r.code == 1
    assert '"outcome": "failed"' in r.out


def test_a_saved_plan_is_applied_as_saved(embedded, monkeypatch, capsys, tmp_path) -> None:
    """plan --out writes the plan (its items streamed into the file); apply --plan carries out exactly that."""
    saved = tmp_path / "plan.json"
    code, _, err = planned(embedded, monkeypatch, capsys, tmp_path, "--format", "json")
    assert code == 6, err
    cli = Cli(monkeypatch, capsys, namesrvs=[embedded.namesrv_addr])
    r = cli("plan", "-f", str(tmp_path / "topology.toml"), "--out", str(saved))
    assert r.code == 6, r.err
    doc = json.loads(saved.read_text())
    assert doc["format"] == "mqadmin-plan" and {(i["name"], i["action"]) for i in doc["items"]} == {
        ("Orders", "create"),
        ("Payments", "update"),
        ("Legacy", "extra"),
    }
    r = cli("apply", "--plan", str(saved))
    assert r.code == 0, r.err
    assert embedded.topic("broker-b", "Orders") is not None
    assert embedded.topic("broker-a", "Payments").perm == 4


def test_apply_shows_each_failure_with_its_reason_beside_what_was_done(embedded, monkeypatch, capsys, tmp_path) -> None:
    """A topic the brokers refuse fails on each with the broker's reason, in the diff and in the JSON results;
    the others are created; the summary counts both and the exit code says partial (3). A second apply does only
    what is left, and as all of that fails, says failed (1)."""
    file = tmp_path / "topology.toml"
    file.write_text(
        '[clusters.local]\ncluster = "DefaultCluster"\n\n[topics.Good]\nqueueNums = 4\n\n'
        '[topics.Bad]\nattributes = { "no.such.attribute" = "x" }\n'
    )
    cli = Cli(monkeypatch, capsys, namesrvs=[embedded.namesrv_addr])
    r = cli("apply", "-f", str(file))
    assert r.code == 3, r.err
    refused = "failed (SYSTEM_ERROR (1): unsupported key: no.such.attribute)"
    assert r.out.splitlines() == [
        "cluster local (DefaultCluster)",
        f"  + topic Bad on broker-a, broker-b: {refused}",
        "      readQueueNums=8, writeQueueNums=8, perm=6, attributes={no.such.attribute=x}",
        "  + topic Good on broker-a, broker-b: created",
        "      readQueueNums=4, writeQueueNums=4, perm=6",
    ]
    assert "apply: 2 created, 2 failed" in r.err and "apply: 2 item(s) failed" in r.err
    assert embedded.topic("broker-b", "Good") is not None and embedded.topic("broker-b", "Bad") is None
    r = cli("--format", "json", "apply", "-f", str(file))
    assert r.code == 1, r.err
    assert json.loads(r.out)["outcome"] == "failed"
    assert [(i["name"], i["broker"], i["status"], i["reason"]) for i in json.loads(r.out)["results"]] == [
        ("Bad", b, "failed", "SYSTEM_ERROR (1): unsupported key: no.such.attribute") for b in ("broker-a", "broker-b")
    ]


def test_an_item_nothing_reported_on_is_not_taken_for_done() -> None:
    """apply keeps results only for items not done as planned; an item no result was ever given for (a bug, or a
    run stopped before reaching it) must show as not sent, never as created."""
    from types import SimpleNamespace

    from mqadmin.admin.results import Status
    from mqadmin.topology.apply import Results
    from mqadmin.topology.plan import Action, ClusterPlan, Item, Kind, Plan

    a, b, c = (Item("c1", Kind.TOPIC, f"T{n}", "broker-a", "127.0.0.1:1", Action.CREATE) for n in range(3))
    cluster = ClusterPlan(spec=SimpleNamespace(), state=SimpleNamespace(), items=[a, b, c])  # type: ignore[arg-type]
    results = Results(Plan(topology=SimpleNamespace(), prune=False, clusters=[cluster]))  # type: ignore[arg-type]
    results.set(a, Status.CREATED)
    results.set(b, Status.FAILED, "refused")
    assert [(i.name, str(s)) for i, s, _ in results] == [("T0", "created"), ("T1", "failed"), ("T2", "not sent")]
    assert results.of(c)[1] and "stopped before it was sent" in results.of(c)[1]
