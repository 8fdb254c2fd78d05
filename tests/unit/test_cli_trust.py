"""What an operator hits on day one: 80-column terminals, data with escape sequences, options typed in
any order and case, bad addresses, Ctrl-C and closed pipes."""

from __future__ import annotations

import io
import re
import signal
import subprocess
import sys

import pytest

from mqadmin.cli import render
from mqadmin.model.rpc import brokers, namesrv, topics
from mqadmin.model.rpc.spec import Decoded
from mqadmin.wire.codes import ResponseCode
from tests.mock_transport import Answer, MockTransport, cluster_info, ok, refuse, unsupported
from tests.unit.cli_helpers import A, B, Cli, assert_one_line_error, default_sigint, scripted

NS = "127.0.0.1:9876"


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def tty80(monkeypatch: pytest.MonkeyPatch) -> Tty:
    """stdout becomes an 80-column terminal (installed in the test body: pytest resets stdout after fixtures)."""
    out = Tty()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setattr(render, "terminal_width", lambda: 80)
    return out


def test_cluster_list_at_80_columns_keeps_every_value_whole(monkeypatch, capsys) -> None:
    names = "broker-with-a-rather-long-name-0001", "broker-with-a-rather-long-name-0002"
    info = cluster_info((names[0], 0, A), (names[1], 0, B))
    runtime = {
        "brokerVersionDesc": "V5_3_3_WITH_A_LONG_SUFFIX",
        "putTps": "12.5 11.0 10.0",
        "getTransferredTps": "3.25",
    }
    answers = {namesrv.GET_BROKER_CLUSTER_INFO: ok(info), brokers.GET_BROKER_RUNTIME_INFO: ok(runtime)}
    cli = scripted(monkeypatch, capsys, answers)
    out = tty80(monkeypatch)
    cli("clusterList")
    text = out.getvalue()
    assert all(len(line) <= 80 for line in text.splitlines()), text
    for value in (*names, A, B, "V5_3_3_WITH_A_LONG_SUFFIX", "master", "DefaultCluster"):
        assert value in text, (value, text)
    assert "BID" in text and "ROLE" in text


def test_a_table_that_fits_is_drawn_with_a_box(monkeypatch) -> None:
    out = tty80(monkeypatch)
    render.print_table([render.Column("BROKER"), render.Column("RESULT", styled=True)], [("broker-a", "created")])
    assert "─" in out.getvalue() and "broker-a" in out.getvalue()


def strip_ansi(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def test_a_text_column_wraps_inside_its_cell_and_ids_stay_whole(monkeypatch) -> None:
    out = tty80(monkeypatch)
    reason = "the broker did not answer within 5 s: " + " ".join(f"word{i}" for i in range(30))
    topic = "Orders-" + "x" * 30
    cols = [render.Column("TOPIC"), render.Column("BROKER"), render.Column("RESULT", styled=True), render.Column("WHY")]
    render.print_table(cols, [(topic, "broker-a", "failed", reason), ("Short", "broker-b", "created", "")])
    lines = strip_ansi(out.getvalue()).splitlines()
    assert "─" in out.getvalue() and all(len(line) <= 80 for line in lines)  # one box, within the width
    assert sum(topic in line for line in lines) == 1 and sum("broker-a" in line for line in lines) == 1
    cells = [line.split("│")[4] for line in lines if line.count("│") == 5]  # the body rows' WHY cells
    assert " ".join(cells).split() == reason.split()  # every word of the reason, in order, in its own cell


def test_record_blocks_show_whole_values() -> None:
    cols = [render.Column("ID"), render.Column("STATUS")]
    assert render.record_blocks(cols, [["x" * 100, "SEND_OK"], ["y", "FLUSH_DISK_TIMEOUT"]]) == (
        f"ID      {'x' * 100}\nSTATUS  SEND_OK\n\nID      y\nSTATUS  FLUSH_DISK_TIMEOUT\n"
    )


def test_a_title_is_never_folded_to_the_tables_width(monkeypatch) -> None:
    out = tty80(monkeypatch)
    monkeypatch.setattr(render, "terminal_width", lambda: 60)
    title = "Route of " + "Orders_" + "q" * 45
    render.print_table([render.Column("BROKER"), render.Column("QUEUES", numeric=True)], [("broker-a", 8)], title)
    assert out.getvalue().splitlines()[0] == title and "─" in out.getvalue()


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),
        ("a\nb\tc\r", "a\\nb\\tc\\r"),
        ("\x07\x00\x7f\x9b", "\\x07\\x00\\x7f\\x9b"),
        ("abc\u202edef", "abc\\u202edef"),
        ("héllo ✓", "héllo ✓"),
    ],
)
def test_escape_shows_control_characters(raw: str, shown: str) -> None:
    assert render.escape(raw) == shown


def test_cells_notes_and_errors_are_escaped(monkeypatch, capsys) -> None:
    evil = refuse(ResponseCode.SYSTEM_ERROR, "disk \x1b]0;pwned\x07 full")
    cli = scripted(monkeypatch, capsys, {topics.GET_TOPIC_CONFIG: evil})
    r = cli("updateTopic", "-c", "DefaultCluster", "-t", "T")
    assert "\x1b" not in r.out and "\x1b" not in r.err
    assert "\\x1b]0;pwned\\x07" in r.out


def test_global_options_after_the_command_and_any_case(monkeypatch, capsys) -> None:
    cli = scripted(monkeypatch, capsys, {namesrv.GET_ALL_TOPIC_LIST_FROM_NAMESERVER: ok(["Zeta"])})
    assert cli("topiclist", "--format", "json").json() == {"topics": ["Zeta"]}
    assert cli("TOPICLIST").out == "Zeta\n"
    assert cli("--format", "json", "topicList").json() == {"topics": ["Zeta"]}
    assert cli("topicList").out == "Zeta\n"  # a later run starts from the defaults again


def test_help_command_and_help_with_examples(monkeypatch, capsys) -> None:
    cli = scripted(monkeypatch, capsys, {})
    shown = cli("help", "updatetopic").out
    assert "Examples:" in shown and "mqadmin updateTopic -c DefaultCluster -t Orders" in shown
    assert "<int range>" not in shown and "--if-not-exists" in shown
    assert shown.startswith(cli("updateTopic", "--help").out)  # then the fields of its JSON document
    assert "JSON document (--format json; contract" in shown and "results[].config.readQueueNums" in shown
    unknown = cli("help", "nosuch")
    assert unknown.code == 2
    assert_one_line_error(unknown, "No such command 'nosuch'.")


@pytest.mark.parametrize(
    ("addr", "fragment"),
    [
        ("127.0.0.1:99999", "outside 1..65535"),
        ("127.0.0.1", "no port given"),
        ("127.0.0.1:9876,127.0.0.1:9877", "separated by ';'"),
        ("127.0.0.1:-5", "not a number"),
    ],
)
def test_bad_name_server_addresses_are_usage_errors(monkeypatch, capsys, addr: str, fragment: str) -> None:
    r = scripted(monkeypatch, capsys, {})("topicList", "-n", addr)
    assert r.code == 2
    assert_one_line_error(r, fragment, "-n takes")


@pytest.mark.parametrize("value", ["nan", "inf", "0", "-1", "abc", "4000"])
def test_bad_timeouts_are_usage_errors(monkeypatch, capsys, value: str) -> None:
    r = scripted(monkeypatch, capsys, {})("topicList", "--timeout", value)
    assert r.code == 2
    assert_one_line_error(r, value)


def test_a_broker_given_to_n_and_a_name_server_given_to_b_are_named(monkeypatch, capsys) -> None:
    info = ok(cluster_info(("broker-a", 0, A), ("broker-b", 0, B)))

    def handler(req: Decoded[None, None], addr: str) -> Answer:  # a broker serves no name-server request
        return info if addr == NS and req.cmd.code == namesrv.GET_BROKER_CLUSTER_INFO.code else unsupported(req)

    cli = Cli(monkeypatch, capsys, namesrvs=[NS], transport=MockTransport(handler))
    r = cli("topicList", "-n", A)
    assert r.code == 1
    assert_one_line_error(r, "is it a broker? -n takes a name server")
    r = cli("updateTopic", "-b", NS, "-t", "T")
    assert r.code == 2
    assert_one_line_error(r, "is a name server", "-b takes a broker address")
    r = cli("updateTopic", "-b", "127.0.0.1", "-t", "T")
    assert r.code == 2
    assert_one_line_error(r, "bad broker address")


def test_a_topic_name_ending_in_a_newline_is_refused(monkeypatch, capsys) -> None:
    r = scripted(monkeypatch, capsys, {})("updateTopic", "-c", "DefaultCluster", "-t", "abc\n")
    assert r.code == 2
    assert_one_line_error(r, "illegal characters")


def test_send_message_body_from_stdin_file_and_empty(monkeypatch, capsys, tmp_path) -> None:
    cli = scripted(monkeypatch, capsys, {})
    empty = cli("sendMessage", "-t", "T", "-p", "")
    assert empty.code == 2
    assert_one_line_error(empty, "is empty")
    missing = cli("sendMessage", "-t", "T", "-p", f"@{tmp_path / 'nope'}")
    assert missing.code == 2
    assert_one_line_error(missing, "cannot read the body file")


def _mqadmin(*args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "mqadmin", *args], **kw)


def test_a_closed_pipe_exits_quietly() -> None:
    p = _mqadmin("help", "updateTopic", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()  # the reader goes away before anything is written (as `| head -0`)
    err = p.stderr.read().decode()
    assert p.wait(30) == 141
    assert err == ""


def test_ctrl_c_exits_130_without_a_traceback(tmp_path) -> None:
    # A name server that accepts but never answers keeps the command waiting; then Ctrl-C.
    import socket

    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen()
        addr = f"127.0.0.1:{srv.getsockname()[1]}"
        p = _mqadmin(
            "topicList", "-n", addr, "--timeout", "60", stderr=subprocess.PIPE, stdout=subprocess.PIPE,
            preexec_fn=default_sigint,
        )  # fmt: skip
        conn, _ = srv.accept()  # the command is connected and waiting for its answer
        assert conn.recv(4096), "the command closed its connection before Ctrl-C"
        p.send_signal(signal.SIGINT)
        err = p.stderr.read().decode()
        assert p.wait(30) == 130, err
        conn.close()
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
