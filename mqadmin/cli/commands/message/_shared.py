"""Options and helpers shared by the message commands: times, charsets, and how a message is shown (a
JSON document, table cells, or the labelled block Java's queryMsgById prints)."""

from __future__ import annotations

import base64
import codecs
import time
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, TypedDict, TypeVar

from mqadmin.cli.declare import Option
from mqadmin.cli.errors import CliError, ExitCode, usage_error

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.admin.lookup import Consumption
    from mqadmin.admin.queries import FoundMessage
    from mqadmin.wire.message import MessageExt

T = TypeVar("T")

BrokerNameOpt = Annotated[
    str | None,
    Option(
        "-b", "--brokerName", metavar="BROKER", help="Only this broker (by name, e.g. broker-a).", show_default=False
    ),
]
QueueIdOpt = Annotated[
    int | None, Option("-i", "--queueId", min=0, metavar="N", help="Only this queue id.", show_default=False)
]
TIME_METAVAR = "MILLIS|yyyy-MM-dd#HH:mm:ss:SSS|ISO-8601"


def _time_opt(flag: str, long: str, help: str) -> Any:
    return Option(flag, long, metavar=TIME_METAVAR, help=help, show_default=False)


SinceOpt = Annotated[
    str | None, _time_opt("-s", "--beginTimestamp", "Start at the first message stored at or after this time.")
]
UntilOpt = Annotated[
    str | None, _time_opt("-e", "--endTimestamp", "Stop at the first message stored at or after this time.")
]
"""consumeMessage's and resendDlqMessage's range (Java consumeMessage's letters)."""
FromOpt = Annotated[
    str | None, _time_opt("-b", "--beginTimestamp", "From the first message stored at or after this time.")
]
ToOpt = Annotated[
    str | None, _time_opt("-e", "--endTimestamp", "Up to the first message stored at or after this time.")
]
"""printMsg's and printMsgByQueue's range."""
StoredFromOpt = Annotated[str | None, _time_opt("-b", "--beginTimestamp", "Stored at or after [0].")]
StoredToOpt = Annotated[str | None, _time_opt("-e", "--endTimestamp", "Stored at or before [no end].")]
"""A key query's range (queryMsgByKey, queryMsgTraceById)."""
ClusterOpt = Annotated[
    str | None,
    Option("-c", "--cluster", metavar="CLUSTER", help="Only brokers of this cluster.", show_default=False),
]
BodyFormatOpt = Annotated[
    str | None,
    Option("-f", "--bodyFormat", metavar="CHARSET", help="Show the whole body in this charset.", show_default=False),
]
BODY_PREVIEW = 200
BINARY_PREVIEW = 32
"""Bytes of a binary body shown in hex in a table cell."""
JAVA_TIME_FORMAT = "%Y-%m-%d#%H:%M:%S:%f"


def parse_time(value: str | None, option: str) -> int | None:
    """A time as Java's tools take it (milliseconds since the epoch, or ``yyyy-MM-dd#HH:mm:ss:SSS``), or
    ISO 8601 (``2024-05-01T10:00:00``, ``…+02:00``); local time when no zone is given. None when not given."""
    if value is None:
        return None
    text = value.strip()
    if text.lstrip("-").isdigit():
        return int(text)
    for parse in (lambda t: datetime.strptime(t, JAVA_TIME_FORMAT), datetime.fromisoformat):
        try:
            return int(parse(text).timestamp() * 1000)
        except ValueError:
            continue
    raise usage_error(
        f"{option} takes a time, not {value!r}",
        "milliseconds since the epoch, 2024-05-01#10:00:00:000 (as Java mqadmin) or 2024-05-01T10:00:00",
    )


def check_range(begin: int | None, end: int | None, begin_opt: str, end_opt: str) -> None:
    if begin is not None and end is not None and begin > end:
        raise usage_error(f"{begin_opt} is after {end_opt}", f"give a {begin_opt} time at or before {end_opt}")


def check_charset(name: str | None, option: str) -> str | None:
    """The Python codec for a charset name as Java takes it (UTF-8, GBK, ISO-8859-1); usage error if unknown."""
    if name is None:
        return None
    try:
        return codecs.lookup(name.strip()).name
    except LookupError:
        raise usage_error(f"unknown charset {name!r} for {option}", "for example UTF-8, GBK or ISO-8859-1") from None


def human_time(ms: int) -> str:
    """Java's ``UtilAll.timeMillisToHumanString2``: ``2024-05-01 10:00:00,123`` in local time."""
    t = time.localtime(ms / 1000)
    return time.strftime("%Y-%m-%d %H:%M:%S", t) + f",{ms % 1000:03d}"


def host(addr: tuple[str, int]) -> str:
    return f"[{addr[0]}]:{addr[1]}" if ":" in addr[0] else f"{addr[0]}:{addr[1]}"


# --- the message document ---------------------------------------------------------------------------


class MessageDoc(TypedDict):
    """A stored message, the same in every message command's document."""

    topic: str
    broker: Annotated[str | None, "the broker's name (null: not known)"]
    queueId: int
    queueOffset: int
    msgId: Annotated[str, "the unique key (UNIQ_KEY) a producer got, else the offset message id"]
    offsetMsgId: Annotated[str, "the broker's id: store host and commit-log offset"]
    keys: Annotated[list[str], "the KEYS property, split"]
    tags: str | None
    bornTimestamp: Annotated[int, "ms since the epoch"]
    storeTimestamp: Annotated[int, "ms since the epoch"]
    bornHost: Annotated[str, "host:port"]
    storeHost: Annotated[str, "host:port"]
    commitLogOffset: int
    sysFlag: int
    reconsumeTimes: int
    properties: Annotated[dict[str, str], "every property, sorted by name"]
    bodySize: Annotated[int, "bytes"]
    body: Annotated[str | None, "the body as bodyEncoding says (null: bodies not printed)"]
    bodyEncoding: Annotated[str | None, "utf-8, base64 (not UTF-8) or the charset given"]


class SentDoc(TypedDict):
    topic: str
    broker: str
    brokerAddr: str
    queueId: int
    queueOffset: int
    msgId: Annotated[str, "the unique key (UNIQ_KEY): Java's SendResult msgId"]
    offsetMsgId: Annotated[str, "the broker's id: store host and commit-log offset"]
    status: Annotated[str, "SEND_OK, FLUSH_DISK_TIMEOUT, FLUSH_SLAVE_TIMEOUT or SLAVE_NOT_AVAILABLE"]


class MessagesDoc(TypedDict):
    messages: list[MessageDoc]


class ConsumptionDoc(TypedDict):
    group: Annotated[str, "a group that consumes the message's topic on its broker"]
    consumerOffset: Annotated[int | None, "its committed offset in the message's queue (null: none)"]
    consumed: Annotated[bool, "whether the committed offset is past the message"]


class FoundMessageDoc(MessageDoc):
    consumers: list[ConsumptionDoc]


class FoundMessagesDoc(TypedDict):
    messages: list[FoundMessageDoc]


def found_json(found: list[tuple[FoundMessage, list[Consumption]]], codec: str | None = None) -> FoundMessagesDoc:
    """``{"messages": [...]}``: each message with the groups that consume its topic."""
    return {"messages": [found_message_json(f, cs, codec) for f, cs in found]}


def found_message_json(found: FoundMessage, consumers: list[Consumption], codec: str | None) -> FoundMessageDoc:
    """A message with the groups that consume its topic."""
    return FoundMessageDoc(
        **message_json(found.message, found.broker_name, charset=codec),
        consumers=[{"group": c.group, "consumerOffset": c.consumer_offset, "consumed": c.consumed} for c in consumers],
    )


# --- bodies --------------------------------------------------------------------------------------


def body_json(body: bytes | None, charset: str | None = None) -> dict[str, Any]:
    """``{"body": text, "bodyEncoding": "utf-8"}``; base64 for a body that is not UTF-8; decoded with
    ``charset`` (bad bytes replaced, as Java's ``new String``) when one is given; null when not shown."""
    if body is None:
        return {"body": None, "bodyEncoding": None}
    if charset is not None:
        return {"body": body.decode(charset, "replace"), "bodyEncoding": charset}
    try:
        return {"body": body.decode("utf-8"), "bodyEncoding": "utf-8"}
    except UnicodeDecodeError:
        return {"body": base64.b64encode(body).decode(), "bodyEncoding": "base64"}


def body_preview(body: bytes, charset: str | None = None, *, whole: bool = False) -> str:
    """A body for a table cell or line: text (escaped when printed; cut at 200 characters unless ``whole``),
    or for binary data its size and first bytes in hex."""
    if charset is not None:
        text = body.decode(charset, "replace")
    else:
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            head = body[:BINARY_PREVIEW].hex()
            return f"<{len(body)} bytes of binary data: {head}{'…' if len(body) > BINARY_PREVIEW else ''}>"
    return text if whole or len(text) <= BODY_PREVIEW else text[:BODY_PREVIEW] + "…"


# --- messages ------------------------------------------------------------------------------------


def message_json(m: MessageExt, broker: str | None, *, body: bool = True, charset: str | None = None) -> MessageDoc:
    """The one JSON document of a stored message, for every message command."""
    shown = body_json(m.body if body else None, charset)
    return {
        "topic": m.topic,
        "broker": broker,
        "queueId": m.queue_id,
        "queueOffset": m.queue_offset,
        "msgId": m.uniq_key or m.msg_id,
        "offsetMsgId": m.msg_id,
        "keys": m.keys,
        "tags": m.tags,
        "bornTimestamp": m.born_timestamp,
        "storeTimestamp": m.store_timestamp,
        "bornHost": host(m.born_host),
        "storeHost": host(m.store_host),
        "commitLogOffset": m.commit_log_offset,
        "sysFlag": m.sys_flag,
        "reconsumeTimes": m.reconsume_times,
        "properties": dict(sorted(m.properties.items())),
        "bodySize": len(m.body),
        "body": shown["body"],
        "bodyEncoding": shown["bodyEncoding"],
    }


def java_properties(props: dict[str, str]) -> str:
    """Properties as Java prints a map: ``{KEYS=k1, TAGS=TagA}`` (sorted here)."""
    return "{" + ", ".join(f"{k}={v}" for k, v in sorted(props.items())) + "}"


def detail_lines(m: MessageExt, broker: str | None, charset: str | None = None) -> list[tuple[str, str]]:
    """The labelled lines of Java's queryMsgById (``OffsetID:`` … ``Properties:``), then ours: the unique
    id, the broker, and the body (whole when a charset is given, as Java's -f; else a preview)."""
    return [
        ("OffsetID:", m.msg_id),
        ("Topic:", m.topic),
        ("Tags:", f"[{_java(m.tags)}]"),
        ("Keys:", f"[{_java(m.properties.get('KEYS'))}]"),
        ("Queue ID:", str(m.queue_id)),
        ("Queue Offset:", str(m.queue_offset)),
        ("CommitLog Offset:", str(m.commit_log_offset)),
        ("Reconsume Times:", str(m.reconsume_times)),
        ("Born Timestamp:", human_time(m.born_timestamp)),
        ("Store Timestamp:", human_time(m.store_timestamp)),
        ("Born Host:", host(m.born_host)),
        ("Store Host:", host(m.store_host)),
        ("System Flag:", str(m.sys_flag)),
        ("Properties:", java_properties(m.properties)),
        ("Message ID:", m.uniq_key or m.msg_id),
        ("Broker:", broker or "?"),
        ("Message Body:", body_preview(m.body, charset, whole=charset is not None)),
    ]


def _java(value: str | None) -> str:
    return "null" if value is None else value


def print_details(blocks: list[list[tuple[str, str]]]) -> None:
    """Blocks of ``Label:  value`` lines (Java's ``%-20s %s``), values escaped, a blank line between blocks."""
    import sys

    from mqadmin.cli.render import escape

    out = []
    for lines in blocks:
        out.append("".join(f"{label:<20} {escape(value)}\n" for label, value in lines))
    sys.stdout.write("\n".join(out))
    sys.stdout.flush()


# --- running -------------------------------------------------------------------------------------


def run_messaging(namesrv: str | None, fn: Callable[[AdminClient], Awaitable[T]]) -> T:
    """run_admin, with the message client's own failures as one-line errors."""
    from mqadmin.admin.messaging import NoRoute, NoSuchQueue
    from mqadmin.admin.queries import NotFound
    from mqadmin.cli.runner import run_admin
    from mqadmin.wire.message import MessageDecodeError

    try:
        return run_admin(namesrv, fn)
    except NoRoute as e:
        raise CliError(
            str(e), "create it first: mqadmin updateTopic -c <cluster> -t <topic>", ExitCode.FAILURE
        ) from None
    except NoSuchQueue as e:
        raise usage_error(str(e), "see the route with: mqadmin topicRoute -t <topic>") from None
    except NotFound as e:
        raise CliError(str(e), None, ExitCode.FAILURE) from None
    except MessageDecodeError as e:
        raise CliError(f"a broker sent a message that cannot be read: {e}", None, ExitCode.FAILURE) from None
