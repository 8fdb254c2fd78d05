"""Message trace records, as the Java client's trace dispatcher writes them (``TraceDataEncoder``) into the
trace topic (RMQ_SYS_TRACE_TOPIC unless the client names another): each trace message's body holds records
separated by ``\\x02``, each record's fields separated by ``\\x01``; the message's keys are the traced message
ids (and keys), so QUERY_MESSAGE by message id finds them. ``TraceView`` is one record about one message,
as Java's ``TraceView.decodeFromTraceTransData`` reads it."""

from __future__ import annotations

from dataclasses import dataclass

TRACE_TOPIC = "RMQ_SYS_TRACE_TOPIC"
CONTENT_SEP = "\x01"
RECORD_SEP = "\x02"
MESSAGE_TYPES = ("Normal_Msg", "Trans_Msg_Half", "Trans_msg_Commit", "Delay_Msg", "Order_Msg")
"""Java's MessageType enum, by ordinal (the Pub record writes the ordinal)."""


@dataclass(frozen=True, slots=True)
class TraceView:
    type: str
    """Pub, SubBefore, SubAfter, EndTransaction or Recall."""
    msg_id: str
    group: str | None
    timestamp: int
    cost_time: int
    success: bool
    topic: str | None = None
    tags: str | None = None
    keys: str | None = None
    store_host: str | None = None
    offset_msg_id: str | None = None
    msg_type: str | None = None
    client_host: str | None = None
    """Where the trace was written from: the IP the trace message was sent from, as Java shows it."""

    @property
    def status(self) -> str:
        return "success" if self.success else "failed"

    def to_json(self) -> dict[str, object]:
        return {
            "type": self.type, "msgId": self.msg_id, "group": self.group, "clientHost": self.client_host,
            "timestamp": self.timestamp, "costTime": self.cost_time, "status": self.status, "topic": self.topic,
            "tags": self.tags, "keys": self.keys, "storeHost": self.store_host, "offsetMsgId": self.offset_msg_id,
            "msgType": self.msg_type,
        }  # fmt: skip


def decode_trace_records(body: str, msg_id: str, client_host: str | None = None) -> list[TraceView]:
    """The records of one trace message about ``msg_id`` (records of other messages and records that
    cannot be read are left out, as Java leaves out what it cannot parse)."""
    out = []
    for record in body.split(RECORD_SEP):
        fields = record.split(CONTENT_SEP)
        try:
            view = _decode(fields, client_host)
        except (IndexError, ValueError):
            continue
        if view is not None and view.msg_id == msg_id:
            out.append(view)
    return out


def _bool(text: str) -> bool:
    return text.strip().lower() == "true"  # Java's Boolean.parseBoolean


def _decode(f: list[str], client_host: str | None) -> TraceView | None:
    kind = f[0]
    if kind == "Pub":
        ordinal = int(f[11])
        msg_type = MESSAGE_TYPES[ordinal] if 0 <= ordinal < len(MESSAGE_TYPES) else str(ordinal)
        offset_id, success = (f[12], _bool(f[13])) if len(f) >= 14 else (None, _bool(f[12]) if len(f) == 13 else False)
        return TraceView(
            "Pub", f[5], f[3], int(f[1]), int(f[10]), success, topic=f[4], tags=f[6], keys=f[7], store_host=f[8],
            offset_msg_id=offset_id, msg_type=msg_type, client_host=client_host,
        )  # fmt: skip
    if kind == "SubBefore":
        return TraceView("SubBefore", f[5], f[3], int(f[1]), 0, True, keys=f[7], client_host=client_host)
    if kind == "SubAfter":
        timestamp, group = (int(f[7]), f[8]) if len(f) >= 9 else (0, None)
        return TraceView("SubAfter", f[2], group, timestamp, int(f[3]), _bool(f[4]), keys=f[5], client_host=client_host)
    if kind == "EndTransaction":
        return TraceView(
            "EndTransaction", f[5], f[3], int(f[1]), 0, True, topic=f[4], tags=f[6], keys=f[7], store_host=f[8],
            client_host=client_host,
        )  # fmt: skip
    if kind == "Recall":
        return TraceView("Recall", f[5], f[3], int(f[1]), 0, _bool(f[6]), topic=f[4], client_host=client_host)
    return None
