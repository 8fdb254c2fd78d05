"""The message commands against real clusters (Apache RocketMQ and the embedded one) with real clients
producing and consuming (the Java client, PyPI ``rocketmq`` C++, npm ``ali-ons``): every query finds the
message a real client sent; Java mqadmin of the backend's version prints the same fields as our
queryMsgById and the same trace as our queryMsgTraceById; a real consumer's failures go through the delay
levels to %DLQ%, and resendDlqMessage gives the message back to its group."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from tests.conformance.backends import Backend
from tests.conformance.test_cli_commands import Run, mq, wait_for_route
from tests.conftest import wait_until
from tests.peers import test_peers_apache as on_apache
from tests.peers.harness import KINDS, run_peer

pytestmark = [pytest.mark.conformance, pytest.mark.timeout(900)]

peers = on_apache.peers
"""kind -> None when the peer can run here, else why not (module fixture)."""

JAVA_BLOCK = ("OffsetID:", "Topic:", "Tags:", "Keys:", "Queue ID:", "Queue Offset:", "CommitLog Offset:",
              "Reconsume Times:", "Born Timestamp:", "Store Timestamp:", "Born Host:", "Store Host:",
              "System Flag:", "Properties:")  # fmt: skip
"""The labelled lines Java's queryMsgById prints for a message (4.9.8 and 5.x alike)."""
COUNT = 3


def uid() -> str:
    return uuid.uuid4().hex[:8]


def need(peers: dict[str, str | None], kind: str) -> None:
    if peers[kind]:
        pytest.skip(peers[kind])


def ours(b: Backend, *args: str) -> Run:
    return mq(*args, "-n", b.namesrv_addr)


def ours_json(b: Backend, *args: str) -> Any:
    r = ours(b, "--format", "json", *args)
    assert r.code == 0, f"{args}: exit {r.code}: {r.err}"
    return json.loads(r.out)


def eventually_json(b: Backend, *args: str, what: str) -> Any:
    """The ``messages`` of our command's JSON once it exits 0 with some (a broker indexes keys in the background)."""

    def probe() -> Any:
        r = ours(b, "--format", "json", *args)
        return json.loads(r.out)["messages"] or None if r.code == 0 else None

    return wait_until(probe, timeout=60, interval=0.5, what=what)


def new_topic(b: Backend, prefix: str) -> str:
    topic = f"{prefix}_{uid()}"
    r = ours(b, "updateTopic", "-c", b.cluster, "-t", topic, "-r", "4", "-w", "4")
    assert r.code == 0, r.err
    wait_for_route(b, topic, lambda doc: len(doc["queues"]) == 2)
    return topic


def produce(b: Backend, kind: str, topic: str, count: int = COUNT, **env: str) -> list[dict[str, Any]]:
    rc, recs, err = run_peer(kind, "produce", [b.namesrv_addr, topic, count], timeout=120,
                             env={"PEER_BODY_PREFIX": f"{kind}-{uid()}", **env})  # fmt: skip
    assert rc == 0 and len(recs) == count, f"{kind} produce: rc={rc} {recs}\n{err[-3000:]}"
    return recs


def java_until(b: Backend, args: list[str], marker: str) -> str:
    """Java mqadmin's output once it holds ``marker``: its requests time out after 3 s, so on a loaded
    machine a call can print nothing; it is asked again (bounded)."""
    assert b.java_mqadmin is not None
    java = b.java_mqadmin

    def call() -> str | None:
        out = java(args)
        return out if marker in out else None

    return wait_until(call, timeout=180, interval=1, what=f"Java mqadmin {args} printing {marker!r}")


def java_block(out: str) -> dict[str, str]:
    """Java's ``%-20s %s`` lines (ours too) as label -> value, for Java's labels."""
    fields = {line[:20].strip(): line[21:].rstrip() for line in out.splitlines() if line[:20].strip() in JAVA_BLOCK}
    return {**fields, "Properties:": _java_map(fields.get("Properties:", ""))}


def _java_map(text: str) -> Any:
    """``{A=1, B=2}`` (HashMap.toString, any order) as a sorted list of pairs."""
    inner = text.strip()[1:-1]
    return sorted(tuple(item.split("=", 1)) for item in inner.split(", ") if item)


# --- every query finds what a real client sent -------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_every_query_finds_the_messages_a_real_client_sent(backend: Backend, peers, kind: str) -> None:
    need(peers, kind)
    topic = new_topic(backend, f"MsgQ_{kind}")
    sent = produce(backend, kind, topic)
    for rec in sent:
        (by_key,) = eventually_json(backend, "queryMsgByKey", "-t", topic, "-k", rec["keys"], what=f"key {rec['keys']}")
        assert (by_key["body"], by_key["tags"], by_key["keys"]) == (rec["body"], "TagA", [rec["keys"]])
        uniq = by_key["properties"].get("UNIQ_KEY")  # ali-ons sets none (5.x brokers add one)
        assert rec["msgId"] == (by_key["offsetMsgId"] if kind == "node" else uniq)  # ali-ons reports the offset id
        if uniq is not None:
            (by_uniq,) = eventually_json(backend, "queryMsgByUniqueKey", "-t", topic, "-i", uniq, what="uniq key")
            assert by_uniq["body"] == rec["body"] and by_key["msgId"] == uniq
        (by_id,) = ours_json(backend, "queryMsgById", "-t", topic, "-i", rec["msgId"])["messages"]
        (by_offset_id,) = ours_json(backend, "queryMsgById", "-i", by_id["offsetMsgId"])["messages"]
        assert by_id["body"] == by_offset_id["body"] == rec["body"]
        assert by_offset_id["offsetMsgId"] == by_id["offsetMsgId"] == by_key["offsetMsgId"]
        if rec.get("offsetMsgId"):
            assert by_id["offsetMsgId"] == rec["offsetMsgId"]
        if rec.get("queueId") is not None:
            assert (by_id["broker"], by_id["queueId"], by_id["queueOffset"]) == (
                rec["brokerName"], rec["queueId"], rec["queueOffset"]
            )  # fmt: skip
        at = ours_json(backend, "queryMsgByOffset", "-t", topic, "-b", by_id["broker"], "-i", str(by_id["queueId"]),
                       "-o", str(by_id["queueOffset"]))  # fmt: skip
        assert at["offsetMsgId"] == by_id["offsetMsgId"] and at["body"] == rec["body"]
        cq = ours_json(backend, "queryCq", "-t", topic, "-q", str(by_id["queueId"]), "-i", str(by_id["queueOffset"]),
                       "-c", "1", "-b", backend.brokers[by_id["broker"]])  # fmt: skip
        (entry,) = cq["brokers"][0]["queueData"]
        assert entry["physicOffset"] == by_id["commitLogOffset"]
        (off,) = ours_json(backend, "decodeMessageId", "-i", by_id["offsetMsgId"])["messageIds"]
        assert off["likely"] == "offsetMsgId" and off["offsetMsgId"] == {
            "storeHost": backend.brokers[by_id["broker"]], "commitLogOffset": by_id["commitLogOffset"]
        }  # fmt: skip
        if kind == "java":  # the C++ client writes its id's fields little-endian; Java's decoder misreads them too
            (uniq_doc,) = ours_json(backend, "decodeMessageId", "-i", rec["msgId"])["messageIds"]
            assert uniq_doc["likely"] == "uniqueKey"
    bodies = sorted(r["body"] for r in sent)
    tagged = ours_json(backend, "consumeMessage", "-t", topic, "--tags", "TagA")["messages"]
    assert sorted(m["body"] for m in tagged) == bodies
    assert ours_json(backend, "consumeMessage", "-t", topic, "--tags", "OtherTag") == {"messages": []}
    printed = ours_json(backend, "printMsg", "-t", topic, "-s", "TagA || TagB")["messages"]
    assert sorted(m["body"] for m in printed) == bodies


# --- Java mqadmin agrees ------------------------------------------------------------------------------


def test_java_mqadmin_prints_what_our_query_msg_by_id_prints(backend: Backend, peers) -> None:
    """Java's queryMsgById of the same version and ours show the same fields for the same message: by offset
    id (4.9.8 and 5.x) and by unique key (5.x; 4.9.8 reads offset ids only)."""
    need(peers, "java")
    topic = new_topic(backend, "MsgJ")
    (rec,) = produce(backend, "java", topic, 1)
    eventually_json(backend, "queryMsgByUniqueKey", "-t", topic, "-i", rec["msgId"], what="the message indexed")
    v4 = backend.version_desc.startswith("V4")
    ids = [rec["offsetMsgId"]] if v4 else [rec["offsetMsgId"], rec["msgId"]]
    for msg_id in ids:
        args = ["queryMsgById", "-i", msg_id] + ([] if v4 else ["-t", topic])
        java = java_until(backend, args, "OffsetID:")
        mine = ours(backend, "queryMsgById", "-t", topic, "-i", msg_id)
        assert mine.code == 0, mine.err
        theirs = java_block(java)
        assert set(theirs) == set(JAVA_BLOCK), java
        assert java_block(mine.out) == theirs


# --- trace ------------------------------------------------------------------------------------------


def test_the_trace_a_traced_java_client_wrote_reads_as_java_mqadmin_reads_it(backend: Backend, peers) -> None:
    need(peers, "java")
    topic, group = new_topic(backend, "MsgTrace"), f"CG_trace_{uid()}"
    (rec,) = produce(backend, "java", topic, 1, PEER_TRACE="1", PEER_GROUP="PG_TRACED")
    rc, recs, err = run_peer("java", "consume", [backend.namesrv_addr, topic, group, 1, 60], timeout=120,
                             env={"PEER_TRACE": "1"})  # fmt: skip
    assert rc == 0 and len(recs) == 1, err[-3000:]

    def both() -> list[dict[str, Any]] | None:
        r = ours(backend, "--format", "json", "queryMsgTraceById", "-i", rec["msgId"])
        views = json.loads(r.out)["traces"] if r.code == 0 else []
        return views if {"Pub", "SubAfter"} <= {v["type"] for v in views} else None

    views = wait_until(both, timeout=90, interval=1, what="the send and the consumption in the trace")
    pub = next(v for v in views if v["type"] == "Pub")
    after = next(v for v in views if v["type"] == "SubAfter")
    assert (pub["group"], pub["status"], pub["topic"], pub["keys"]) == ("PG_TRACED", "success", topic, rec["keys"])
    assert pub["offsetMsgId"] == rec["offsetMsgId"] and (after["group"], after["status"]) == (group, "success")
    java = java_until(backend, ["queryMsgTraceById", "-i", rec["msgId"]], "Sub ")
    java_pub = next(line.split() for line in java.splitlines() if line.startswith("Pub "))
    assert (java_pub[1], java_pub[2], java_pub[-1]) == ("PG_TRACED", pub["clientHost"], pub["status"]), java
    assert f"{pub['costTime']}ms" in java_pub
    java_sub = next(line.split() for line in java.splitlines() if line.startswith("Sub "))
    assert (java_sub[1], java_sub[-1]) == (group, "success")


# --- retries, dead letters, resend --------------------------------------------------------------------


def test_failed_consumption_retries_through_delay_levels_then_dead_letters_and_resend_returns_it(
    backend: Backend, peers
) -> None:
    """A Java consumer that fails every delivery (maxReconsumeTimes 1): the broker redelivers it once
    after delay level 3, then puts it in %DLQ%. resendDlqMessage (dry run, then for real) sends it back to
    the topic, and the group, consuming normally again, gets it."""
    need(peers, "java")
    topic, group = new_topic(backend, "MsgDlq"), f"CG_dlq_{uid()}"
    (rec,) = produce(backend, "java", topic, 1)
    rc, tries, err = run_peer("java", "consume", [backend.namesrv_addr, topic, group, 2, 90], timeout=150,
                              env={"PEER_FAIL": "1", "PEER_MAX_RECONSUME": "1"})  # fmt: skip
    assert rc == 0, err[-3000:]
    assert sorted(t["reconsumeTimes"] for t in tries) == [0, 1] and {t["body"] for t in tries} == {rec["body"]}
    dlq = f"%DLQ%{group}"
    (dead,) = eventually_json(backend, "consumeMessage", "-t", dlq, what=f"the message in {dlq}")
    assert dead["msgId"] == rec["msgId"] and dead["properties"]["RETRY_TOPIC"] == topic and dead["body"] == rec["body"]

    dry = ours_json(backend, "resendDlqMessage", "-g", group, "--dry-run")
    assert dry["count"] == 1 and [r["status"] for r in dry["results"]] == ["would send"]
    copies = ours_json(backend, "queryMsgByUniqueKey", "-t", topic, "-i", rec["msgId"], "-a")["messages"]
    assert len(copies) == 1  # nothing sent
    run = ours_json(backend, "resendDlqMessage", "-g", group)
    assert [(r["status"], r["originalTopic"]) for r in run["results"]] == [("sent", topic)]
    copies = wait_until(
        lambda: (docs := ours_json(backend, "queryMsgByUniqueKey", "-t", topic, "-i", rec["msgId"], "-a")["messages"])
        and len(docs) == 2 and docs,
        timeout=60, interval=0.5, what="the resent copy indexed",
    )  # fmt: skip
    resent = copies[-1]
    assert resent["reconsumeTimes"] == 0 and "RETRY_TOPIC" not in resent["properties"]
    rc, again, err = run_peer("java", "consume", [backend.namesrv_addr, topic, group, 1, 60], timeout=120)
    assert rc == 0 and [(a["body"], a["msgId"]) for a in again] == [(rec["body"], rec["msgId"])], err[-3000:]


def test_check_msg_send_rt_stores_what_it_sends(backend: Backend) -> None:
    topic = new_topic(backend, "MsgRt")
    doc = ours_json(backend, "checkMsgSendRT", "-t", topic, "-a", "4", "-s", "16")
    assert [s["ok"] for s in doc["sends"]] == [True] * 4 and doc["avgRt"] > 0
    stored = ours_json(backend, "printMsg", "-t", topic)["messages"]
    assert [m["body"] for m in stored] == ["a" * 16] * 4


def test_reading_by_offset_finds_messages_after_the_tools_group_was_moved_to_the_end(backend: Backend) -> None:
    """A 5.x broker answers the first pull of each queue after a server-side reset of the pulling group
    (TOOLS_CONSUMER, the group Java's and our tools pull as) with PULL_OFFSET_MOVED to the reset offset; Java's
    queryMsgByOffset then prints nothing. Ours ask again."""
    topic = new_topic(backend, "MsgSkip")
    broker = sorted(backend.brokers)[0]
    sent = [ours_json(backend, "sendMessage", "-t", topic, "-b", broker, "-i", "0", "-p", f"m{i}") for i in range(3)]
    skip = ours_json(backend, "skipAccumulatedMessage", "-g", "TOOLS_CONSUMER", "-t", topic)
    assert sum(q["newOffset"] - q["oldOffset"] for r in skip["results"] for q in r["queues"]) == 3, skip
    at = ours_json(backend, "queryMsgByOffset", "-t", topic, "-b", broker, "-i", "0", "-o", "1")
    assert at["body"] == "m1" and at["offsetMsgId"] == sent[1]["offsetMsgId"]
    ours_json(backend, "skipAccumulatedMessage", "-g", "TOOLS_CONSUMER", "-t", topic)
    assert [m["body"] for m in ours_json(backend, "printMsg", "-t", topic)["messages"]] == ["m0", "m1", "m2"]


def test_follow_prints_a_message_a_real_client_sends_while_following(backend: Backend, peers) -> None:
    """consumeMessage -f -c 1 starts at the end of each queue and returns once a new message arrives."""
    import os
    import subprocess
    import sys

    need(peers, "java")
    topic = new_topic(backend, "MsgFollow")
    produce(backend, "java", topic, 1)  # before following: not printed
    env = {k: v for k, v in os.environ.items() if k not in ("NAMESRV_ADDR", "NO_COLOR")}
    cmd = [sys.executable, "-m", "mqadmin", "--format", "json", "consumeMessage", "-t", topic, "-f", "-c", "1",
           "-n", backend.namesrv_addr]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert "following" in proc.stderr.readline()  # type: ignore[union-attr]  # each queue's end is known
        (later,) = produce(backend, "java", topic, 1)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    (line,) = out.splitlines()
    assert json.loads(line)["body"] == later["body"]
