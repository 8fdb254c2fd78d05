"""``report.html``: the audit as one self-contained page to look at and to send.

Everything is inline (CSS, the charts as SVG drawn here, one small script for the copy buttons): the page
fetches nothing, so it reads the same offline, from a mail attachment or a ticket. It is built from the
audit's own outputs (the summary, ``findings.jsonl``, ``plan.toml``, ``resolved.jsonl``), so both engines
give the same page. Every text that comes from a cluster (topic, group, broker and cluster names, messages)
is HTML-escaped: a topic name is the cluster owner's choice, not ours.

Big fleets: the tables show the first findings and commands (the files hold all); the counts and charts
cover every finding.
"""

from __future__ import annotations

import html
import json
import os
import tomllib
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mqadmin.audit.job import CHANGES, RULES, SEVERITY_RANK, evidence_of
from mqadmin.files import atomic_write

REPORT = "report.html"
FINDINGS_SHOWN = 200
COMMANDS_SHOWN = 500
CHANGES_SHOWN = 100
CLUSTERS_CHARTED = 30
DISTRIBUTION_CLUSTERS = 12
PLACEMENT_TOPICS = 20
SEVERITIES = ("high", "medium", "low")
COLOURS = {"high": "#c62828", "medium": "#ef8a17", "low": "#3b7dd8"}


def e(value: Any) -> str:
    """Text for HTML, in an element or a quoted attribute."""
    return html.escape("" if value is None else str(value), quote=True)


def write_report(out: str | os.PathLike[str], summary: dict[str, Any]) -> Path:
    """Render the audit in ``out`` (``summary`` as written to summary.json) to ``out/report.html``."""
    path = Path(out) / REPORT
    atomic_write(path, render_report(Path(out), summary).encode())
    return path


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    if not path.exists():
        return
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


class _Tally:
    """What the page shows of the findings, in one pass over findings.jsonl."""

    def __init__(self) -> None:
        self.by_rule: Counter[str] = Counter()
        self.by_cluster: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
        self.first: list[dict[str, Any]] = []
        self.new: list[dict[str, Any]] = []
        self.placement: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
        self.placement_count: Counter[tuple[str, str]] = Counter()

    def add(self, f: dict[str, Any]) -> None:
        place = (f["source"], f["cluster"])
        self.by_rule[f["rule"]] += 1
        self.by_cluster[place][f["severity"]] += 1
        if len(self.first) < FINDINGS_SHOWN:
            self.first.append(f)
        if f.get("change") == "new" and len(self.new) < CHANGES_SHOWN:
            self.new.append(f)
        if f["rule"] == "PLACEMENT_SUBSET":
            self.placement_count[place] += 1
            if len(self.placement[place]) < PLACEMENT_TOPICS:
                ev = evidence_of(f)
                self.placement[place].append({"topic": f["topic"], "present": ev["present"]})


def render_report(out: Path, summary: dict[str, Any]) -> str:
    tally = _Tally()
    for f in _jsonl(out / "findings.jsonl"):
        tally.add(f)
    try:
        plan = tomllib.loads((out / "plan.toml").read_text(encoding="utf-8")).get("fix", [])
    except FileNotFoundError:
        plan = []
    gone: dict[str, list[dict[str, Any]]] = {"resolved": [], "unverified": []}  # the first of each
    for f in _jsonl(out / "resolved.jsonl"):
        shown = gone.get(f.get("change") or "resolved")
        if shown is not None and len(shown) < CHANGES_SHOWN:
            shown.append(f)
    body = [
        _header(summary),
        _since(summary, tally.new, gone),
        _by_rule(summary),
        _by_cluster(tally),
        _distribution(summary, tally),
        _plan(plan, summary.get("fixes", len(plan))),
        _findings(summary, tally.first),
        _coverage(summary),
    ]
    title = f"mqadmin fleet audit: {summary.get('findings', 0):,} findings"
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{e(title)}</title><style>{CSS}</style></head>\n<body><main>\n"
        + "\n".join(b for b in body if b)
        + f"\n</main><script>{SCRIPT}</script></body></html>\n"
    )


# --- sections ----------------------------------------------------------------------------------------


def _header(summary: dict[str, Any]) -> str:
    counts: Counter[str] = Counter()
    for r in summary.get("by_rule", []):
        counts[r["severity"]] += r["count"]
    cov = summary.get("coverage", {})
    gaps = len(cov.get("failed_sources", [])) + len(cov.get("failed_brokers", []))
    cards = [
        ("findings", f"{summary.get('findings', 0):,}", ""),
        *((s, f"{counts[s]:,}", s) for s in SEVERITIES),
        ("fixes in the plan", f"{summary.get('fixes', 0):,}", ""),
        ("topic rows audited", f"{cov.get('rows', {}).get('topics', 0):,}", ""),
        ("not collected", f"{gaps:,}", "gap" if gaps else ""),
    ]
    exports = ", ".join(
        f"{e(x.get('created_at'))} ({e(x.get('status'))}, {x.get('sources', 0)} sources)"
        for x in cov.get("exports", [])
    )
    choice = summary.get("engine_choice") or {}
    engine = e(summary.get("engine")) + (f" ({e(choice['reason'])})" if choice.get("reason") else "")
    run = (
        '<dl id="run">'
        f"<dt>audited</dt><dd>{e(summary.get('generated_at'))}</dd>"
        f"<dt>engine</dt><dd>{engine}, {e(summary.get('elapsed_s'))} s</dd>"
        "</dl>"
    )
    params = summary.get("params", {})
    return (
        "<header><h1>Fleet audit</h1>"
        f'<dl class="meta"><dt>exported</dt><dd>{exports or "unknown"}</dd>'
        f"<dt>inputs</dt><dd>{'<br>'.join(e(p) for p in summary.get('inputs', []))}</dd>"
        f"<dt>parameters</dt><dd>lag threshold {e(params.get('lag_threshold'))}, skew factor "
        f"{e(params.get('skew_factor'))}, skew min {e(params.get('skew_min'))}</dd></dl>{run}</header>\n"
        '<section class="cards">'
        + "".join(f'<div class="card {c}"><b>{v}</b><span>{e(k)}</span></div>' for k, v, c in cards)
        + "</section>"
    )


def _since(summary: dict[str, Any], new: list[dict[str, Any]], gone: dict[str, list[dict[str, Any]]]) -> str:
    """The "Since last audit" section: counts by change and rule, the first new, resolved and unverified findings
    (``gone``: the baseline's findings not found, by change)."""
    base = summary.get("baseline")
    if not base:
        return ""
    rows = "".join(
        f"<tr><td><code>{e(rule)}</code></td>{_sev(RULES[rule][0])}"
        + "".join(f"<td class=n>{c.get(k, 0):,}</td>" for k in CHANGES)
        + "</tr>"
        for rule, c in sorted(base.get("by_rule", {}).items(), key=lambda kv: (SEVERITY_RANK[RULES[kv[0]][0]], kv[0]))
    )
    parts = [
        '<section id="since"><h2>Since last audit</h2>',
        f"<p>Compared with the audit of {e(base.get('generated_at') or 'unknown date')} "
        f"(<code>{e(base.get('path'))}</code>): "
        f'<span class="chg new">{base["new"]:,} new</span> '
        f'<span class="chg unchanged">{base["unchanged"]:,} unchanged</span> '
        f'<span class="chg resolved">{base["resolved"]:,} resolved</span> '
        f'<span class="chg unverified">{base.get("unverified", 0):,} unverified</span></p>',
    ]
    if base.get("unverified"):
        parts.append(
            "<p class=warn>Unverified: findings of the last audit not found this time where this audit could not "
            "look (a source or a broker of their cluster not read, their cluster not in the inputs, or no order "
            "configs for an order rule; see the coverage). They are not counted as resolved.</p>"
        )
    if rows:
        parts.append(
            "<table><thead><tr><th>rule</th><th>severity</th>"
            + "".join(f"<th class=n>{k}</th>" for k in CHANGES)
            + f"</tr></thead><tbody>{rows}</tbody></table>"
        )
    for label, items, total in (
        ("New", new, base["new"]),
        ("Resolved", gone["resolved"], base["resolved"]),
        ("Unverified", gone["unverified"], base.get("unverified", 0)),
    ):
        if items:
            parts.append(f"<h3>{label}{_first_of(len(items), total)}</h3>{_finding_table(items, False)}")
    parts.append("</section>")
    return "".join(parts)


def _by_rule(summary: dict[str, Any]) -> str:
    rules = summary.get("by_rule", [])
    bars = [(r["rule"], [(r["severity"], r["count"])]) for r in rules if r["count"]]
    rows = "".join(
        f"<tr><td><code>{e(r['rule'])}</code></td>{_sev(r['severity'])}<td class=n>{r['count']:,}</td>"
        f"<td>{e(r['description'])}</td></tr>"
        for r in rules
    )
    chart = _bar_chart(bars, "findings by rule") if bars else "<p>No findings.</p>"
    return (
        '<section id="rules"><h2>Findings by rule and severity</h2>'
        f"{chart}<table><thead><tr><th>rule</th><th>severity</th><th class=n>count</th><th>what</th></tr></thead>"
        f"<tbody>{rows}</tbody></table></section>"
    )


def _by_cluster(tally: _Tally) -> str:
    if not tally.by_cluster:
        return ""
    ranked = sorted(tally.by_cluster.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))
    bars = [(f"{s} / {c}", [(sev, n[sev]) for sev in SEVERITIES]) for (s, c), n in ranked[:CLUSTERS_CHARTED]]
    more = len(ranked) - len(bars)
    note = f"<p class=note>{more:,} more clusters with fewer findings are not charted.</p>" if more > 0 else ""
    return (
        f'<section id="clusters"><h2>Findings by cluster</h2>{_legend()}'
        f"{_bar_chart(bars, 'findings by cluster')}{note}</section>"
    )


def _distribution(summary: dict[str, Any], tally: _Tally) -> str:
    per: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for b in summary.get("brokers", []):
        per[(b["source"], b["cluster"])].append(b)
    if not per:
        return ""
    ranked = sorted(per, key=lambda p: (-sum(tally.by_cluster[p].values()), p))
    parts = [
        '<section id="brokers"><h2>Per-broker distribution</h2>'
        "<p class=note>Clusters with a placement or skew finding: topics and write queues per master. A topic "
        "created by the auto-create trap lives on the one broker a send reached; the grid shows where each "
        "such topic is (&#9679;) and is not (&#10005;). Grey: a master without write permission.</p>"
    ]
    for place in ranked[:DISTRIBUTION_CLUSTERS]:
        brokers = per[place]
        parts.append(f"<h3>{e(place[0])} / {e(place[1])}</h3><div class=pair>")
        for key, label in (("topics", "topics per broker"), ("write_queues", "write queues per broker")):
            parts.append(_column_chart([(b["broker"], b[key], b["writable"]) for b in brokers], label))
        parts.append("</div>")
        parts.append(_placement_grid(place, [b["broker"] for b in brokers], tally))
    if len(ranked) > DISTRIBUTION_CLUSTERS:
        parts.append(f"<p class=note>{len(ranked) - DISTRIBUTION_CLUSTERS:,} more clusters: see summary.json.</p>")
    parts.append("</section>")
    return "".join(parts)


def _placement_grid(place: tuple[str, str], brokers: list[str], tally: _Tally) -> str:
    topics = tally.placement.get(place)
    if not topics:
        return ""
    head = "".join(f"<th>{e(b)}</th>" for b in brokers)
    rows = []
    for t in topics:
        present = set(t["present"])
        cells = "".join(_ON if b in present else _OFF for b in brokers)
        rows.append(f"<tr><th class=topic>{e(t['topic'])}</th>{cells}</tr>")
    total = tally.placement_count[place]
    return (
        f"<h4>Topics missing on some masters{_first_of(len(topics), total)}</h4>"
        f'<table class="grid"><thead><tr><th>topic</th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    )


_ON = '<td class="on" title="present">&#9679;</td>'
_OFF = '<td class="off" title="missing">&#10005;</td>'


def _plan(plan: list[dict[str, Any]], total: int) -> str:
    if not plan:
        return '<section id="plan"><h2>Remediation plan</h2><p>Nothing to fix by placement.</p></section>'
    shown = plan[:COMMANDS_SHOWN]
    script = "\n".join(f["command"] for f in shown)
    rows = []
    for f in shown:
        warning = f'<p class="warn">{e(f["warning"])}</p>' if f.get("warning") else ""
        rows.append(
            f"<tr><td>{e(f['source'])} / {e(f['cluster'])}</td><td class=subject>{e(f['topic'])}</td>"
            f"<td>{'<br>'.join(e(r) for r in f['fixes'])}</td><td><code>{e(f['command'])}</code>{warning}</td></tr>"
        )
    return (
        f'<section id="plan"><h2>Remediation plan{_first_of(len(shown), total)}</h2>'
        "<p class=note>Each command creates the topic on every master of its cluster with the largest queue count "
        "seen (plan.toml holds them all). Review, then run.</p>"
        f'<details><summary>All {len(shown):,} commands as one script</summary><button type="button" class="copy" '
        f'data-target="all-commands">Copy</button><pre id="all-commands"><code>{e(script)}</code></pre></details>'
        '<table class="plan"><thead><tr><th>source / cluster</th><th>topic</th><th>fixes</th><th>command</th></tr>'
        f"</thead><tbody>{''.join(rows)}</tbody></table></section>"
    )


def _findings(summary: dict[str, Any], first: list[dict[str, Any]]) -> str:
    if not first:
        return ""
    with_change = summary.get("baseline") is not None
    title = f"Findings{_first_of(len(first), summary.get('findings', len(first)))}"
    return f'<section id="findings"><h2>{title}</h2>{_finding_table(first, with_change)}</section>'


def _coverage(summary: dict[str, Any]) -> str:
    cov = summary.get("coverage", {})
    rows = ", ".join(f"{e(t)} {n:,}" for t, n in cov.get("rows", {}).items())
    parts = [f'<section id="coverage"><h2>Export coverage</h2><p>Rows read: {rows or "none"}.</p>']
    gaps = [
        *(("source", s["source"], "", "", s.get("reason")) for s in cov.get("failed_sources", [])),
        *(("master", b["source"], b["cluster"], b["broker"], b.get("reason")) for b in cov.get("failed_brokers", [])),
    ]
    if gaps:
        parts.append(
            "<p>Not collected, so not judged (a missing topic there is not reported):</p><table><thead><tr>"
            "<th>what</th><th>source</th><th>cluster</th><th>broker</th><th>reason</th></tr></thead><tbody>"
            + "".join(f"<tr class=gap>{''.join(f'<td>{e(x)}</td>' for x in g)}</tr>" for g in gaps)
            + "</tbody></table>"
        )
    else:
        parts.append("<p>Every source and master was read.</p>")
    no_conf = cov.get("sources_without_order_conf", [])
    if no_conf:
        parts.append(f"<p>Order configs not read (order rules skipped): {', '.join(e(s) for s in no_conf)}.</p>")
    parts.append("</section>")
    return "".join(parts)


# --- pieces --------------------------------------------------------------------------------------------


def _first_of(shown: int, total: int) -> str:
    return f" (first {shown:,} of {total:,})" if total > shown else ""


def _sev(severity: str) -> str:
    return f'<td><span class="sev {e(severity)}">{e(severity)}</span></td>'


def _finding_table(findings: list[dict[str, Any]], with_change: bool) -> str:
    head = "<th>severity</th><th>rule</th><th>source</th><th>cluster</th><th>subject</th><th>message</th>"
    rows = []
    for f in findings:
        subject = f["topic"] or f["broker"] or f["group"]
        change = f'<td><span class="chg {e(f.get("change"))}">{e(f.get("change"))}</span></td>' if with_change else ""
        rows.append(
            f"<tr>{_sev(f['severity'])}<td><code>{e(f['rule'])}</code></td><td>{e(f['source'])}</td>"
            f"<td>{e(f['cluster'])}</td><td class=subject>{e(subject)}</td><td>{e(f['message'])}</td>{change}</tr>"
        )
    return (
        f'<table class="findings"><thead><tr>{head}{"<th>since last</th>" if with_change else ""}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _legend() -> str:
    return '<p class="legend">' + "".join(f'<span class="sev {s}">{s}</span> ' for s in SEVERITIES) + "</p>"


def _svg_open(cls: str, label: str, width: int, height: int) -> str:
    return (
        f'<svg class="{cls}" role="img" aria-label="{e(label)}" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" xmlns="http://www.w3.org/2000/svg">'
    )


def _bar_chart(bars: list[tuple[str, list[tuple[str, int]]]], label: str) -> str:
    """Horizontal bars, one per label, each stacked by severity."""
    row, label_w, width, count_w = 22, 300, 820, 60
    top = max((sum(n for _, n in parts) for _, parts in bars), default=0) or 1
    span = width - label_w - count_w
    height = row * len(bars) + 4
    out = [_svg_open("chart", label, width, height)]
    for i, (name, parts) in enumerate(bars):
        y = i * row + 2
        shown = name if len(name) <= 40 else name[:39] + "\u2026"
        out.append(f'<text x="{label_w - 8}" y="{y + 15}" text-anchor="end"><title>{e(name)}</title>{e(shown)}</text>')
        x = float(label_w)
        for severity, n in parts:
            if n <= 0:
                continue
            w = max(n / top * span, 1.5)
            out.append(
                f'<rect x="{x:.1f}" y="{y + 3}" width="{w:.1f}" height="{row - 6}" fill="{COLOURS[severity]}">'
                f"<title>{e(name)}: {n:,} {e(severity)}</title></rect>"
            )
            x += w
        total = sum(n for _, n in parts)
        out.append(f'<text x="{x + 6:.1f}" y="{y + 15}" class="count">{total:,}</text>')
    out.append("</svg>")
    return "".join(out)


def _column_chart(values: list[tuple[str, int, bool]], label: str) -> str:
    """Vertical bars per broker with the cluster's median as a dashed line."""
    width, height, base, top_pad = 380, 200, 160, 36
    n = max(len(values), 1)
    slot = (width - 20) / n
    top = max((v for _, v, _ in values), default=0) or 1
    ordered = sorted(v for _, v, _ in values)
    mid = len(ordered) // 2
    median = (ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2) if ordered else 0
    scale = (base - top_pad) / top
    out = [
        _svg_open("chart col", label, width, height),
        f'<text x="10" y="14" class="title">{e(label)}</text>',
        f'<text x="{width - 10}" y="14" text-anchor="end" class="median-label">- - median {median:g}</text>',
    ]
    for i, (name, v, writable) in enumerate(values):
        x = 10 + i * slot
        h = v * scale
        bar_w = max(slot * 0.7, 1)
        fill = "#5b7fa6" if writable else "#b8bec6"
        out.append(
            f'<rect x="{x + slot * 0.15:.1f}" y="{base - h:.1f}" width="{bar_w:.1f}" height="{h:.1f}" fill="{fill}">'
            f"<title>{e(name)}: {v:,}{'' if writable else ' (not writable)'}</title></rect>"
        )
        if n <= 16:
            cx = x + slot / 2
            out.append(f'<text x="{cx:.1f}" y="{base - h - 4:.1f}" text-anchor="middle" class="count">{v:,}</text>')
            short = name if len(name) <= 12 else name[:11] + "\u2026"
            out.append(f'<text x="{cx:.1f}" y="{base + 14}" text-anchor="middle">{e(short)}</text>')
    y = base - median * scale
    out.append(
        f'<line x1="10" x2="{width - 10}" y1="{y:.1f}" y2="{y:.1f}" class="median">'
        f"<title>median {median:g}</title></line>"
        f'<line x1="10" x2="{width - 10}" y1="{base}" y2="{base}" class="axis"/></svg>'
    )
    return "".join(out)


CSS = """
:root{--fg:#1d2430;--muted:#5d6776;--line:#dde2e8;--bg:#f6f7f9}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,
"Helvetica Neue",Arial,sans-serif}
main{max-width:1100px;margin:0 auto;padding:24px 28px 48px}
h1{font-size:26px;margin:0 0 8px}h2{font-size:19px;margin:0 0 12px}h3{font-size:15px;margin:18px 0 8px}
h4{font-size:13px;margin:12px 0 6px;color:var(--muted)}
section{background:#fff;border:1px solid var(--line);border-radius:8px;padding:18px 20px;margin:16px 0}
header{display:flex;flex-wrap:wrap;justify-content:space-between;gap:8px 32px;align-items:flex-start}
header h1{flex-basis:100%}
dl{display:grid;grid-template-columns:auto 1fr;gap:2px 12px;margin:0;color:var(--muted)}
dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}
.cards{display:flex;flex-wrap:wrap;gap:10px;background:none;border:0;padding:0}
.card{flex:1 1 120px;background:#fff;border:1px solid var(--line);border-radius:8px;padding:10px 14px;
border-top:4px solid #8a94a3}
.card b{display:block;font-size:24px}.card span{color:var(--muted)}
.card.high{border-top-color:#c62828}.card.medium{border-top-color:#ef8a17}.card.low{border-top-color:#3b7dd8}
.card.gap{border-top-color:#7b1fa2}
table{border-collapse:collapse;width:100%;margin:8px 0}
th,td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.03em}
td.n{text-align:right;font-variant-numeric:tabular-nums}
td.subject,th.topic{overflow-wrap:anywhere;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
font-size:13px;text-transform:none;letter-spacing:0;color:var(--fg);font-weight:normal}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
pre{background:#f1f3f6;border:1px solid var(--line);border-radius:6px;padding:8px 10px;overflow-x:auto;
white-space:pre-wrap;overflow-wrap:anywhere;margin:6px 0 0}
.sev{display:inline-block;padding:1px 8px;border-radius:10px;color:#fff;font-size:12px;font-weight:600}
.sev.high{background:#c62828}.sev.medium{background:#ef8a17}.sev.low{background:#3b7dd8}
.chg{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600;margin-right:6px}
.chg.new{background:#fde2e1;color:#a01818}.chg.unchanged{background:#eceff3;color:#4a5361}
.chg.resolved{background:#dcf3e3;color:#1b6e37}.chg.unverified{background:#fff4d6;color:#7a5a00}
.note,.legend{color:var(--muted)}
svg.chart{display:block;max-width:100%;height:auto;margin:8px 0}
svg text{font:12px system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;fill:#1d2430}
svg text.count,svg text.median-label{fill:#5d6776;font-size:11px}svg text.title{font-weight:600}
svg line.median{stroke:#c62828;stroke-dasharray:5 4;stroke-width:1.2}svg line.axis{stroke:#9aa3ae}
.pair{display:flex;flex-wrap:wrap;gap:12px}
table.grid{width:auto}table.grid th{text-transform:none;letter-spacing:0;white-space:nowrap}
table.grid td{text-align:center;min-width:48px}
table.grid td.on{color:#2e7d32;background:#e8f5e9}table.grid td.off{color:#c62828;background:#fdecea}
table.plan code{display:block;white-space:pre-wrap;overflow-wrap:anywhere;background:#f1f3f6;padding:3px 6px;
border-radius:4px;user-select:all}
table.plan td,table.findings td{overflow-wrap:anywhere}
table.plan td:first-child{max-width:200px}table.plan td:nth-child(4){min-width:420px}
table.findings td:nth-child(4){max-width:180px}table.findings td:nth-child(6){min-width:300px}
td.subject{max-width:220px}th.n{text-align:right}
table.findings td:nth-child(2),table.plan td:nth-child(3),.sev,.chg{white-space:nowrap;overflow-wrap:normal}
.warn{color:#a01818;margin:4px 0}
details{margin:8px 0 14px}summary{cursor:pointer;font-weight:600}
button.copy{float:right;margin:6px 0 0 8px;font:inherit;font-size:12px;padding:3px 10px;border:1px solid var(--line);
border-radius:5px;background:#fff;cursor:pointer}
tr.gap td{color:#7b1fa2}
@media print{body{background:#fff}section{break-inside:avoid;border:0}}
"""

SCRIPT = """
document.querySelectorAll("button.copy").forEach(function (b) {
  b.addEventListener("click", function () {
    var text = document.getElementById(b.dataset.target).textContent;
    if (navigator.clipboard) {
      navigator.clipboard.writeText(text).then(function () { b.textContent = "Copied"; }, function () {});
    }
  });
});
"""
