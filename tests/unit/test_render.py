"""Tables: styled on a terminal, plain when piped or with NO_COLOR."""

from __future__ import annotations

import io
import sys

import pytest

from mqadmin.cli import render
from mqadmin.cli.render import Column, plain_table, print_table

COLUMNS = [Column("BROKER"), Column("QUEUES", numeric=True), Column("RESULT", styled=True)]
ROWS = [("broker-a", 8, "created"), ("broker-bb", 16, "failed")]


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_plain_table_aligns_and_right_justifies_numbers() -> None:
    assert plain_table(COLUMNS, [[str(c) for c in r] for r in ROWS]) == (
        "BROKER     QUEUES  RESULT\nbroker-a        8  created\nbroker-bb      16  failed\n"
    )


def test_piped_output_is_plain(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.delenv("NO_COLOR", raising=False)
    print_table(COLUMNS, ROWS)
    assert out.getvalue().startswith("BROKER     QUEUES  RESULT\n")


def test_terminal_output_is_a_styled_table(monkeypatch: pytest.MonkeyPatch) -> None:
    out = FakeTty()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert render.styled_output()
    print_table(COLUMNS, ROWS)
    text = out.getvalue()
    assert "─" in text or "━" in text  # box drawing
    assert "\x1b[" in text  # colour
    assert "broker-bb" in text


@pytest.mark.parametrize("env", [{"NO_COLOR": "1"}, {"TERM": "dumb"}])
def test_no_color_or_dumb_terminal_is_plain_even_on_a_terminal(monkeypatch: pytest.MonkeyPatch, env) -> None:
    out = FakeTty()
    monkeypatch.setattr(sys, "stdout", out)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    print_table(COLUMNS, ROWS)
    assert "\x1b[" not in out.getvalue()
    assert out.getvalue().splitlines()[0] == "BROKER     QUEUES  RESULT"


def test_a_streamed_json_document_is_the_text_of_the_whole_one(capsys) -> None:
    """apply and plan write their items one at a time (100,000 of them are never all held as JSON): the text is
    exactly what the document with lists would print."""
    items = [{"name": "T1", "changes": {"perm": {"old": 6, "new": 4}}, "note": "é\nx"}, {"name": "T2", "nested": []}]
    whole = {"topology": "t.toml", "clusters": [{"a": 1}], "items": items, "results": [], "outcome": "ok"}
    render.print_json(whole)
    render.write_documents()  # (held until the command ends: mqadmin.cli.main)
    expected = capsys.readouterr().out
    render.print_json_stream({**whole, "items": (i for i in items), "results": iter([])})
    assert capsys.readouterr().out == expected
    render.print_json_stream({})
    assert capsys.readouterr().out == "{}\n"
