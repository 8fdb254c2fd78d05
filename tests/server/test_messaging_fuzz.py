"""Malformed message-path requests (wrong types, missing fields, broken bodies) get an error
answer; the broker never crashes and keeps serving. Bounded and seeded."""

from __future__ import annotations

import random

from mqadmin.model.rpc.messages import PULL_MESSAGE, SEND_MESSAGE
from mqadmin.server.broker.send import encode_batch
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode as R
from mqadmin.wire.message import decode_messages

from .conftest import call, pull_ext, pull_header, request, send_ext, send_header

FIELDS = {
    RC.SEND_MESSAGE: list(send_ext("T")),
    RC.SEND_MESSAGE_V2: list("abcdefghijklmn"),
    RC.SEND_BATCH_MESSAGE: list("abcdefghijklmn"),
    RC.PULL_MESSAGE: [*pull_ext("T"), "expressionType"],
    RC.QUERY_MESSAGE: ["topic", "key", "maxNum", "beginTimestamp", "endTimestamp", "_UNIQUE_KEY_QUERY"],
    RC.VIEW_MESSAGE_BY_ID: ["offset", "topic"],
    RC.QUERY_CONSUMER_OFFSET: ["consumerGroup", "topic", "queueId", "setZeroIfNotFound"],
    RC.UPDATE_CONSUMER_OFFSET: ["consumerGroup", "topic", "queueId", "commitOffset"],
    RC.GET_MAX_OFFSET: ["topic", "queueId"],
    RC.GET_MIN_OFFSET: ["topic", "queueId"],
    29: ["topic", "queueId", "timestamp"],
    32: ["topic", "queueId"],
    RC.HEART_BEAT: [],
    RC.UNREGISTER_CLIENT: ["clientID", "producerGroup", "consumerGroup"],
    RC.CONSUMER_SEND_MSG_BACK: ["offset", "group", "delayLevel", "originMsgId", "originTopic", "maxReconsumeTimes"],
    RC.GET_CONSUMER_LIST_BY_GROUP: ["consumerGroup"],
    RC.GET_CONSUMER_CONNECTION_LIST: ["consumerGroup"],
    RC.GET_PRODUCER_CONNECTION_LIST: ["producerGroup"],
    RC.LOCK_BATCH_MQ: [],
    RC.UNLOCK_BATCH_MQ: [],
    RC.GET_TOPIC_STATS_INFO: ["topic"],
    RC.GET_CONSUME_STATS: ["consumerGroup", "topic"],
}
VALUES = ["", "0", "-1", "1", "7", "99999999999999999999999", "-2147483649", "abc", "true", "1.5", "T",
          "%RETRY%G", "TBW102", "bad topic", "é", "\x00", "SCHEDULE_TOPIC_XXXX", "*", "a || b", "SQL92"]  # fmt: skip
BODIES = [
    b"", b"{", b"[]", b"null", b'{"consumerDataSet": 5}', b'{"consumerDataSet": [{"groupName": 1, '
    b'"subscriptionDataSet": "x", "consumeType": 9}]}', b'{"mqSet": [{"queueId": "x"}], "clientId": []}',
    b'{"mqSet": 3}', b"\xff\xfe", encode_batch([(0, b"ok", "KEYS\x01k\x02")])[:-3], bytes(64),
    encode_batch([(0, b"ok", "")]), b"x" * 300,
]  # fmt: skip


def random_request(rng: random.Random) -> tuple[int, dict[str, str], bytes]:
    code = rng.choice(list(FIELDS))
    fields = FIELDS[code]
    if code == RC.SEND_MESSAGE:
        ext = send_ext("Fuzz")
    elif code == RC.PULL_MESSAGE:
        ext = pull_ext("Fuzz")
    else:
        ext = {f: rng.choice(VALUES) for f in fields}
    for f in rng.sample(fields, k=min(len(fields), rng.randint(0, 3))):
        if rng.random() < 0.3:
            ext.pop(f, None)
        else:
            ext[f] = rng.choice(VALUES)
    return code, ext, rng.choice(BODIES)


async def test_malformed_requests_get_answers_and_the_broker_keeps_serving(cluster, transport):
    broker = cluster.brokers[0]
    broker.config.max_message_size = 256
    addr = broker.config.addr
    rng = random.Random(20261121)
    codes_seen: set[int] = set()
    for _ in range(600):
        code, ext, body = random_request(rng)
        resp = await request(transport, addr, code, ext, body)
        assert resp.is_response and isinstance(resp.code, int)
        codes_seen.add(resp.code)
    assert R.SYSTEM_ERROR in codes_seen and R.SUCCESS in codes_seen
    sent = await call(transport, addr, SEND_MESSAGE, send_header("AfterFuzz"), b"still alive")
    assert sent.code == R.SUCCESS
    pulled = await call(transport, addr, PULL_MESSAGE, pull_header("AfterFuzz"))
    assert [m.body for m in decode_messages(pulled.body)] == [b"still alive"]
    fuzz = await call(transport, addr, PULL_MESSAGE, pull_header("Fuzz", max_msgs=1000))
    for m in decode_messages(fuzz.body):  # whatever was stored is readable
        assert m.topic == "Fuzz"
