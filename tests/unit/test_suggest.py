"""A mistyped command gets the nearest command names, as a mistyped option gets the nearest options."""

from __future__ import annotations

import subprocess
import sys

import pytest

from mqadmin.cli.suggest import edit_distance, nearest
from tests.unit.cli_helpers import assert_one_line_error, scripted


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("updatTopic", "'updateTopic'"),  # a letter left out
        ("UPDATETOPICC", "'updateTopic'"),  # any case, a letter too many
        ("topicLsit", "'topicList'"),  # two letters swapped: one edit
        ("consumerprogres", "'consumerProgress'"),
    ],
)
def test_a_mistyped_command_names_the_nearest_one(monkeypatch, capsys, typed: str, meant: str) -> None:
    cli = scripted(monkeypatch, capsys, {})
    for args in ([typed, "-t", "Orders"], ["help", typed]):
        r = cli(*args)
        assert r.code == 2 and r.out == ""
        assert_one_line_error(r, f"No such command '{typed}'. Did you mean {meant}?", "see: mqadmin --help")


def test_nothing_close_suggests_nothing(monkeypatch, capsys) -> None:
    r = scripted(monkeypatch, capsys, {})("xyzzy")
    assert r.code == 2
    assert_one_line_error(r, "No such command 'xyzzy'.")
    assert "Did you mean" not in r.err


def test_from_a_process() -> None:
    r = subprocess.run([sys.executable, "-m", "mqadmin", "updatTopic"], capture_output=True, text=True, check=False)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.splitlines() == [
        "mqadmin: error: No such command 'updatTopic'. Did you mean 'updateTopic'?",
        "  hint: see: mqadmin --help",
    ]


def test_edit_distance_counts_a_swap_as_one_edit() -> None:
    assert edit_distance("kitten", "sitting") == 3
    assert edit_distance("ab", "ba") == 1
    assert edit_distance("", "abc") == 3


def test_ties_are_all_named_and_far_names_are_not() -> None:
    assert nearest("getBrokerEpoc", ["getBrokerEpoch", "getBrokerConfig"]) == ["getBrokerEpoch"]
    assert nearest("topicLis", ["topicList", "topicLisp", "clusterList"]) == ["topicList", "topicLisp"]
    assert nearest("topic", ["topicList", "topicRoute"]) == []
