"""What ``mqadmin top`` highlights and how its keys change the view (mqadmin.cli.commands.cluster._top_view);
the view itself is tested in a terminal (tests/cli/test_top.py)."""

from __future__ import annotations

from mqadmin.admin.consumers import GroupSummary
from mqadmin.cli.commands.cluster._rows import BrokerRow
from mqadmin.cli.commands.cluster._top_view import Snapshot, TopState, broker_cells, group_style, snapshot_json


def broker(ratio: str = "0.5", wait: str = "0", active: str = "true", error: str | None = None, bid: int = 0):
    info = {"commitLogDiskRatio": ratio, "pageCacheLockTimeMills": wait, "brokerActive": active}
    return BrokerRow("C", "broker-a", bid, "127.0.0.1:10911", None if error else info, error)


def test_broker_rows_are_red_when_in_trouble_and_yellow_when_the_disk_fills() -> None:
    assert broker_cells(broker().to_json(False))[1] == ""
    assert broker_cells(broker(ratio="0.80").to_json(False))[1] == "yellow"
    for bad in (broker(ratio="0.93"), broker(wait="250"), broker(active="false"), broker(error="no answer")):
        cells, style = broker_cells(bad.to_json(False))
        assert style == "bold red", cells
    assert broker_cells(broker(active="false", bid=1).to_json(False))[1] == "yellow"  # an inactive slave: normal-ish
    cells, _ = broker_cells(broker(error="no answer within 2s").to_json(False))
    assert cells[-1] == "no answer within 2s" and cells[6] == "-"


def test_groups_are_red_among_the_worst_lags_when_growing_or_unconsumed() -> None:
    offline = GroupSummary("A", clients=0, lag=100)
    online = GroupSummary("B", clients=2, lag=100)
    assert group_style(offline, None, 0) == "bold red"
    assert group_style(online, 5, 1) == "bold red" and group_style(online, 0, 1) == ""
    assert group_style(online, 5, 7) == "yellow"  # growing, but not among the worst three
    assert group_style(GroupSummary("C", error="timeout"), None, 9) == "bold red"


def test_keys_sort_filter_and_quit() -> None:
    groups = [GroupSummary("Orders", lag=5, topics=["T1"]), GroupSummary("Billing", lag=9, topics=["T2"])]
    snap = Snapshot("C", 0, [], groups, {"Orders": 4, "Billing": -1})
    state = TopState()
    assert [g.group for g in state.groups(snap)] == ["Billing", "Orders"]
    assert state.key("s") and state.sort == "delta"
    assert [g.group for g in state.groups(snap)] == ["Orders", "Billing"]
    for k in "gbilx\x7f\r":  # typed, one character taken back, applied
        state.key(k)
    assert state.group == "bil" and [g.group for g in state.groups(snap)] == ["Billing"]
    for k in "tT1\r":
        state.key(k)
    assert state.groups(snap) == []  # both filters apply
    state.key("c")
    for k in "gzz\x1b":  # Esc: the filter typed is dropped
        state.key(k)
    assert (state.topic, state.group, len(state.groups(snap))) == ("", "", 2)
    assert not state.key("x") and not state.quit
    assert state.key("q") and state.quit
    doc = snapshot_json(snap, TopState(group="ord"))
    assert [(g["group"], g["lagDelta"], g["topics"]) for g in doc["groups"]] == [("Orders", 4, ["T1"])]
