"""decodeMessageId: what a message id holds, read offline (no cluster needed)."""

from __future__ import annotations

from typing import Annotated, Literal, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.errors import usage_error
from mqadmin.cli.params import NamesrvOpt

PLAUSIBLE_OFFSET = 1 << 48
"""256 TiB: no commit log gets there. A unique key read as an offset id has random bits up there."""


class OffsetIdDoc(TypedDict):
    storeHost: Annotated[str, "host:port of the broker that stored it"]
    commitLogOffset: int


class UniqueKeyDoc(TypedDict):
    ip: Annotated[str, "the producer's IP"]
    pid: Annotated[int, "the producer's process id"]
    timestamp: Annotated[int, "ms since the epoch, when the id was made"]
    counter: int


class DecodedIdDoc(TypedDict):
    """One id read both ways: as an offset message id and as a unique key."""

    msgId: str
    likely: Annotated[Literal["offsetMsgId", "uniqueKey"], "which reading is plausible"]
    offsetMsgId: OffsetIdDoc
    uniqueKey: UniqueKeyDoc


class DecodedIdsDoc(TypedDict):
    messageIds: list[DecodedIdDoc]


@command(
    "decodeMessageId",
    "mqadmin decodeMessageId -i 7F0000011C2A18B4AAC27A4D0C830000",
    "mqadmin decodeMessageId -i 7F00000100002A9F0000000000000042,7F0000011C2A18B4AAC27A4D0C830000",
    document=DecodedIdsDoc,
)
def decode_message_id(
    msg_id: Annotated[str, Option("-i", "--messageId", metavar="ID[,ID…]", help="Message id(s).")],
    namesrv: NamesrvOpt = None,
) -> None:
    """Decode message ids offline: an offset message id holds the broker's store address and the
    commit-log offset; a unique key (the msgId a producer gets) holds the client's IP, process id,
    creation time and a counter.

    Both kinds are 32 hex digits (56 with IPv6 addresses): an offset id holds a port (1-65535) and a
    commit-log offset below 2^48 where a unique key holds the process id and random bits, which tells
    them apart (a guess for ids of clients that do not follow Java's layout). The table shows that
    reading; JSON has both. Java's class (DecodeMessageIdCommond, not registered in its mqadmin)
    prints the unique-key reading only. No cluster is needed (-n is accepted and not used).
    """
    from mqadmin.cli.commands.message._shared import human_time, print_details
    from mqadmin.cli.render import json_output, print_json

    ids = [i.strip() for i in msg_id.split(",") if i.strip()]
    if not ids:
        raise usage_error("-i names no message id", "for example: -i 7F0000011C2A18B4AAC27A4D0C830000")
    docs = [decode(i) for i in ids]
    if json_output():
        doc: DecodedIdsDoc = {"messageIds": docs}
        print_json(doc)
        return
    blocks = []
    for d in docs:
        off, uniq = d["offsetMsgId"], d["uniqueKey"]
        if d["likely"] == "offsetMsgId":
            reading = [("Kind:", "offset message id"), ("Store Host:", off["storeHost"]),
                       ("CommitLog Offset:", str(off["commitLogOffset"]))]  # fmt: skip
        else:
            reading = [("Kind:", "unique key"), ("Client IP:", uniq["ip"]), ("PID:", str(uniq["pid"])),
                       ("Created:", human_time(uniq["timestamp"])), ("Counter:", str(uniq["counter"]))]  # fmt: skip
        blocks.append([("Message ID:", d["msgId"]), *reading])
    print_details(blocks)


def decode(msg_id: str) -> DecodedIdDoc:
    from mqadmin.wire.message import MessageDecodeError, decode_uniq_key, parse_offset_msg_id

    try:
        (ip, port), offset = parse_offset_msg_id(msg_id)
        uniq = decode_uniq_key(msg_id)
    except MessageDecodeError as e:
        raise usage_error(str(e), "a message id is 32 hex digits (56 for IPv6 addresses)") from None
    return {
        "msgId": msg_id.upper(),
        "likely": "offsetMsgId" if 0 < port < 65536 and 0 <= offset < PLAUSIBLE_OFFSET else "uniqueKey",
        "offsetMsgId": {"storeHost": f"{ip}:{port}", "commitLogOffset": offset},
        "uniqueKey": {"ip": uniq.ip, "pid": uniq.pid, "timestamp": uniq.timestamp, "counter": uniq.counter},
    }
