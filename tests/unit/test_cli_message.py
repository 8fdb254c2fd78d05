"""The message commands through the CLI entry point, over the mock transport: scripted brokers holding messages
with the store times, keys and index hash collisions a test needs: options and
usage errors, what is sent, how bodies are shown, not-found and partial-failure exit codes."""

from __future__ import annotations

import base64
import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from mqadmin.admin import messaging
from mqadmin.model.consume import ConsumeStats, QueueProgress
from mqadmin.model.rpc import groups, messages, namesrv, topics
from mqadmin.model.rpc.messages import CqEntry
from mqadmin.model.rpc.spec import Decoded
from mqadmin.wire.codes import RequestCode as RC
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand
from mqadmin.wire.message import (
    MessageExt,
    decode_properties,
    decode_uniq_key,
    encode_message,
    new_uniq_key,
    offset_msg_id,
)
from tests.mock_transport import (
    Answer,
    Handler,
    MockTransport,
    Result,
    by_method,
    cluster_info,
    ok,
    refuse,
    topic_route,
    unsupported,
)
from tests.unit.cli_helpers import A, B, Cli, assert_one_line_error

NO_ROUTE = "No topic route info in name server for the topic: "


@dataclass
class Store:
    """What one scripted broker holds: messages by queue, its commit log, what it was sent (as it arrived)."""

    name: str
    addr: str
    queues: dict[tuple[str, int], list[MessageExt]] = field(default_factory=dict)
    log: dict[int, MessageExt] = field(default_factory=dict)
    sent: list[RemotingCommand] = field(default_factory=list)
    next_phys: int = 0
    query_fails: bool = False
    stats_fail: bool = False
    busy: int = 0
    """How many sends to answer SYSTEM_BUSY (flow control) before storing one."""
    reset_to: int | None = None
    """A server-side offset reset waiting for the next pull, which it answers with PULL_OFFSET_MOVED (5.x)."""

    @property
    def host(self) -> tuple[str, int]:
        ip, port = self.addr.split(":")
        return ip, int(port)

    @property
    def topics(self) -> set[str]:
        return {t for t, _ in self.queues}

    def add(
        self, topic: str, body: bytes, queue_id: int = 0, stored: int = 1_700_000_000_000, **props: str
    ) -> MessageExt:
        q = self.queues.setdefault((topic, queue_id), [])
        props.setdefault("UNIQ_KEY", new_uniq_key())
        m = MessageExt(topic, body, queue_id=queue_id, queue_offset=len(q), commit_log_offset=self.next_phys,
                       store_timestamp=stored + len(q), born_timestamp=stored, store_host=self.host,
                       properties=dict(props))  # fmt: skip
        self.next_phys += len(encode_message(m))
        q.append(m)
        self.log[m.commit_log_offset] = m
        return m

    def handle(self, req: Decoded[Any, Any]) -> Result:
        """This broker's answer to ``req`` (a request it does not script: REQUEST_CODE_NOT_SUPPORTED)."""
        self.sent.append(req.cmd)
        return by_method(self, req)

    def view_message_by_id(self, req: Decoded[messages.ViewMessageHeader, Any]) -> Answer:
        h = req.header
        m = self.log.get(h.offset)
        if m is None:
            return refuse(ResponseCode.SYSTEM_ERROR, f"can not find message by the offset, {h.offset}")
        return ok(encode_message(m))

    def query_message(self, req: Decoded[messages.QueryMessageHeader, Any]) -> Answer:
        h = req.header
        if self.query_fails:
            return refuse(ResponseCode.SYSTEM_ERROR, "store is sick")

        def found(m: MessageExt) -> bool:  # a message keyed "collide" stands for an index hash collision
            return h.key == m.uniq_key if h.unique_key else h.key in m.keys or "collide" in m.keys

        in_time = range(h.begin_timestamp, h.end_timestamp + 1)
        held = [m for q in self.queues.values() for m in q if m.topic == h.topic]
        hits = [m for m in held if found(m) and m.store_timestamp in in_time]
        if not hits:
            return refuse(ResponseCode.QUERY_NOT_FOUND, "can not find message, maybe time range not correct")
        return ok(b"".join(encode_message(m) for m in hits))

    def get_max_offset(self, req: Decoded[messages.QueueHeader, Any]) -> Answer:
        h = req.header
        return ok(header=messages.OffsetHeader(offset=len(self.queues.get((h.topic, h.queue_id), []))))

    def get_min_offset(self, req: Decoded[messages.QueueHeader, Any]) -> Answer:
        return ok(header=messages.OffsetHeader(offset=0))

    def search_offset_by_timestamp(self, req: Decoded[messages.SearchOffsetHeader, Any]) -> Answer:
        h = req.header
        q = self.queues.get((h.topic, h.queue_id), [])
        off = next((m.queue_offset for m in q if m.store_timestamp >= h.timestamp), len(q))
        return ok(header=messages.OffsetHeader(offset=off))

    def pull_message(self, req: Decoded[messages.PullHeader, Any]) -> Answer:
        h = req.header
        q = self.queues.get((h.topic, h.queue_id), [])
        start, n = h.queue_offset, h.max_msg_nums
        if self.reset_to is not None:  # as a 5.x broker answers the first pull after a server-side reset
            moved = messages.PullResultHeader(next_begin_offset=self.reset_to, min_offset=0, max_offset=len(q))
            self.reset_to = None
            return Answer(moved, code=ResponseCode.PULL_OFFSET_MOVED, remark="OFFSET_RESET")
        expr = h.subscription or "*"
        tags = {t.strip() for t in expr.split("||")}
        batch = [m for m in q[start : start + n] if expr == "*" or m.tags in tags or m.tags == "Collides"]
        head = messages.PullResultHeader(next_begin_offset=min(len(q), start + n), min_offset=0, max_offset=len(q))
        if start >= len(q):
            return Answer(head, code=ResponseCode.PULL_NOT_FOUND, remark="OFFSET_OVERFLOW_ONE")
        if not batch:
            return Answer(head, code=ResponseCode.PULL_RETRY_IMMEDIATELY, remark="NO_MATCHED_MESSAGE")
        return Answer(head, b"".join(encode_message(m) for m in batch), remark="FOUND")

    def send_message_v2(self, req: Decoded[messages.SendHeader, Any]) -> Answer:
        h = req.header
        if self.busy:
            self.busy -= 1
            return refuse(ResponseCode.SYSTEM_BUSY, "[TIMEOUT_CLEAN_QUEUE]broker busy, start flow control for a while")
        m = self.add(h.topic, req.body, h.queue_id, **decode_properties(h.properties))
        msg_id = offset_msg_id(self.host, m.commit_log_offset)
        return ok(header=messages.SendResultHeader(msg_id=msg_id, queue_id=h.queue_id, queue_offset=m.queue_offset))

    def query_topic_consume_by_who(self, req: Decoded[topics.TopicHeader, Any]) -> Answer:
        return ok(["G1"])

    def get_consume_stats(self, req: Decoded[groups.ConsumeStatsHeader, Any]) -> Answer:
        if self.stats_fail:
            return refuse(ResponseCode.SYSTEM_ERROR, "stats are sick")
        rows = [QueueProgress(t, self.name, qid, len(q), 1, 1, 0) for (t, qid), q in self.queues.items()]
        return ok(ConsumeStats(rows, 0.0))

    def query_consume_queue(self, req: Decoded[messages.QueryConsumeQueueHeader, Any]) -> Answer:
        h = req.header
        q = self.queues.get((h.topic, h.queue_id))
        if q is None:
            return refuse(ResponseCode.SYSTEM_ERROR, f"{h.queue_id}@{h.topic} is not exist!")
        if not 0 <= h.index < len(q):
            return Answer(remark=f"Index {h.index} of {h.queue_id}@{h.topic} is not exist!")
        entries = [CqEntry(m.commit_log_offset, 100, 7) for m in q[h.index : h.index + h.count]]
        return ok(messages.ConsumeQueueView(0, len(q), entries))


def holding(*stores: Store) -> Handler:
    """A name server routing each topic to the stores holding it (4 queues each), and the stores behind it."""
    by_addr = {s.addr: s for s in stores}

    def handler(req: Decoded[Any, Any], addr: str) -> Answer:
        if req.cmd.code == namesrv.GET_BROKER_CLUSTER_INFO.code:
            return ok(cluster_info(*((s.name, 0, s.addr) for s in stores)))
        if req.cmd.code == namesrv.GET_ROUTEINFO_BY_TOPIC.code:
            held = [(s.name, s.addr) for s in stores if req.header.topic in s.topics]
            return ok(topic_route(*held)) if held else refuse(ResponseCode.TOPIC_NOT_EXIST, NO_ROUTE + req.header.topic)
        store = by_addr.get(addr)
        return store.handle(req) if store else unsupported(req)

    return handler


@pytest.fixture
def cluster() -> tuple[None, Store, Store]:
    return None, Store("broker-a", A), Store("broker-b", B)


@pytest.fixture
def cli(monkeypatch, capsys, cluster) -> Cli:
    _, sa, sb = cluster
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    transport = MockTransport(holding(sa, sb))
    return Cli(monkeypatch, capsys, namesrvs=["127.0.0.1:9876"], transport=transport)


def sent(store: Store, code: int) -> list[RemotingCommand]:
    return [c for c in store.sent if c.code == code]


# --- ids ---------------------------------------------------------------------------------------------


def test_unique_keys_decode_as_java_reads_them(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    # made by our sendMessage and by Java's MessageClientIDSetter (IPv6 client); Java 4.9.8 read them so
    k = decode_uniq_key("7F0000017915AA1D88E475831FF00000", now_ms=1795462800000)
    assert (k.ip, k.pid, k.timestamp, k.counter) == ("127.0.0.1", 30997, 1795462727664, 0)
    k = decode_uniq_key("FD00000000000000000000000000000238A730946E09759194150000", now_ms=1795463674950)
    assert (k.ip, k.pid, k.timestamp) == ("fd00::2", 14503, 1795463674901)
    made = int(time.time() * 1000)
    assert abs(decode_uniq_key(new_uniq_key(made)).timestamp - made) <= 1


def test_a_unique_key_from_late_last_month_reads_as_last_month(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    made = 1_706_745_599_000  # 2024-01-31 23:59:59 UTC
    key = new_uniq_key(made)
    assert decode_uniq_key(key, now_ms=made + 2000).timestamp == made  # read on 1 February
    assert decode_uniq_key(key, now_ms=made + 1000 * 3600 * 24 * 20).timestamp == made


def test_decode_message_id_tells_the_kinds_apart_offline(cli: Cli):
    r = cli(
        "--format", "json", "decodeMessageId", "-i", "7F00000100008AD100000000000000BA,7F0000017915AA1D88E475831FF00000"
    )
    assert r.code == 0, r.err
    off, uniq = r.json()["messageIds"]
    assert off["likely"] == "offsetMsgId" and off["offsetMsgId"] == {
        "storeHost": "127.0.0.1:35537",
        "commitLogOffset": 186,
    }
    assert uniq["likely"] == "uniqueKey" and uniq["uniqueKey"]["pid"] == 30997
    r = cli("decodeMessageId", "-i", "7F0000017915AA1D88E475831FF00000")
    assert "Client IP:           127.0.0.1" in r.out and "PID:                 30997" in r.out
    bad = cli("decodeMessageId", "-i", "XYZ")
    assert bad.code == 2
    assert_one_line_error(bad, "'XYZ' is not hex")
    assert cli("decodeMessageId", "-i", "ABCD").code == 2  # neither 32 nor 56 hex digits


# --- queryMsgById and friends ------------------------------------------------------------------------


def test_query_by_offset_id_reads_where_it_points_and_prints_javas_block(cli: Cli, cluster):
    _, sa, sb = cluster
    sa.add("Orders", b"first", KEYS="k1")
    m = sb.add("Orders", b"line\x1b[31m\nnext", TAGS="TagA", KEYS="k1 k2")
    r = cli("queryMsgById", "-i", m.msg_id)
    assert r.code == 0, r.err
    fields = {line[:20].strip(): line[21:] for line in r.out.splitlines()}
    assert fields["OffsetID:"] == m.msg_id and fields["Topic:"] == "Orders" and fields["Tags:"] == "[TagA]"
    assert fields["Keys:"] == "[k1 k2]" and fields["Broker:"] == "broker-b" and fields["Store Host:"] == sb.addr
    assert fields["Message Body:"] == "line\\x1b[31m\\nnext"  # escaped: nothing reaches the terminal raw
    assert fields["Consumer Group:"] == "G1  consumed (committed offset 1)"
    assert [int(c.ext["offset"]) for c in sent(sb, RC.VIEW_MESSAGE_BY_ID)] == [m.commit_log_offset]
    assert not sent(sa, RC.VIEW_MESSAGE_BY_ID)
    sb.stats_fail = True  # who consumed it is extra: the message is still shown
    r = cli("queryMsgById", "-i", m.msg_id)
    assert r.code == 0 and "G1  not consumed yet (committed offset none)" in r.out


def test_query_by_id_takes_other_ids_as_unique_keys_with_the_topic(cli: Cli, cluster):
    _, sa, sb = cluster
    m = sa.add("Orders", bytes([0, 159, 146, 150]), stored=int(time.time() * 1000))  # not UTF-8; stored just now
    sb.add("Orders", b"other")
    r = cli("--format", "json", "queryMsgById", "-t", "Orders", "-i", m.uniq_key)
    assert r.code == 0, r.err
    (doc,) = r.json()["messages"]
    assert doc["msgId"] == m.uniq_key and doc["offsetMsgId"] == m.msg_id and doc["broker"] == "broker-a"
    assert (doc["bodyEncoding"], base64.b64decode(doc["body"])) == ("base64", bytes([0, 159, 146, 150]))
    assert doc["consumers"] == [{"group": "G1", "consumerOffset": 1, "consumed": True}]
    for store in (sa, sb):  # a unique-key query goes to every broker of the route, flagged as such
        (q,) = sent(store, RC.QUERY_MESSAGE)
        assert q.ext["_UNIQUE_KEY_QUERY"] == "true" and q.ext["maxNum"] == "32" and q.ext["key"] == m.uniq_key
    table = cli("queryMsgById", "-t", "Orders", "-i", m.uniq_key)
    assert "<4 bytes of binary data: 009f9296>" in table.out


def test_query_by_id_not_found_exits_1_and_says_what_to_give(cli: Cli, cluster):
    _, sa, _ = cluster
    sa.add("Orders", b"x")
    r = cli("queryMsgById", "-i", "7F0000017915AA1D88E475831FF00000")
    assert r.code == 1 and not r.out
    assert_one_line_error(r, "not an offset message id of a broker", "give the topic (-t)")
    r = cli("queryMsgById", "-t", "Orders", "-i", "7F0000017915AA1D88E475831FF00000")
    assert r.code == 1
    assert_one_line_error(r, "no message of topic 'Orders' has the unique key")
    assert cli("queryMsgById", "-i", " , ").code == 2
    assert cli("queryMsgById", "-i", "x", "-f", "NO-SUCH-CHARSET").code == 2


def test_query_by_key_filters_hash_collisions_and_survives_one_broker_failing(cli: Cli, cluster):
    _, sa, sb = cluster
    want = sa.add("Orders", b"a", KEYS="order-1 other")
    sa.add("Orders", b"b", KEYS="collide")  # the fake index returns it for any key, as a hash collision would
    sb.query_fails = True
    r = cli("--format", "json", "queryMsgByKey", "-t", "Orders", "-k", "order-1")
    assert r.code == 0, r.err
    assert [d["msgId"] for d in r.json()["messages"]] == [want.uniq_key]
    (q,) = sent(sa, RC.QUERY_MESSAGE)
    assert (q.ext["maxNum"], q.ext["beginTimestamp"], q.ext["endTimestamp"]) == ("64", "0", str((1 << 63) - 1))
    assert "_UNIQUE_KEY_QUERY" not in q.ext
    sa.query_fails = True
    assert cli("queryMsgByKey", "-t", "Orders", "-k", "order-1").code == 1
    sa.query_fails = sb.query_fails = False
    none = cli("queryMsgByKey", "-t", "Orders", "-k", "nothing", "-b", "2023-11-14T22:13:20", "-m", "5")
    assert (none.code, none.out) == (0, "") and "no message of Orders has the key 'nothing'" in none.err
    assert sent(sa, RC.QUERY_MESSAGE)[-1].ext["beginTimestamp"] == "1700000000000"


def test_query_by_offset_names_the_range_when_outside(cli: Cli, cluster):
    _, sa, _ = cluster
    m = sa.add("Orders", b"x", queue_id=2)
    r = cli("--format", "json", "queryMsgByOffset", "-t", "Orders", "-b", "broker-a", "-i", "2", "-o", "0")
    assert r.code == 0 and r.json()["offsetMsgId"] == m.msg_id
    r = cli("queryMsgByOffset", "-t", "Orders", "-b", "broker-a", "-i", "2", "-o", "5")
    assert r.code == 1
    assert_one_line_error(r, "no message at offset 5", "holds offsets 0 to 0")
    assert cli("queryMsgByOffset", "-t", "Orders", "-b", "broker-z", "-i", "2", "-o", "0").code == 1


def test_query_by_offset_reads_past_a_pending_offset_reset_of_its_group(cli: Cli, cluster):
    _, sa, _ = cluster
    stored = [sa.add("Orders", f"m{i}".encode()) for i in range(3)]
    sa.reset_to = 3  # skipAccumulatedMessage -g TOOLS_CONSUMER: a 5.x broker answers the next pull from the end
    r = cli("--format", "json", "queryMsgByOffset", "-t", "Orders", "-b", "broker-a", "-i", "0", "-o", "1")
    assert r.code == 0, r.err
    assert r.json()["offsetMsgId"] == stored[1].msg_id and len(sent(sa, RC.PULL_MESSAGE)) == 2


# --- reading -------------------------------------------------------------------------------------------


def test_consume_message_with_tags_time_range_and_count(cli: Cli, cluster):
    _, sa, sb = cluster
    for i in range(3):
        sa.add("Orders", b"a%d" % i, TAGS="TagA", stored=1_700_000_000_000 + 10 * i)
    sa.add("Orders", b"collision", TAGS="Collides")  # the fake broker lets it through, as a hash collision
    sb.add("Orders", b"b0", queue_id=1, TAGS="TagB")
    r = cli("--format", "json", "consumeMessage", "-t", "Orders", "--tags", "TagA || TagB")
    assert r.code == 0, r.err
    assert [d["body"] for d in r.json()["messages"]] == ["a0", "a1", "a2", "b0"]  # checked again here: no collision
    r = cli("--format", "json", "consumeMessage", "-t", "Orders", "-s", "1700000000010", "-e", "1700000000020",
            "-b", "broker-a", "-i", "0")  # fmt: skip
    assert [d["body"] for d in r.json()["messages"]] == ["a1"]
    searches = sent(sa, RC.SEARCH_OFFSET_BY_TIMESTAMP)[-2:]
    assert [s.ext["timestamp"] for s in searches] == ["1700000000010", "1700000000020"]
    r = cli("consumeMessage", "-t", "Orders", "-c", "2", "--properties")
    assert len(r.out.splitlines()) == 3 and "PROPERTIES" in r.out and "{TAGS=TagA, UNIQ_KEY=" in r.out
    bad = cli("consumeMessage", "-t", "Orders", "-s", "yesterday")
    assert bad.code == 2
    assert_one_line_error(bad, "-s takes a time, not 'yesterday'")
    assert cli("consumeMessage", "-t", "Orders", "-s", "1700000000020", "-e", "1700000000010").code == 2
    assert all(c.ext["commitOffset"] == "0" and c.ext["sysFlag"] == "4" for c in sent(sa, RC.PULL_MESSAGE))


def test_times_in_javas_form_and_iso(cli: Cli, cluster):
    _, sa, _ = cluster
    sa.add("Orders", b"x")
    for value in ("2023-11-14#22:13:20:000", "2023-11-14T22:13:20", "2023-11-14T23:13:20+01:00", "1700000000000"):
        r = cli("printMsg", "-t", "Orders", "-b", value)
        assert r.code == 0, (value, r.err)
        assert sent(sa, RC.SEARCH_OFFSET_BY_TIMESTAMP)[-1].ext["timestamp"] == "1700000000000"


def test_print_msg_by_queue_counts_by_tag_and_prints_with_p(cli: Cli, cluster):
    _, sa, _ = cluster
    for tag in ("TagA", "TagB", "TagA", "TagA", ""):
        sa.add("Orders", tag.encode() or b"none", **({"TAGS": tag} if tag else {}))
    r = cli("printMsgByQueue", "-t", "Orders", "-a", "broker-a", "-i", "0", "-f", "true")
    assert r.code == 0, r.err
    assert [line.split() for line in r.out.splitlines()] == [["TAG", "COUNT"], ["TagA", "3"], ["TagB", "1"]]
    r = cli("--format", "json", "printMsgByQueue", "-t", "Orders", "-a", "broker-a", "-i", "0", "-p", "true")
    doc = r.json()
    assert doc["count"] == 5 and doc["tagCounts"] == {} and [m["body"] for m in doc["messages"]] == [None] * 5
    quiet = cli("printMsgByQueue", "-t", "Orders", "-a", "broker-a", "-i", "0")
    assert quiet.out == "" and "5 message(s)" in quiet.err
    assert cli("printMsgByQueue", "-t", "Orders", "-a", "broker-a", "-i", "0", "-p", "maybe").code == 2


def test_print_msg_decodes_with_the_charset_given(cli: Cli, cluster):
    _, sa, _ = cluster
    sa.add("Orders", "中文".encode("gbk"))
    r = cli("--format", "json", "printMsg", "-t", "Orders", "-c", "GBK")
    assert [(d["body"], d["bodyEncoding"]) for d in r.json()["messages"]] == [("中文", "gbk")]
    assert "中文" in cli("printMsg", "-t", "Orders", "-c", "GBK").out
    assert cli("printMsg", "-t", "Orders", "-d", "false").out.split("\n")[0].split()[-1] == "KEYS"


# --- queryCq --------------------------------------------------------------------------------------------


def test_query_cq_asks_every_broker_and_reports_each(cli: Cli, cluster):
    _, sa, sb = cluster
    for _ in range(3):
        sa.add("Orders", b"x", queue_id=1)
    sb.add("Orders", b"y", queue_id=0)
    r = cli("--format", "json", "queryCq", "-t", "Orders", "-q", "1", "-i", "1", "-c", "5")
    assert r.code == 3  # broker-b has no queue 1
    a, b = r.json()["brokers"]
    assert (a["maxQueueIndex"], len(a["queueData"]), a["error"]) == (3, 2, None)
    assert "1@Orders is not exist!" in b["error"]
    r = cli("queryCq", "-t", "Orders", "-q", "1", "-i", "9", "-b", sa.addr)
    assert r.code == 1 and "Index 9 of 1@Orders is not exist!" in r.out


# --- sending ---------------------------------------------------------------------------------------------


def test_a_busy_broker_is_sent_the_same_message_again_and_named_when_it_stays_busy(cli: Cli, cluster, monkeypatch):
    monkeypatch.setattr(messaging, "BUSY_PAUSE", 0.0)
    _, sa, _ = cluster
    sa.add("Orders", b"seed")
    sa.busy = 2  # flow control twice, as Java's producer retries it (retryTimesWhenSendFailed)
    r = cli("--format", "json", "sendMessage", "-t", "Orders", "-p", "hello")
    assert r.code == 0, r.err
    sends = sent(sa, RC.SEND_MESSAGE_V2)
    assert len(sends) == 3 and len({decode_properties(c.ext["i"])["UNIQ_KEY"] for c in sends}) == 1
    assert [m.body for m in sa.queues["Orders", r.json()["queueId"]]][-1:] == [b"hello"]
    sa.busy = 3
    busy = cli("sendMessage", "-t", "Orders", "-p", "dropped")
    assert busy.code == 1 and len(sent(sa, RC.SEND_MESSAGE_V2)) == 6
    assert_one_line_error(busy, "SYSTEM_BUSY", "flow control")
    assert b"dropped" not in {m.body for q in sa.queues.values() for m in q}


# --- resendDlqMessage ------------------------------------------------------------------------------------


def test_resend_dlq_sends_back_once_per_message_without_delivery_state(cli: Cli, cluster):
    _, sa, sb = cluster
    sa.add("Orders", b"seed")  # Orders exists (on broker-a)
    dead = sa.add("%DLQ%G", b"dead-1", RETRY_TOPIC="Orders", KEYS="k1", TAGS="TagA", DELAY="3", REAL_TOPIC="%RETRY%G",
                  MAX_RECONSUME_TIMES="16", CLUSTER="DefaultCluster", custom="kept")  # fmt: skip
    sa.add("%DLQ%G", b"dead-1 again", RETRY_TOPIC="Orders", UNIQ_KEY=dead.uniq_key)
    sa.add("%DLQ%G", b"orphan")
    sa.add("%DLQ%G", b"gone", RETRY_TOPIC="Deleted")
    dry = cli("--format", "json", "resendDlqMessage", "-g", "G", "--dry-run")
    assert dry.code == 3, dry.err  # Deleted has no route: one of the two that could be resent fails
    doc = dry.json()
    assert [r["status"] for r in doc["results"]] == ["would send", "duplicate", "skipped", "failed"]
    assert doc["count"] == 1 and doc["dryRun"] is True and not sent(sa, RC.SEND_MESSAGE_V2)
    r = cli("resendDlqMessage", "-g", "G", "-t", "Orders")
    assert r.code == 0, r.err
    assert "sent 1 of 2 dead letter(s) of %DLQ%G" in r.err and "broker-a queue 0 offsets 0-4" in r.err
    (send,) = sent(sa, RC.SEND_MESSAGE_V2)
    props = decode_properties(send.ext["i"])
    assert send.ext["b"] == "Orders" and send.ext["j"] == "0" and send.body == b"dead-1"
    assert props["UNIQ_KEY"] == dead.uniq_key and props["KEYS"] == "k1" and props["TAGS"] == "TagA"
    assert props["custom"] == "kept" and not {"DELAY", "REAL_TOPIC", "RETRY_TOPIC", "MAX_RECONSUME_TIMES",
                                               "CLUSTER"} & set(props)  # fmt: skip
    again = cli("resendDlqMessage", "-g", "G", "-c", "1", "-o", "3")
    assert again.code == 1 and "gone" not in again.out and "Deleted" in again.out
    assert cli("resendDlqMessage", "-g", "bad group!").code == 2
