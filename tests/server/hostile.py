"""Hostile input for the embedded servers: names that escape directories, text that is not valid
Unicode, and a raw client that can send them (our own client refuses to encode a lone surrogate).

``NAME_CASES`` lists every request code that carries a topic or a group, with a valid request in
which one name is replaced by the hostile one.
"""

from __future__ import annotations

import asyncio
import json
import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mqadmin.model.names import NameKind, group_problem, topic_problem
from mqadmin.model.topic import TopicConfig
from mqadmin.transport.frames import FrameReader
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.frame import RemotingCommand

from .conftest import pull_ext, send_ext, topic_ext

RESPONSE_TIMEOUT = 10.0


CANARY_FILES = {"keep": "untouched", "sub/deep": "also untouched"}


def make_canary(tmp_path: Path) -> Path:
    """A directory next to the cluster's data directory that no request may touch."""
    d = tmp_path / "canary"
    for rel, text in CANARY_FILES.items():
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / rel).write_text(text)
    return d


def assert_untouched(canary: Path) -> None:
    found = {str(p.relative_to(canary)): p.read_text() for p in canary.rglob("*") if p.is_file()}
    assert found == CANARY_FILES, f"the canary changed: {sorted(found)}"


def assert_no_illegal_name_is_held(cluster) -> None:
    """Every topic and group the servers hold (tables, offsets, clients, routes) is a legal name."""
    broker = cluster.brokers[0]
    store = broker.store
    topics = [*broker.topics.all(), *cluster.namesrv.routes.topics, *(k[0] for k in store.messages._cqs)]
    groups = [*broker.groups.all(), *store.clients.consumers, *store.clients.producers]
    for key in store.offsets.snapshot()["offsetTable"]:
        topic, _, group = key.partition("@")
        topics.append(topic)
        groups.append(group)
    for info in store.clients.consumers.values():
        topics += list(info.subscriptions)
    assert [t for t in topics if topic_problem(t)] == []
    assert [g for g in groups if group_problem(g)] == []


def hostile_names(canary: Path, kind: NameKind) -> list[str]:
    """Names that would reach ``canary`` (a directory next to the data directory) if used as a path
    below ``<data>/consumequeue/``, plus the other illegal shapes a name can take."""
    escapes = [
        str(canary),  # absolute
        "../../../" + canary.name,  # consumequeue/<name> -> the directory holding the data dir
        "x/../../../../" + canary.name,  # the same through %RETRY%x/ when a group becomes a topic
        "..",
        ".",
    ]
    too_long = "x" * (128 if kind is NameKind.TOPIC else 121)
    return [*escapes, "abc\n", "a\x00b", "a\ud800b", "\udfff", too_long, " ", "a b", "tópico"]


def path_escapes(canary: Path) -> list[str]:
    """The names that only the path layer would have to stop if name validation were off."""
    return [str(canary), "../../../" + canary.name, "x/../../../../" + canary.name, ".."]


def raw_frame(code: int, ext: dict[str, str], body: bytes = b"", opaque: int = 7) -> bytes:
    """A JSON-header request frame with non-ASCII escaped (``\\ud800`` stays a lone surrogate)."""
    header = json.dumps(
        {"code": code, "extFields": ext, "flag": 0, "language": "JAVA", "opaque": opaque,
         "serializeTypeCurrentRPC": "JSON", "version": 479},
        ensure_ascii=True,
    ).encode()  # fmt: skip
    return struct.pack(">ii", 4 + len(header) + len(body), len(header)) + header + body


async def raw_request(addr: str, code: int, ext: dict[str, str], body: bytes = b"") -> RemotingCommand | None:
    """Send one request on a fresh connection; its response, or None if the server closed it."""
    host, port = addr.rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(raw_frame(code, ext, body))
        await writer.drain()
        frames = FrameReader(reader)
        while True:
            try:
                cmd = await asyncio.wait_for(frames.read(), RESPONSE_TIMEOUT)
            except asyncio.IncompleteReadError:
                return None
            if cmd.is_response and cmd.opaque == 7:
                return cmd
    finally:
        writer.close()


def json_bytes(obj: Any) -> bytes:
    """JSON with non-ASCII escaped, so a lone surrogate survives into the body."""
    return json.dumps(obj, ensure_ascii=True).encode()


@dataclass(frozen=True)
class NameCase:
    """A request carrying ``kind`` at one place; ``build(name)`` gives its (ext, body)."""

    server: str  # "broker" or "namesrv"
    code: int
    where: str
    kind: NameKind
    build: Callable[[str], tuple[dict[str, str], bytes]]

    @property
    def id(self) -> str:
        return f"{self.server}-{self.code}-{self.where}"


def _ext(make: Callable[[str], dict[str, str]]) -> Callable[[str], tuple[dict[str, str], bytes]]:
    return lambda name: (make(name), b"")


def _body(make: Callable[[str], Any]) -> Callable[[str], tuple[dict[str, str], bytes]]:
    return lambda name: ({}, json_bytes(make(name)))


def _heartbeat(group: str = "CG_OK", topic: str = "T_OK", producer: str = "PG_OK") -> dict[str, Any]:
    consumer = {"groupName": group, "consumeType": "CONSUME_PASSIVELY", "messageModel": "CLUSTERING",
                "consumeFromWhere": "CONSUME_FROM_FIRST_OFFSET",
                "subscriptionDataSet": [{"topic": topic, "subString": "*", "subVersion": 1}]}  # fmt: skip
    return {"clientID": "hostile-client", "consumerDataSet": [consumer], "producerDataSet": [{"groupName": producer}]}


def _lock(group: str = "CG_OK", topic: str = "T_OK") -> dict[str, Any]:
    mq = {"brokerName": "broker-a", "queueId": 0, "topic": topic}
    return {"consumerGroup": group, "clientId": "c", "mqSet": [mq]}


def _send_back(group: str, origin_topic: str = "T_OK") -> dict[str, str]:
    return {"offset": "0", "group": group, "delayLevel": "0", "originMsgId": "", "originTopic": origin_topic,
            "unitMode": "false", "maxReconsumeTimes": "16"}  # fmt: skip


def _v2(topic: str = "T_OK", group: str = "PG_OK", default_topic: str = "TBW102") -> dict[str, str]:
    long = send_ext(topic)
    return {"a": group, "b": topic, "c": default_topic, "d": "4", "e": "0", "f": "0",
            "g": long["bornTimestamp"], "h": "0", "i": long["properties"], "j": "0", "k": "false"}  # fmt: skip


T, G = NameKind.TOPIC, NameKind.GROUP
MQ = {"queueId": "0"}

NAME_CASES: list[NameCase] = [
    NameCase("broker", RC.SEND_MESSAGE, "topic", T, _ext(lambda n: send_ext(n))),
    NameCase("broker", RC.SEND_MESSAGE, "producerGroup", G, _ext(lambda n: send_ext("T_OK", producerGroup=n))),
    NameCase("broker", RC.SEND_MESSAGE, "defaultTopic", T, _ext(lambda n: send_ext("T_NEW", defaultTopic=n))),
    NameCase("broker", RC.SEND_MESSAGE_V2, "b", T, _ext(lambda n: _v2(topic=n))),
    NameCase("broker", RC.SEND_MESSAGE_V2, "a", G, _ext(lambda n: _v2(group=n))),
    NameCase("broker", RC.SEND_BATCH_MESSAGE, "b", T, _ext(lambda n: _v2(topic=n))),
    NameCase("broker", RC.PULL_MESSAGE, "topic", T, _ext(lambda n: pull_ext(n))),
    NameCase("broker", RC.PULL_MESSAGE, "consumerGroup", G, _ext(lambda n: pull_ext("T_OK", group=n))),
    NameCase("broker", RC.QUERY_MESSAGE, "topic", T, _ext(lambda n: {
        "topic": n, "key": "k", "maxNum": "4", "beginTimestamp": "0", "endTimestamp": "9"})),  # fmt: skip
    NameCase("broker", RC.QUERY_CONSUMER_OFFSET, "topic", T, _ext(lambda n: {"consumerGroup": "CG", "topic": n} | MQ)),
    NameCase("broker", RC.QUERY_CONSUMER_OFFSET, "group", G, _ext(lambda n: {"consumerGroup": n, "topic": "T"} | MQ)),
    NameCase("broker", RC.UPDATE_CONSUMER_OFFSET, "topic", T,
             _ext(lambda n: {"consumerGroup": "CG", "topic": n, "commitOffset": "1"} | MQ)),
    NameCase("broker", RC.UPDATE_CONSUMER_OFFSET, "group", G,
             _ext(lambda n: {"consumerGroup": n, "topic": "T", "commitOffset": "1"} | MQ)),
    NameCase("broker", 29, "topic", T, _ext(lambda n: {"topic": n, "timestamp": "0"} | MQ)),
    NameCase("broker", RC.GET_MAX_OFFSET, "topic", T, _ext(lambda n: {"topic": n} | MQ)),
    NameCase("broker", RC.GET_MIN_OFFSET, "topic", T, _ext(lambda n: {"topic": n} | MQ)),
    NameCase("broker", 32, "topic", T, _ext(lambda n: {"topic": n} | MQ)),
    NameCase("broker", RC.VIEW_MESSAGE_BY_ID, "topic", T, _ext(lambda n: {"topic": n, "offset": "0"})),
    NameCase("broker", RC.CONSUMER_SEND_MSG_BACK, "group", G, _ext(lambda n: _send_back(n))),
    NameCase("broker", RC.CONSUMER_SEND_MSG_BACK, "originTopic", T, _ext(lambda n: _send_back("CG", n))),
    NameCase("broker", RC.HEART_BEAT, "consumerGroup", G, _body(lambda n: _heartbeat(group=n))),
    NameCase("broker", RC.HEART_BEAT, "subscriptionTopic", T, _body(lambda n: _heartbeat(topic=n))),
    NameCase("broker", RC.HEART_BEAT, "producerGroup", G, _body(lambda n: _heartbeat(producer=n))),
    NameCase("broker", RC.UNREGISTER_CLIENT, "consumerGroup", G, _ext(lambda n: {"clientID": "c", "consumerGroup": n})),
    NameCase("broker", RC.UNREGISTER_CLIENT, "producerGroup", G, _ext(lambda n: {"clientID": "c", "producerGroup": n})),
    NameCase("broker", RC.GET_CONSUMER_LIST_BY_GROUP, "group", G, _ext(lambda n: {"consumerGroup": n})),
    NameCase("broker", RC.LOCK_BATCH_MQ, "group", G, _body(lambda n: _lock(group=n))),
    NameCase("broker", RC.LOCK_BATCH_MQ, "topic", T, _body(lambda n: _lock(topic=n))),
    NameCase("broker", RC.UNLOCK_BATCH_MQ, "group", G, _body(lambda n: _lock(group=n))),
    NameCase("broker", RC.UNLOCK_BATCH_MQ, "topic", T, _body(lambda n: _lock(topic=n))),
    NameCase("broker", RC.UPDATE_AND_CREATE_TOPIC, "topic", T, _ext(lambda n: topic_ext(TopicConfig(n)))),
    NameCase("broker", RC.UPDATE_AND_CREATE_TOPIC_LIST, "topicName", T,
             _body(lambda n: {"topicConfigList": [TopicConfig("T_OK").to_json(), TopicConfig(n).to_json()]})),
    NameCase("broker", RC.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, "groupName", G, _body(lambda n: {"groupName": n})),
    NameCase("broker", RC.GET_TOPIC_STATS_INFO, "topic", T, _ext(lambda n: {"topic": n})),
    NameCase("broker", RC.GET_CONSUMER_CONNECTION_LIST, "group", G, _ext(lambda n: {"consumerGroup": n})),
    NameCase("broker", RC.GET_PRODUCER_CONNECTION_LIST, "group", G, _ext(lambda n: {"producerGroup": n})),
    NameCase("broker", RC.DELETE_SUBSCRIPTIONGROUP, "group", G,
             _ext(lambda n: {"groupName": n, "cleanOffset": "true"})),
    NameCase("broker", RC.GET_CONSUME_STATS, "group", G, _ext(lambda n: {"consumerGroup": n})),
    NameCase("broker", RC.GET_CONSUME_STATS, "topic", T, _ext(lambda n: {"consumerGroup": "CG", "topic": n})),
    NameCase("broker", RC.DELETE_TOPIC_IN_BROKER, "topic", T, _ext(lambda n: {"topic": n})),
    NameCase("broker", RC.QUERY_TOPIC_CONSUME_BY_WHO, "topic", T, _ext(lambda n: {"topic": n})),
    NameCase("broker", RC.GET_CONSUMER_RUNNING_INFO, "group", G, _ext(lambda n: {"consumerGroup": n, "clientId": "c"})),
    NameCase("broker", RC.CONSUME_MESSAGE_DIRECTLY, "group", G,
             _ext(lambda n: {"consumerGroup": n, "clientId": "c", "msgId": "x"})),
    NameCase("broker", RC.GET_TOPIC_CONFIG, "topic", T, _ext(lambda n: {"topic": n})),
    NameCase("namesrv", RC.GET_ROUTEINFO_BY_TOPIC, "topic", T, _ext(lambda n: {"topic": n})),
    NameCase("namesrv", RC.DELETE_TOPIC_IN_NAMESRV, "topic", T, _ext(lambda n: {"topic": n})),
    NameCase("namesrv", RC.REGISTER_TOPIC_IN_NAMESRV, "topic", T, _ext(lambda n: {"topic": n})),
]  # fmt: skip


def lone_surrogate_bodies() -> list[tuple[int, bytes]]:
    """JSON bodies with a lone surrogate in a field that is not a name."""
    return [
        (RC.HEART_BEAT, json_bytes({**_heartbeat(), "clientID": "c\ud800"})),
        (RC.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, json_bytes({"groupName": "G_OK", "attributes": {"k": "\ud800"}})),
        (RC.UPDATE_AND_CREATE_TOPIC_LIST, json_bytes({"topicConfigList": [{"topicName": "T", "x": "\udc00"}]})),
    ]
