"""Topic and group names: Apache RocketMQ's rules, in one place for the CLI, the admin client and both servers.

The rules (``TopicValidator`` and the client's ``Validators``, 4.9 to 5.3, and the limits the
development branch adds so that every derived name stays a valid file name):

* characters: only ``[%|a-zA-Z0-9_-]``, checked against the *whole* name (``abc\\n`` is refused:
  a ``$`` in a regex would match before a final newline);
* a topic holds at most 127 characters; a retry or dead-letter topic (``%RETRY%…``, ``%DLQ%…``) at
  most 255, and a ``%RETRY%`` topic may contain one ``+`` (5.x POP retry topics
  ``%RETRY%<group>+<topic>``); a group at most 120, so that ``%RETRY%<group>`` and
  ``%DLQ%<group>`` stay within 255 characters, the longest file name most file systems allow;
* reserved topics: the system topics and the ``rmq_sys_`` prefix (a broker refuses to create or
  delete them), and the topics no client may send to.

Since ``.``, ``/``, ``\\`` and NUL are not allowed, a valid name is always a safe single path
component (never ``.`` or ``..``).

``topic_problem`` / ``group_problem`` give a one-line explanation for people (CLI, admin client);
``topic_refusal`` / ``group_refusal`` give the response code and remark a server answers
(INVALID_PARAMETER, as Apache 5.3.2+ does, with Apache's remarks, which never echo the name).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import StrEnum
from typing import NamedTuple

from mqadmin.wire.codes import ResponseCode

TOPIC_MAX_LENGTH = 127
GROUP_MAX_LENGTH = 120
CLIENT_GROUP_MAX_LENGTH = 255
"""Java clients' limit (Validators.CHARACTER_MAX_LENGTH); brokers before 5.5 accepted such groups."""
RETRY_OR_DLQ_TOPIC_MAX_LENGTH = 255
RETRY_PREFIX = "%RETRY%"
DLQ_PREFIX = "%DLQ%"
POP_RETRY_SEPARATOR = "+"
"""5.x POP retry topics: ``%RETRY%<group>+<topic>`` (KeyBuilder.buildPopRetryTopicV2)."""

ALLOWED = "^[%|a-zA-Z0-9_-]+$"
"""Apache's description of the character set, quoted in every refusal."""
_LEGAL = re.compile(r"[%|a-zA-Z0-9_-]+")
_ILLEGAL_CHAR = re.compile(r"[^%|a-zA-Z0-9_-]")

SYSTEM_TOPICS = frozenset(
    {
        "TBW102", "SCHEDULE_TOPIC_XXXX", "BenchmarkTest", "RMQ_SYS_TRANS_HALF_TOPIC",
        "RMQ_SYS_TRACE_TOPIC", "RMQ_SYS_TRANS_OP_HALF_TOPIC", "TRANS_CHECK_MAX_TIME_TOPIC",
        "SELF_TEST_TOPIC", "OFFSET_MOVED_EVENT", "CHECKPOINT_TOPIC",
        "RMQ_SYS_ROCKSDB_TRANS_HALF_TOPIC", "RMQ_SYS_ROCKSDB_TRANS_OP_HALF_TOPIC",
    }
)  # fmt: skip
SYSTEM_TOPIC_PREFIX = "rmq_sys_"

NOT_ALLOWED_SEND_TOPICS = frozenset(
    {
        "SCHEDULE_TOPIC_XXXX", "RMQ_SYS_TRANS_HALF_TOPIC", "RMQ_SYS_TRANS_OP_HALF_TOPIC",
        "TRANS_CHECK_MAX_TIME_TOPIC", "SELF_TEST_TOPIC", "OFFSET_MOVED_EVENT",
    }
)  # fmt: skip

_SHOWN = 48
"""Characters of a bad name quoted in a problem text (a refused name may be megabytes long)."""


class NameKind(StrEnum):
    TOPIC = "topic"
    GROUP = "group"


class Refusal(NamedTuple):  # not a frozen dataclass: 10x cheaper to define (start-up)
    """Why a server refuses a request (an illegal name, a malformed field): Apache's response code and remark."""

    code: int
    remark: str


def is_system_topic(topic: str) -> bool:
    return topic in SYSTEM_TOPICS or topic.startswith(SYSTEM_TOPIC_PREFIX)


def is_retry_or_dlq_topic(topic: str) -> bool:
    return topic.startswith((RETRY_PREFIX, DLQ_PREFIX))


def max_length(kind: NameKind, name: str) -> int:
    if kind is NameKind.GROUP:
        return GROUP_MAX_LENGTH
    return RETRY_OR_DLQ_TOPIC_MAX_LENGTH if is_retry_or_dlq_topic(name) else TOPIC_MAX_LENGTH


def _legal_chars(kind: NameKind, name: str) -> bool:
    if _LEGAL.fullmatch(name):
        return True
    if kind is NameKind.TOPIC and name.startswith(RETRY_PREFIX):
        group, sep, topic = name[len(RETRY_PREFIX) :].partition(POP_RETRY_SEPARATOR)
        return bool(sep) and _LEGAL.fullmatch(group) is not None and _LEGAL.fullmatch(topic) is not None
    return False


def _first_illegal(name: str) -> tuple[int, str]:
    m = _ILLEGAL_CHAR.search(name)
    return (m.start(), m.group()) if m else (0, "")


def clipped(text: str) -> str:
    """Client input for a remark, unquoted (as Apache words its remarks): itself when short, else its first few
    dozen characters and its length, so a megabyte of input never comes back."""
    return text if len(text) <= _SHOWN else f"{text[:_SHOWN]}… ({len(text)} characters)"


def shown(name: str) -> str:
    """A bad name quoted for a message: ``repr`` (so control characters and lone surrogates are
    escaped and the text is always printable and encodable), cut after a few dozen characters."""
    if len(name) <= _SHOWN:
        return repr(name)
    return f"{name[:_SHOWN]!r}… ({len(name)} characters)"


def name_problem(kind: NameKind, name: str) -> str | None:
    """Why ``name`` is not a legal topic or group name, as one line for people; None when legal."""
    if not name.strip():
        return f"the {kind} name is blank"
    if not _legal_chars(kind, name):
        pos, ch = _first_illegal(name)
        return (
            f"the {kind} name {shown(name)} contains illegal characters ({ch!r} at position {pos}); "
            f"only {ALLOWED} is allowed"
        )
    limit = max_length(kind, name)
    if len(name) > limit:
        return f"the {kind} name is {len(name)} characters long; at most {limit} are allowed"
    return None


def topic_problem(topic: str) -> str | None:
    return name_problem(NameKind.TOPIC, topic)


def group_problem(group: str, *, creating: bool = True) -> str | None:
    """As ``name_problem`` for a group. A group that is only read or deleted may be as long as Java
    clients allow (255), so groups that older brokers accepted can still be looked at and removed."""
    if not creating and GROUP_MAX_LENGTH < len(group) <= CLIENT_GROUP_MAX_LENGTH and _LEGAL.fullmatch(group):
        return None
    return name_problem(NameKind.GROUP, group)


def name_refusal(kind: NameKind, name: str) -> Refusal | None:
    """The server's answer to an illegal name (Apache's checks in Apache's order), or None.

    Legal names are remembered (up to LEGAL_NAMES_REMEMBERED of each kind: the same few names come
    with every send and pull), so checking one again costs a set lookup."""
    legal = _REMEMBERED[kind]
    if name in legal:
        return None
    refusal = _refusal(kind, name)
    if refusal is None and len(legal) < LEGAL_NAMES_REMEMBERED:
        legal.add(name)
    return refusal


LEGAL_NAMES_REMEMBERED = 4096
_REMEMBERED: dict[NameKind, set[str]] = {NameKind.TOPIC: set(), NameKind.GROUP: set()}
_LEGAL_TOPICS, _LEGAL_GROUPS = _REMEMBERED[NameKind.TOPIC], _REMEMBERED[NameKind.GROUP]


def _refusal(kind: NameKind, name: str) -> Refusal | None:
    if not name.strip():
        remark = f"The specified {kind} is blank."
    elif not _legal_chars(kind, name):
        remark = f"The specified {kind} contains illegal characters, allowing only {ALLOWED}"
    elif len(name) > max_length(kind, name):
        remark = f"The specified {kind} is longer than {kind} max length."
    else:
        return None
    return Refusal(ResponseCode.INVALID_PARAMETER, remark)


def topic_refusal(topic: str) -> Refusal | None:
    return None if topic in _LEGAL_TOPICS else name_refusal(NameKind.TOPIC, topic)


def group_refusal(group: str) -> Refusal | None:
    return None if group in _LEGAL_GROUPS else name_refusal(NameKind.GROUP, group)


def first_refusal(names: Iterable[tuple[NameKind, str]]) -> Refusal | None:
    """The refusal of the first illegal name among those read from a body, or None."""
    for kind, name in names:
        refusal = name_refusal(kind, name)
        if refusal is not None:
            return refusal
    return None
