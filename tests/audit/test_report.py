"""``report.html`` as a person sees it (rendered by headless Chromium), and findings over time
(``audit --baseline``): two exports differing by a fix."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from mqadmin.audit.job import finding_id
from tests.audit.browser import render
from tests.audit.exports import ExportBuilder
from tests.unit.cli_helpers import Cli, assert_one_line_error

HOSTILE_TOPIC = "<img src=x onerror=\"document.title='pwned'\">&amp;'T"
HOSTILE_CLUSTER = "<script>document.title='pwned'</script>"
HOSTILE_BROKER = "<i>b2</i>"


@pytest.fixture
def cli(monkeypatch, capsys) -> Cli:
    monkeypatch.setenv("NO_COLOR", "1")
    return Cli(monkeypatch, capsys)


def fleet(root: Path, fixed: bool) -> None:
    """A fleet before (``fixed`` False) and after a fix: Trap, created on broker a by the auto-create trap, is
    then on every master, while NewTrap appears on b alone. One master of s2 could not be read; a cluster with a
    hostile name holds a topic with a hostile name (an export can hold any text)."""
    b = ExportBuilder(root)
    b.cluster("s1", "C1", "127.0.0.1:9876")
    for name in "abc":
        b.broker("s1", "C1", name)
    for i in range(24):
        b.topic("s1", "C1", "a b c", f"Spread{i:02d}")
    b.topic("s1", "C1", "a b c" if fixed else "a", "Trap", 4, 4)
    for i in range(15):  # topics auto-created on a: a carries far more than b and c
        b.topic("s1", "C1", "a", f"Auto{i:02d}")
    if fixed:
        b.topic("s1", "C1", "b", "NewTrap")
    b.topic("s1", "C1", "a b c", "Shrinking", 8, 4)
    b.cluster("s2", "D", "127.0.0.2:9876")
    b.broker("s2", "D", "p")
    b.broker("s2", "D", "q", ok=False)
    b.topic("s2", "D", "p", "Fine")
    b.cluster("s3", HOSTILE_CLUSTER, "127.0.0.3:9876")
    b.broker("s3", HOSTILE_CLUSTER, "b1")
    b.broker("s3", HOSTILE_CLUSTER, HOSTILE_BROKER)
    b.topic("s3", HOSTILE_CLUSTER, "b1", HOSTILE_TOPIC)
    b.finish()


def findings(out: Path, name: str = "findings.jsonl") -> list[dict[str, Any]]:
    return [json.loads(x) for x in (out / name).read_text().splitlines()]


def audited(cli: Cli, tmp_path: Path) -> tuple[Path, Path, Any]:
    """The fleet audited before the fix, then after it with the first audit as the baseline."""
    fleet(tmp_path / "before", fixed=False)
    fleet(tmp_path / "after", fixed=True)
    first = cli("audit", str(tmp_path / "before"), "--out", str(tmp_path / "a1"), "--engine", "python")
    assert first.code == 0, first.err
    second = cli("--format", "json", "audit", str(tmp_path / "after"), "--out", str(tmp_path / "a2"),
                 "--engine", "python", "--baseline", str(tmp_path / "a1"))  # fmt: skip
    assert second.code == 0, second.err
    return tmp_path / "a1", tmp_path / "a2", second.json()


def test_baseline_marks_findings_new_unchanged_and_resolved(cli, tmp_path):
    a1, a2, summary = audited(cli, tmp_path)
    before = {(f["topic"], f["rule"]): f for f in findings(a1)}
    after = {(f["topic"], f["rule"]): f for f in findings(a2)}
    assert all(f["change"] is None for f in before.values())  # no baseline: nothing to compare with
    assert after[("NewTrap", "PLACEMENT_SUBSET")]["change"] == "new"
    assert after[("Shrinking", "READ_WRITE_MISMATCH")]["change"] == "unchanged"
    assert after[("Shrinking", "READ_WRITE_MISMATCH")]["id"] == before[("Shrinking", "READ_WRITE_MISMATCH")]["id"]
    assert ("Trap", "PLACEMENT_SUBSET") not in after
    resolved = findings(a2, "resolved.jsonl")
    assert [(f["topic"], f["rule"], f["change"]) for f in resolved] == [("Trap", "PLACEMENT_SUBSET", "resolved")]
    assert resolved[0]["id"] == before[("Trap", "PLACEMENT_SUBSET")]["id"]

    base = summary["baseline"]
    assert base["path"] == str(a1) and base["generatedAt"] == json.loads((a1 / "summary.json").read_text())[
        "generatedAt"]  # fmt: skip
    assert (base["new"], base["resolved"]) == (1, 1)
    assert base["unchanged"] == summary["findings"] - 1
    assert base["byRule"]["PLACEMENT_SUBSET"] == {"new": 1, "unchanged": 16, "resolved": 1, "unverified": 0}
    assert base["unverified"] == 0  # ^ Auto*, hostile; every master read both times
    assert json.loads((a2 / "summary.json").read_text())["baseline"] == base
    pq = pytest.importorskip("pyarrow.parquet")
    table = pq.read_table(a2 / "findings.parquet").to_pylist()
    placed = {(r["topic"], r["change"]) for r in table if r["rule"] == "PLACEMENT_SUBSET"}
    assert {p for p in placed if "Auto" not in p[0]} == {("NewTrap", "new"), (HOSTILE_TOPIC, "unchanged")}


def test_a_finding_where_this_audit_could_not_look_is_unverified_not_resolved(cli, tmp_path):
    """The baseline's findings this audit did not find are resolved only where it could look: on a cluster with
    a broker not read, in a cluster gone from the inputs, for an order rule without the source's order configs,
    for a group rule without every broker's groups, they are unverified, counted apart and shown apart."""
    first = ExportBuilder(tmp_path / "before")
    second = ExportBuilder(tmp_path / "after")
    for b, down in ((first, False), (second, True)):
        b.cluster("s", "C", order_conf_ok=not down)
        b.broker("s", "C", "a")
        b.broker("s", "C", "b", groups_ok=not down)
        b.topic("s", "C", "a b", "Fixed", 8, 8 if down else 4)  # READ_WRITE_MISMATCH, fixed the second time
        b.topic("s", "C", "a b", "Fifo", order=True)
        if not down:
            b.order_conf("s", "Fifo", "a:8")  # ORDER_CONF_MISMATCH, not checkable the second time
            b.topic("s", "C", "a", "%RETRY%Gone", 1, 1)  # ORPHAN_RETRY_TOPIC, not checkable the second time
        b.cluster("s", "D")
        b.broker("s", "D", "x")
        b.broker("s", "D", "y", ok=not down)
        b.topic("s", "D", "x", "Half")  # PLACEMENT_SUBSET; the second time y is not read
        if not down:
            b.cluster("s", "Gone")
            b.broker("s", "Gone", "g")
            b.topic("s", "Gone", "g", "Odd", 8, 4)  # READ_WRITE_MISMATCH in a cluster no longer in the inputs
        b.finish()
    a1, a2 = tmp_path / "a1", tmp_path / "a2"
    assert cli("audit", str(tmp_path / "before"), "--out", str(a1), "--engine", "python").code == 0
    result = cli("--format", "json", "audit", str(tmp_path / "after"), "--out", str(a2), "--engine", "python",
                 "--baseline", str(a1))  # fmt: skip
    assert result.code == 0, result.err
    gone = {(f["cluster"], f["topic"], f["rule"]): f["change"] for f in findings(a2, "resolved.jsonl")}
    assert gone == {
        ("C", "Fixed", "READ_WRITE_MISMATCH"): "resolved",
        ("C", "Fifo", "ORDER_CONF_MISMATCH"): "unverified",
        ("C", "%RETRY%Gone", "ORPHAN_RETRY_TOPIC"): "unverified",
        ("D", "Half", "PLACEMENT_SUBSET"): "unverified",
        ("Gone", "Odd", "READ_WRITE_MISMATCH"): "unverified",
    }
    base = result.json()["baseline"]
    assert (base["resolved"], base["unverified"]) == (1, 4)
    assert base["byRule"]["READ_WRITE_MISMATCH"] == {"new": 0, "unchanged": 0, "resolved": 1, "unverified": 1}
    report = (a2 / "report.html").read_text()
    assert "4 unverified" in report and "<h3>Unverified" in report and "<h3>Resolved" in report
    terminal = cli("audit", str(tmp_path / "after"), "--out", str(tmp_path / "a3"), "--engine", "python",
                   "--baseline", str(a1))  # fmt: skip
    assert "1 resolved, 4 unverified" in terminal.out
    assert "4 findings of the baseline are unverified" in terminal.err


def test_finding_ids_come_from_rule_and_place_not_order_or_message():
    f = {"rule": "PLACEMENT_SUBSET", "source": "s", "cluster": "c", "topic": "t", "broker": None, "group": None}
    assert finding_id(f) == finding_id({**f, "message": "on 1 of 3", "severity": "high"})
    others = [{**f, "topic": "u"}, {**f, "cluster": "d"}, {**f, "rule": "PERM_NOT_RW"}]
    others.append({**f, "topic": None, "broker": "t"})
    assert len({finding_id(x) for x in [f, *others]}) == 5


def test_the_terminal_says_what_changed_since_the_baseline(cli, tmp_path):
    a1, _, _ = audited(cli, tmp_path)
    result = cli("audit", str(tmp_path / "after"), "--out", str(tmp_path / "a3"), "--engine", "python",
                 "--baseline", str(a1))  # fmt: skip
    assert result.code == 0, result.err
    assert "1 new, 1 resolved" in result.out
    assert re.search(r"PLACEMENT_SUBSET\s+high\s+17\s+1\s+1", result.out), result.out
    assert "report: " in result.err and "resolved.jsonl" in result.err
    # an audit without a baseline into the same directory leaves no stale resolved.jsonl
    again = cli("audit", str(tmp_path / "after"), "--out", str(tmp_path / "a3"), "--engine", "python")
    assert again.code == 0 and not (tmp_path / "a3" / "resolved.jsonl").exists()


def test_a_baseline_that_is_not_an_audit_is_a_usage_error(cli, tmp_path):
    fleet(tmp_path / "in", fixed=False)
    result = cli("audit", str(tmp_path / "in"), "--out", str(tmp_path / "out"), "--engine", "python",
                 "--baseline", str(tmp_path / "in"))  # fmt: skip
    assert result.code == 2
    assert_one_line_error(result, "has no findings.jsonl", "--baseline takes the --out directory")
    assert not (tmp_path / "out" / "report.html").exists()


def test_the_report_is_self_contained_and_escapes_what_clusters_named(cli, tmp_path):
    _, a2, _ = audited(cli, tmp_path)
    page = (a2 / "report.html").read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)
    assert "<link" not in page and "@import" not in page and "url(" not in page
    for text in (HOSTILE_TOPIC, HOSTILE_CLUSTER, HOSTILE_BROKER):
        assert text not in page  # only escaped
    assert "&lt;img src=x onerror=&quot;document.title=&#x27;pwned&#x27;&quot;&gt;&amp;amp;&#x27;T" in page
    assert page.count("<script>") == 1  # the page's own copy-button script


def test_report_in_headless_chromium_has_charts_no_console_errors_and_fetches_nothing(cli, tmp_path):
    _, a2, summary = audited(cli, tmp_path)
    report = Path(summary["outputs"]["report"])
    shot = tmp_path / "report.png"
    result = render(
        report,
        {
            "title": "document.title",
            "svgs": "document.querySelectorAll('main svg.chart').length",
            "bars": "document.querySelectorAll('main svg rect').length",
            "sections": "[...document.querySelectorAll('main section[id]')].map(s => s.id)",
            "injected": "document.querySelectorAll('img, i, main script, [onerror]').length",
            "text": "document.body.innerText",
            "cluster_labels": "[...document.querySelectorAll('#clusters svg text > title')].map(t => t.textContent)",
            "grids": "[...document.querySelectorAll('#brokers table.grid')]"
            ".map(t => [...t.rows].map(r => [...r.cells].map(c => c.innerText)))",
            "since": "document.querySelector('#since').innerText",
            "commands": "[...document.querySelectorAll('#plan table.plan code')].map(c => c.textContent)",
            "box": "[document.documentElement.scrollWidth, window.innerWidth]",
        },
        shot,
    )
    keep = os.environ.get("MQADMIN_TEST_ARTIFACTS")
    if keep:
        os.makedirs(keep, exist_ok=True)
        shutil.copy(shot, os.path.join(keep, "audit-report.png"))
    print(f"screenshot: {shot}")
    assert result.errors == []
    assert result.requests == [report.resolve().as_uri()]  # the page itself, nothing else
    v = result.values
    assert v["title"].startswith("mqadmin fleet audit") and v["injected"] == 0
    assert v["sections"] == ["since", "rules", "clusters", "brokers", "plan", "findings", "coverage"]
    # rules, clusters, and topics and queues per broker for s1/C1 (skew and placement) and the hostile cluster
    assert v["svgs"] == 2 + 2 * 2 and v["bars"] > 10
    assert HOSTILE_TOPIC in v["text"] and HOSTILE_BROKER in v["text"]
    assert f"s3 / {HOSTILE_CLUSTER}" in v["cluster_labels"]
    c1, hostile = ({row[0]: row[1:] for row in grid} for grid in v["grids"])  # most findings first
    assert c1["topic"] == ["a", "b", "c"] and c1["NewTrap"] == ["✕", "●", "✕"] and c1["Auto00"] == ["●", "✕", "✕"]
    assert hostile == {"topic": [HOSTILE_BROKER, "b1"], HOSTILE_TOPIC: ["✕", "●"]}  # brokers by name
    assert "1 new" in v["since"] and "1 resolved" in v["since"] and "Trap" in v["since"]
    assert "mqadmin updateTopic -n 127.0.0.1:9876 -c C1 -t NewTrap -r 8 -w 8 -p 6" in v["commands"]
    assert "q" in v["text"] and "down" in v["text"]  # the master of s2 that could not be read
    assert v["box"][0] <= v["box"][1]  # nothing wider than the window
    assert shot.stat().st_size > 10_000


def test_a_big_audit_shows_the_first_findings_and_commands_and_counts_them_all(cli, tmp_path, monkeypatch):
    from mqadmin.audit import report

    monkeypatch.setattr(report, "FINDINGS_SHOWN", 3)
    monkeypatch.setattr(report, "COMMANDS_SHOWN", 2)
    monkeypatch.setattr(report, "PLACEMENT_TOPICS", 4)
    fleet(tmp_path / "in", fixed=False)
    result = cli("audit", str(tmp_path / "in"), "--out", str(tmp_path / "out"), "--engine", "python")
    assert result.code == 0, result.err
    total = len(findings(tmp_path / "out"))
    page = (tmp_path / "out" / "report.html").read_text()
    assert f"Findings (first 3 of {total})" in page and page.count('<tr><td><span class="sev') == 3
    assert "Remediation plan (first 2 of 17)" in page and "All 2 commands as one script" in page
    assert "Topics missing on some masters (first 4 of 16)" in page
    assert f"<b>{total}</b><span>findings</span>" in page  # the counts cover every finding
