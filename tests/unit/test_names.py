"""Topic and group name rules (mqadmin.model.names): Apache's character set, lengths, reserved names."""

from __future__ import annotations

import string
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from mqadmin.model.names import (
    GROUP_MAX_LENGTH,
    RETRY_OR_DLQ_TOPIC_MAX_LENGTH,
    TOPIC_MAX_LENGTH,
    NameKind,
    group_problem,
    group_refusal,
    is_system_topic,
    name_problem,
    name_refusal,
    topic_problem,
    topic_refusal,
)
from mqadmin.wire.codes import ResponseCode

LEGAL = string.ascii_letters + string.digits + "%|-_"
legal_names = st.text(alphabet=LEGAL, min_size=1, max_size=TOPIC_MAX_LENGTH)
any_text = st.text(max_size=300)


@pytest.mark.parametrize(
    "name",
    ["Orders", "a", "%RETRY%CG", "%DLQ%CG", "T|x", "x-y_z", "9", "%", "rmq_sys_x", "%RETRY%CG+Orders", "TBW102"],
)
def test_legal_topic_names(name):
    assert topic_problem(name) is None and topic_refusal(name) is None


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("", "blank"),
        ("  ", "blank"),
        ("abc\n", "'\\n' at position 3"),
        ("a b", "' ' at position 1"),
        ("..", "'.' at position 0"),
        ("/some/dir", "'/' at position 0"),
        ("x/../../etc", "'/' at position 1"),
        ("a\x00b", "'\\x00' at position 1"),
        ("\ud800", "'\\ud800' at position 0"),
        ("tópico", "'ó' at position 1"),
        ("a+b", "'+' at position 1"),
        ("%RETRY%g+t+u", "'+' at position 8"),
        ("%RETRY%+t", "'+' at position 7"),
        ("x" * 128, "128 characters long; at most 127"),
        ("%RETRY%" + "g" * 249, "256 characters long; at most 255"),
    ],
)
def test_illegal_topic_names_are_explained(name, words):
    problem = topic_problem(name)
    assert problem is not None and words in problem
    assert problem.isprintable() and problem.encode("utf-8")
    refusal = topic_refusal(name)
    assert refusal is not None and refusal.code == ResponseCode.INVALID_PARAMETER


def test_the_server_remarks_are_apaches_and_never_echo_the_name():
    assert topic_refusal(" ").remark == "The specified topic is blank."
    illegal = "contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"
    assert topic_refusal("a/b").remark == f"The specified topic {illegal}"
    assert topic_refusal("x" * 128).remark == "The specified topic is longer than topic max length."
    assert group_refusal("g\n").remark == f"The specified group {illegal}"
    assert group_refusal("g" * 121).remark == "The specified group is longer than group max length."


def test_group_limits():
    assert group_problem("g" * GROUP_MAX_LENGTH) is None
    assert "121 characters long; at most 120" in group_problem("g" * 121)
    assert topic_problem("%RETRY%" + "g" * GROUP_MAX_LENGTH) is None  # every group's retry topic is legal
    assert topic_problem("%DLQ%" + "g" * GROUP_MAX_LENGTH) is None
    assert "illegal" in group_problem("%RETRY%g+t")  # the POP separator is for retry topics only


def test_a_long_bad_name_is_quoted_short():
    problem = topic_problem("/" * 1_000_000)
    assert len(problem) < 200 and "1000000 characters" in problem


def test_system_topics():
    assert is_system_topic("TBW102") and is_system_topic("rmq_sys_anything") and is_system_topic("CHECKPOINT_TOPIC")
    assert not is_system_topic("Orders") and not is_system_topic("%RETRY%G")


@given(legal_names)
def test_every_legal_name_is_accepted_and_a_trailing_newline_is_not(name):
    assert topic_problem(name) is None and group_problem(name[:GROUP_MAX_LENGTH]) is None
    assert topic_problem(name + "\n") is not None and group_problem(name[:10] + "\n") is not None


@given(any_text, st.sampled_from(NameKind))
@example("\ud800", NameKind.TOPIC)
@example("abc\n", NameKind.GROUP)
def test_problem_and_refusal_agree_and_follow_the_rule(name, kind):
    legal_chars = all(c in LEGAL for c in name)
    limit = TOPIC_MAX_LENGTH if kind is NameKind.TOPIC else GROUP_MAX_LENGTH
    expected_ok = bool(name) and legal_chars and len(name) <= limit
    if kind is NameKind.TOPIC and name.startswith(("%RETRY%", "%DLQ%")) and legal_chars:
        expected_ok = len(name) <= RETRY_OR_DLQ_TOPIC_MAX_LENGTH
    if "+" in name:  # POP retry topics; covered by the examples above
        expected_ok = name_problem(kind, name) is None
    assert (name_problem(kind, name) is None) == expected_ok
    assert (name_refusal(kind, name) is None) == expected_ok
    refusal = name_refusal(kind, name)
    if refusal is not None:
        assert refusal.remark.isascii()  # always encodable, whatever the name held


@given(any_text)
def test_a_legal_name_is_one_safe_path_component(name):
    if topic_problem(name) is not None:
        return
    root = Path("/data/consumequeue")
    assert name not in (".", "..") and "/" not in name and "\x00" not in name
    assert (root / name).parent == root and Path(name).name == name
