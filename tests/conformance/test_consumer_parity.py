"""Consumer, producer and offset commands against real clusters with real clients (the Java client, the C++
client of PyPI ``rocketmq``, npm ``ali-ons``) producing and consuming; the Java mqadmin of the same version
confirms what we print and what we change.

The on-call scenario is a test here: a live Java push consumer lags, ``consumerProgress`` finds the lag,
``resetOffsetByTime`` rewinds the consumer (which then receives the messages again) and it catches up;
``skipAccumulatedMessage`` empties the lag.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import queue
import shutil
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.applicability import not_applicable
from tests.cli.test_json_contract import assert_contract
from tests.conformance.backends import Backend
from tests.conformance.test_cli_commands import mq, new_topic
from tests.conftest import Deadline, wait_until
from tests.peers.harness import (
    JAVA_CLIENT_VERSION,
    PeerUnavailable,
    ensure_java_peer,
    ensure_peer,
    ensure_py_peer,
    peer_running,
    peers_dir,
    run_peer,
)

pytestmark = pytest.mark.conformance

HERE = Path(__file__).resolve().parent
LIVE_SOURCE = HERE / "java" / "LiveConsumer.java"
CPP_CONSUMER = HERE / "cpp_consumer.py"
CLIENT_WAIT = 120.0
"""Seconds a client may take to start, receive or commit (JVMs on a loaded 2-core machine)."""


# --- live clients ---------------------------------------------------------------------------------


def _java_live_command(lib: Path | None = None) -> list[str]:
    """LiveConsumer compiled against the Java peer's client jars, or those of ``lib`` (cached by source hash)."""
    java_cmd = ensure_java_peer()
    lib = lib or peers_dir() / "java" / f"lib-{JAVA_CLIENT_VERSION}"
    digest = hashlib.sha256(LIVE_SOURCE.read_bytes() + str(lib).encode()).hexdigest()[:16]
    classes = peers_dir() / "java" / f"live-{digest}"
    if not (classes / ".ok").exists():
        tmp = classes.with_name(f"{classes.name}.tmp-{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        javac = str(Path(java_cmd[0]).with_name("javac"))
        subprocess.run([javac, "-nowarn", "-d", str(tmp), "-cp", f"{lib}/*", str(LIVE_SOURCE)], check=True, timeout=300)
        (tmp / ".ok").write_text("ok\n")
        try:
            os.replace(tmp, classes)
        except OSError:  # compiled by another process meanwhile
            shutil.rmtree(tmp, ignore_errors=True)
    logs = peers_dir() / "logs" / "java"
    return [
        java_cmd[0], "-Xms32m", "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-Drocketmq.client.logUseSlf4j=false", f"-Drocketmq.client.logRoot={logs}",
        "-cp", f"{classes}{os.pathsep}{lib}/*", "LiveConsumer",
    ]  # fmt: skip


class LiveClient:
    """A consumer process that stays online: reads its JSON events, sends it commands on stdin."""

    def __init__(self, cmd: list[str], env: dict[str, str] | None = None) -> None:
        self._log = open(peers_dir() / "logs" / f"live-{uuid.uuid4().hex[:8]}.err", "w")  # noqa: SIM115
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log, text=True,
            env={**os.environ, **(env or {})}, start_new_session=True,
        )  # fmt: skip
        self.events: list[dict[str, Any]] = []
        self._queue: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                self._queue.put(json.loads(line))
            except ValueError:
                continue

    def wait(self, predicate: Callable[[list[dict[str, Any]]], bool], what: str, timeout: float = CLIENT_WAIT) -> None:
        deadline = Deadline(timeout, what)
        while not predicate(self.events):
            if deadline.expired() or self.proc.poll() is not None:
                raise deadline.fail()
            try:
                self.events.append(self._queue.get(timeout=0.2))
            except queue.Empty:
                continue
            self._drain()

    def _drain(self) -> None:
        while not self._queue.empty():
            self.events.append(self._queue.get_nowait())

    def received(self, since: int = 0) -> list[str]:
        """The bodies delivered so far (every delivery, from event ``since`` on)."""
        self._drain()
        return [e["body"] for e in self.events[since:] if e.get("event") == "msg"]

    def got(self, bodies: list[str], what: str, since: int = 0) -> None:
        self.wait(lambda _: set(bodies) <= set(self.received(since)), what)

    def send(self, command: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.send("quit")
                self.proc.wait(30)
            except (OSError, subprocess.TimeoutExpired):
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self._log.close()


@contextlib.contextmanager
def live(cmd: list[str], env: dict[str, str] | None = None) -> Iterator[LiveClient]:
    client = LiveClient(cmd, env)
    try:
        client.wait(lambda ev: any(e.get("event") == "started" for e in ev), "the consumer to start")
        yield client
    finally:
        client.close()


@pytest.fixture(scope="session")
def java_live() -> list[str]:
    try:
        return _java_live_command()
    except PeerUnavailable as e:
        pytest.skip(f"Java client unavailable: {e.reason}")


@pytest.fixture(scope="session")
def java5_live() -> list[str]:
    """LiveConsumer on the 5.x Java client (rocketmq-client of the 5.3.3 distribution the harness resolves)."""
    from tests.realrmq.apache import V5, ensure_distribution, skip_reason

    reason = skip_reason(V5)
    if reason:
        pytest.skip(reason)
    try:
        return _java_live_command(ensure_distribution(V5) / "lib")
    except PeerUnavailable as e:
        pytest.skip(f"Java unavailable: {e.reason}")


@pytest.fixture(scope="session")
def cpp_live() -> tuple[list[str], dict[str, str]]:
    try:
        py = ensure_py_peer()[0]
    except PeerUnavailable as e:
        pytest.skip(f"C++ client (PyPI rocketmq) unavailable: {e.reason}")
    logs = peers_dir() / "logs" / "py"
    logs.mkdir(parents=True, exist_ok=True)
    return [py, str(CPP_CONSUMER)], {"PEER_LOG_DIR": str(logs)}


def peer_or_skip(kind: str) -> None:
    try:
        ensure_peer(kind)
    except PeerUnavailable as e:
        pytest.skip(f"{kind} client unavailable: {e.reason}")


def produce(kind: str, b: Backend, topic: str, count: int) -> list[str]:
    """Send ``count`` messages with a peer; their bodies (unique per run)."""
    rc, records, err = run_peer(kind, "produce", [b.namesrv_addr, topic, count], timeout=CLIENT_WAIT)
    assert rc == 0 and len(records) == count, f"{kind} produce: rc={rc} {err[-800:]}"
    return [r["body"] for r in records]


def one_per_queue(b: Backend, topic: str, queues: int = 4) -> list[str]:
    """One message on each of the topic's ``queues`` queues on every master, sent with our CLI; their bodies."""
    bodies = []
    for broker in sorted(b.brokers):
        for qid in range(queues):
            body = f"{topic}-{broker}-{qid}-{uuid.uuid4().hex[:8]}"
            r = mq("sendMessage", "-n", b.namesrv_addr, "-t", topic, "-p", body, "-b", broker, "-i", str(qid))
            assert r.code == 0, r.err
            bodies.append(body)
    return bodies


# --- our CLI and the Java one ---------------------------------------------------------------------


def ours(b: Backend, *args: str) -> dict[str, Any]:
    r = mq("--format", "json", *args, "-n", b.namesrv_addr)
    assert r.code == 0, f"{args}: exit {r.code}: {r.err}"
    return r.json()


def shape_ok(command: str, doc: Any) -> None:
    """The document is what the command's contract says (its schema, or docs/commands/consumers.md)."""
    assert_contract(command, doc)


def make_topic(b: Backend, prefix: str, queues: int = 4, *, exact: bool = False) -> str:
    """A topic on every master of the cluster, once the name server routes it to every master (``prefix`` as it
    is with ``exact``). Each broker registers the new topic on its own: a client that fetches a route naming
    only the first would put every message there and never consume from the other."""
    topic = prefix if exact else new_topic(prefix)
    r = mq("updateTopic", "-n", b.namesrv_addr, "-c", b.cluster, "-t", topic, "-r", str(queues), "-w", str(queues))
    assert r.code == 0, r.err

    def on_every_master() -> bool:
        r = mq("--format", "json", "topicRoute", "-n", b.namesrv_addr, "-t", topic)
        return r.code == 0 and {q["broker"] for q in r.json()["queues"]} >= set(b.brokers)

    wait_until(on_every_master, 60, 0.5, f"route of {topic} on {sorted(b.brokers)}")
    return topic


def our_rows(doc: dict[str, Any]) -> dict[tuple[str, str, int], tuple[int, int, int]]:
    return {
        (q["topic"], q["brokerName"], q["queueId"]): (q["brokerOffset"], q["consumerOffset"], q["lag"])
        for q in doc["queues"]
    }


def java_rows(b: Backend, group: str, topic: str | None = None) -> dict[tuple[str, str, int], tuple[int, int, int]]:
    """Java mqadmin's consumerProgress -g rows: topic, broker, queue → broker offset, consumer offset, diff
    (only ``topic``'s when given; 4.9's tool has no -t, so the rows are filtered here)."""
    assert b.java_mqadmin is not None
    rows = {}
    for line in b.java_mqadmin(["consumerProgress", "-g", group]).splitlines():
        parts = line.split()
        if len(parts) >= 6 and all(p.lstrip("-").isdigit() for p in parts[2:6]) and parts[0] == (topic or parts[0]):
            rows[(parts[0], parts[1], int(parts[2]))] = (int(parts[3]), int(parts[4]), int(parts[5]))
    return rows


def lag_settles(
    b: Backend, group: str, expected: int | Callable[[], int], topic: str | None = None, queues: int = 4
) -> dict[str, Any]:
    """Our consumerProgress once the group's total lag is ``expected`` (a callable is evaluated at each look,
    for a consumer that may still be receiving). With ``topic``, also only once the group has a committed
    offset on each of the topic's ``queues`` queues on every master: consumers commit asynchronously (a Java
    client's first commits come 10 s after it starts), and a broker where the group has committed nothing
    yet is left out of consumerProgress, its lag with it."""
    want = expected if callable(expected) else lambda: expected
    every = queues * len(b.brokers)
    seen: list[str] = []

    def settled() -> dict[str, Any] | None:
        doc = ours(b, "consumerProgress", "-g", group)
        covered = {(q["brokerName"], q["queueId"]) for q in doc["queues"] if q["topic"] == topic}
        wanted = want()
        seen[:] = [
            f"lag {doc['lagTotal']} (want {wanted}), {len(covered)} of {every} queues committed: {our_rows(doc)}"
        ]
        return doc if (topic is None or len(covered) == every) and doc["lagTotal"] == wanted else None

    try:
        return wait_until(settled, CLIENT_WAIT, 1.0, f"the lag of {group} to be what its consumer has not consumed")
    except AssertionError as e:
        raise AssertionError(f"{e}; last seen: {seen[0] if seen else 'nothing'}") from None


# --- lag with every client ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["java", "node", "cpp"])
def test_lag_is_what_the_clients_left_unconsumed(backend: Backend, kind: str, request: pytest.FixtureRequest) -> None:
    """Each client consumes everything, then more is produced while it is offline: the lag is exactly
    that, per queue as Java mqadmin shows it."""
    topic, group = make_topic(backend, f"Lag{kind}"), f"CG_LAG_{kind}_{uuid.uuid4().hex[:8]}"
    first = 6
    if kind == "cpp":
        cmd, env = request.getfixturevalue("cpp_live")
        producer = "py"
        with live([*cmd, backend.namesrv_addr, topic, group], env) as client:
            # one message on every queue: the C++ consumer commits only the queues it consumed from, and the C++
            # producer may put all of a few messages on one master (it avoids a broker that answered slowly)
            bodies = one_per_queue(backend, topic)
            first = len(bodies)
            client.got(bodies, f"the C++ consumer to receive {first}")
            # it prints a message before its offset moves past it: it stays online until all are committed
            lag_settles(backend, group, 0, topic)
    else:
        peer_or_skip(kind)
        producer = kind
        produce(producer, backend, topic, 6)
        # online until all six are committed (it waits for more than there are), then gone: a client's last
        # commit on a graceful shutdown is a oneway request (Java 4.9's persistAll), which the shutdown can lose
        with peer_running(kind, "consume", [backend.namesrv_addr, topic, group, 10**6, int(CLIENT_WAIT)]):
            wait_until(
                lambda: mq("consumerProgress", "-g", group, "-n", backend.namesrv_addr).code == 0,
                CLIENT_WAIT, 1.0, f"the {kind} consumer's group to be known",
            )  # fmt: skip
            lag_settles(backend, group, 0, topic)
    produce(producer, backend, topic, 5)
    doc = lag_settles(backend, group, 5, topic)
    topic_rows = {k: v for k, v in our_rows(doc).items() if k[0] == topic}
    assert sum(v[0] for v in topic_rows.values()) == first + 5 and sum(v[2] for v in topic_rows.values()) == 5
    assert java_rows(backend, group) == our_rows(doc)
    shape_ok("consumerProgress", doc)
    every = ours(backend, "consumerProgress")
    (mine,) = [g for g in every["groups"] if g["group"] == group]
    assert mine["lag"] == 5 and mine["clients"] == 0


# --- the on-call scenario -------------------------------------------------------------------------


def test_lagging_push_consumer_is_found_reset_and_catches_up(backend: Backend, java_live: list[str]) -> None:
    topic, group = make_topic(backend, "OnCall"), f"CG_ONCALL_{uuid.uuid4().hex[:8]}"
    with live([*java_live, backend.namesrv_addr, topic, group]) as consumer:
        before_first = int(time.time() * 1000) - 1000
        first = produce("java", backend, topic, 10)
        consumer.got(first, "the first 10 messages")
        consumer.send("suspend")
        consumer.wait(lambda ev: ev[-1].get("event") == "suspended", "the consumer to suspend")
        second = produce("java", backend, topic, 20)
        # 1. the lag is what the (online, suspended) consumer has not consumed (pulls already under way when it
        # was suspended may still deliver some of the 20)
        doc = lag_settles(backend, group, lambda: len(set(second) - set(consumer.received())), topic)
        unconsumed = set(second) - set(consumer.received())
        assert doc["online"] and doc["clients"] == 1 and len(unconsumed) == doc["lagTotal"] > 0
        # the topic's rows: the consumer's first commit of a %RETRY% queue (offset 0) may land between the two
        # looks, and Java's then shows a row ours did not have yet
        assert java_rows(backend, group, topic) == {k: v for k, v in our_rows(doc).items() if k[0] == topic}
        # 2. rewind to before the first batch: every queue moves back, old → new printed
        n = len(consumer.events)
        reset = ours(backend, "resetOffsetByTime", "-g", group, "-t", topic, "-s", str(before_first))
        shape_ok("resetOffsetByTime", reset)
        queues = [q for r in reset["results"] for q in r["queues"]]
        assert reset["outcome"] == "ok" and queues and all(q["newOffset"] == 0 and q["done"] for q in queues)
        olds = [(q["brokerName"], q["queueId"], q["oldOffset"]) for q in queues]
        got = [(e["brokerName"], e["queueId"], e["queueOffset"]) for e in consumer.events if e.get("event") == "msg"]
        assert sum(q["oldOffset"] for q in queues) == 30 - len(unconsumed), (
            f"old offsets {olds}; progress before {our_rows(doc)}; delivered {got}; "
            f"progress now {our_rows(ours(backend, 'consumerProgress', '-g', group))}"
        )
        # 3. the live consumer receives the first batch again and catches up
        consumer.send("resume")
        try:
            consumer.got(first + second, "the replay of all 30", since=n)
        except AssertionError as e:
            # The Java client can lose a reset by itself: told "offset moved", it commits the new offset 10 s
            # later, while its own once-a-second commit may send the old one; both are one-way requests that
            # the broker's thread pool can apply in either order, and the client then resumes from the old
            # offset. An operator resets again; so does this test, once, and the replay must then come.
            replayed = sorted({(ev["brokerName"], ev["queueId"], ev["queueOffset"]) for ev in consumer.events[n:]
                               if ev.get("event") == "msg"})  # fmt: skip
            now = our_rows(ours(backend, "consumerProgress", "-g", group))
            again = ours(backend, "resetOffsetByTime", "-g", group, "-t", topic, "-s", str(before_first))
            assert again["outcome"] == "ok", again
            try:
                consumer.got(first + second, "the replay of all 30 after a second reset", since=n)
            except AssertionError as e2:  # which queues were replayed from where, and what the broker holds
                raise AssertionError(f"{e}; {e2}; redelivered {replayed}; progress then {now}") from None
        lag_settles(backend, group, 0, topic)
        # 4. skipAccumulatedMessage empties a new lag
        consumer.send("suspend")
        consumer.wait(lambda ev: ev[-1].get("event") == "suspended", "the consumer to suspend")
        third = produce("java", backend, topic, 12)
        lag_settles(backend, group, lambda: len(set(third) - set(consumer.received())), topic)
        waiting = set(third) - set(consumer.received())
        skip = ours(backend, "skipAccumulatedMessage", "-g", group, "-t", topic)
        shape_ok("skipAccumulatedMessage", skip)
        assert sum(q["newOffset"] - q["oldOffset"] for r in skip["results"] for q in r["queues"]) == len(waiting)
        lag_settles(backend, group, 0, topic)
        n = len(consumer.events)
        consumer.send("resume")
        marker = produce("java", backend, topic, 1)
        consumer.got(marker, "the message sent after the skip", since=n)
        assert not waiting & set(consumer.received(n)), "a skipped message was delivered"


# --- live clients: connections, status, producers -------------------------------------------------


def test_connections_and_status_of_live_clients(backend: Backend, java_live: list[str]) -> None:
    topic = make_topic(backend, "Live")
    group, pgroup = f"CG_CONN_{uuid.uuid4().hex[:8]}", f"PG_CONN_{uuid.uuid4().hex[:8]}"
    with live([*java_live, backend.namesrv_addr, topic, group, pgroup]) as consumer:
        (client_id,) = [e["clientId"] for e in consumer.events if e.get("event") == "started"]
        conn = wait_until(
            lambda: (r := mq("--format", "json", "consumerConnection", "-g", group, "-n", backend.namesrv_addr)).code
            == 0 and r.json(),
            CLIENT_WAIT, 1.0, "the consumer's connection",
        )  # fmt: skip
        shape_ok("consumerConnection", conn)
        assert [(c["clientId"], c["language"]) for c in conn["connections"]] == [(client_id, "JAVA")]
        assert conn["connections"][0]["versionDesc"] == "V" + JAVA_CLIENT_VERSION.replace(".", "_")
        assert {s["topic"] for s in conn["subscriptions"]} == {topic, "%RETRY%" + group}
        java = backend.java_mqadmin(["consumerConnection", "-g", group])
        assert client_id in java and "CONSUME_PASSIVELY" in java

        consumer.got(produce("java", backend, topic, 4), "4 messages")
        status = ours(backend, "consumerStatus", "-g", group)
        shape_ok("consumerStatus", status)
        (mine,) = status["clients"]
        assert mine["clientId"] == client_id and mine["status"] == "ok"
        assert {q["topic"] for q in mine["info"]["queues"]} >= {topic}
        detail = mq("consumerStatus", "-g", group, "-i", client_id, "-s", "-n", backend.namesrv_addr)
        assert detail.code == 0 and "Thread dump" in detail.out and "PROP_CONSUME_TYPE" in detail.out

        held = wait_until(
            lambda: (d := ours(backend, "getConsumerStatus", "-g", group, "-t", topic))["clients"].get(client_id)
            and d,
            CLIENT_WAIT, 1.0, "the offsets the consumer holds",
        )  # fmt: skip
        shape_ok("getConsumerStatus", held)
        assert sum(q["offset"] for q in held["clients"][client_id]) == 4

        prod = ours(backend, "producerConnection", "-g", pgroup, "-t", topic)
        shape_ok("producerConnection", prod)
        assert [c["clientId"] for c in prod["connections"]] == [client_id]
        table = ours(backend, "producer", "-b", next(iter(backend.brokers.values())))
        shape_ok("producer", table)
        assert [p["clientId"] for p in table["groups"][pgroup]] == [client_id]
        java = backend.java_mqadmin(["producerConnection", "-g", pgroup, "-t", topic])
        assert client_id in java


def test_rebalance_check_names_queues_two_live_consumers_hold(backend: Backend, java_live: list[str]) -> None:
    """Two Java consumers of one group: with the usual allocation each queue has one holder ("Rebalance OK", as
    Java's tool says); when both take every queue, ours says FAILED and names each queue with both clients,
    where Java's check (which only compares subscriptions) still says OK."""
    topic = make_topic(backend, "Rebalance", queues=2)
    queues = {(topic, name, qid) for name in backend.brokers for qid in range(2)}

    def held(doc: dict[str, Any]) -> dict[tuple[str, str, int], set[str]]:
        out: dict[tuple[str, str, int], set[str]] = {}
        for c in doc["clients"]:
            for q in (c["info"] or {}).get("queues", []):
                if q["topic"] == topic and not q["processQueue"].get("droped"):
                    out.setdefault((q["topic"], q["brokerName"], q["queueId"]), set()).add(c["clientId"])
        return out

    def status_once(group: str, settled: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        def look() -> dict[str, Any] | None:
            doc = ours(backend, "consumerStatus", "-g", group)
            return doc if len(doc["clients"]) == 2 and settled(doc) else None

        return wait_until(look, CLIENT_WAIT, 1.0, f"both consumers of {group} holding their queues")

    for allocate in ("average", "all"):
        group = f"CG_REB_{allocate.upper()}_{uuid.uuid4().hex[:8]}"
        env = {"LIVE_CLIENT_ALLOCATE": allocate}
        with (
            live([*java_live, backend.namesrv_addr, topic, group], env),
            live([*java_live, backend.namesrv_addr, topic, group], env),
        ):
            if allocate == "average":
                # until both have rebalanced: one that joined first holds every queue until its next rebalance,
                # which the check reports meanwhile (the retry topic's queues too)
                doc = status_once(group, lambda d: d["rebalanceOk"] is True)
                shape_ok("consumerStatus", doc)
                assert doc["duplicateQueues"] == [] and set(held(doc)) == queues
                assert all(len(c) == 1 for c in held(doc).values())
                assert "Rebalance OK" in mq("consumerStatus", "-g", group, "-n", backend.namesrv_addr).out
            else:
                doc = status_once(
                    group, lambda d: set(held(d)) == queues and all(len(c) == 2 for c in held(d).values())
                )
                clients = sorted(c["clientId"] for c in doc["clients"])
                assert doc["rebalanceOk"] is False
                dup = {
                    (q["topic"], q["brokerName"], q["queueId"]): q["clients"]
                    for q in doc["duplicateQueues"]
                    if q["topic"] == topic  # the group's retry queues are taken twice too
                }
                assert dup == dict.fromkeys(queues, clients)
                table = mq("consumerStatus", "-g", group, "-n", backend.namesrv_addr).out
                assert "Rebalance FAILED" in table
                assert f"{topic} broker-a queue 0 is held by 2 clients: {', '.join(clients)}" in table
            assert backend.java_mqadmin is not None
            java = backend.java_mqadmin(["consumerStatus", "-g", group])
            assert "Rebalance OK" in java  # Java's analyzeRebalance looks at nothing but the subscriptions


def test_cpp_and_ali_ons_consumers_are_seen_online(
    backend: Backend, cpp_live: tuple[list[str], dict[str, str]]
) -> None:
    topic = make_topic(backend, "Peers")
    cpp_group, ons_group = f"CG_CPP_{uuid.uuid4().hex[:8]}", f"CG_ONS_{uuid.uuid4().hex[:8]}"
    cmd, env = cpp_live
    with live([*cmd, backend.namesrv_addr, topic, cpp_group], env):
        conn = wait_until(
            lambda: (r := mq("--format", "json", "consumerConnection", "-g", cpp_group, "-n", backend.namesrv_addr))
            .code == 0 and r.json(),
            CLIENT_WAIT, 1.0, "the C++ consumer's connection",
        )  # fmt: skip
        assert [c["language"] for c in conn["connections"]] == ["CPP"]
    peer_or_skip("node")
    # online until the block ends: it waits for more messages than there are, longer than the look can take
    with peer_running("node", "consume", [backend.namesrv_addr, topic, ons_group, 10**6, CLIENT_WAIT]):
        conn = wait_until(
            lambda: (r := mq("--format", "json", "consumerConnection", "-g", ons_group, "-n", backend.namesrv_addr))
            .code == 0 and r.json(),
            60, 1.0, "the ali-ons consumer's connection",
        )  # fmt: skip
        assert len(conn["connections"]) == 1 and {s["topic"] for s in conn["subscriptions"]} >= {topic}


# --- offline groups: reset, skip and clone confirmed by Java mqadmin ------------------------------


def test_offline_reset_skip_and_clone_confirmed_by_java(backend: Backend) -> None:
    peer_or_skip("java")
    topic, group = make_topic(backend, "Offline"), f"CG_OFF_{uuid.uuid4().hex[:8]}"
    produce("java", backend, topic, 8)
    rc, _, err = run_peer("java", "consume", [backend.namesrv_addr, topic, group, 8, 90], timeout=CLIENT_WAIT)
    assert rc == 0, err[-800:]
    lag_settles(backend, group, 0)
    produce("java", backend, topic, 4)
    lag_settles(backend, group, 4)

    dry = ours(backend, "resetOffsetByTime", "-g", group, "-t", topic, "-s", "0", "--dry-run")
    assert dry["results"][0]["status"] == "would update" and java_rows(backend, group) == our_rows(
        ours(backend, "consumerProgress", "-g", group)
    )
    assert ours(backend, "resetOffsetByTime", "-g", group, "-t", topic, "-s", "0")["outcome"] == "ok"
    rewound = java_rows(backend, group, topic)
    assert rewound and all(consumer == 0 for _, consumer, _ in rewound.values())
    skip = ours(backend, "skipAccumulatedMessage", "-g", group, "-t", topic)
    assert sum(q["newOffset"] - q["oldOffset"] for r in skip["results"] for q in r["queues"]) == 12
    source = java_rows(backend, group, topic)
    assert source and all(diff == 0 for _, _, diff in source.values())

    clone = f"{group}_CLONE"
    backend.java_mqadmin(["updateSubGroup", "-c", backend.cluster, "-g", clone])  # 5.x brokers want it to exist
    make_topic(backend, f"%RETRY%{clone}", 1, exact=True)  # Java's consumerProgress finds a group by its retry topic
    cloned = ours(backend, "cloneGroupOffset", "-s", group, "-d", clone, "-t", topic)
    shape_ok("cloneGroupOffset", cloned)
    assert cloned["outcome"] == "ok" and all(q["done"] for r in cloned["results"] for q in r["queues"])
    assert java_rows(backend, clone, topic) == source


# --- setConsumeMode -------------------------------------------------------------------------------


def test_set_consume_mode_round_trips_with_java(backend: Backend) -> None:
    if backend.version_desc.startswith("V4"):
        r = mq(
            "setConsumeMode", "-n", backend.namesrv_addr, "-c", backend.cluster, "-t", "TBW102", "-g", "G", "-m", "POP"
        )
        assert r.code == 1 and "REQUEST_CODE_NOT_SUPPORTED" in r.out
        return  # 4.9 brokers have no message request modes (SET_MESSAGE_REQUEST_MODE is 5.0+)
    topic, group = make_topic(backend, "Mode"), f"CG_MODE_{uuid.uuid4().hex[:8]}"
    args = ["setConsumeMode", "-c", backend.cluster, "-t", topic, "-g", group]
    first = ours(backend, *args, "-m", "POP")
    shape_ok("setConsumeMode", first)
    assert {r["status"] for r in first["results"]} == {"updated"}
    assert {r["status"] for r in ours(backend, *args, "-m", "POP")["results"]} == {"unchanged"}
    backend.java_mqadmin(["setConsumeMode", "-c", backend.cluster, "-t", topic, "-g", group, "-m", "PULL"])
    again = ours(backend, *args, "-m", "POP")
    assert [r["changes"] for r in again["results"]] == [{"mode": {"old": "PULL", "new": "POP"}}] * len(backend.brokers)


def test_pop_mode_set_by_set_consume_mode_is_followed_by_a_5x_consumer(backend: Backend, java5_live: list[str]) -> None:
    """setConsumeMode -m POP, then a 5.x push consumer that leaves assignment to the broker pops every message
    and acknowledges it: its running info shows pop queues and the lag goes back to 0."""
    if backend.version_desc.startswith("V4"):
        not_applicable("4.9 brokers have no broker-side assignment or POP (5.0+)")
    topic, group = make_topic(backend, "Pop"), f"CG_POP_{uuid.uuid4().hex[:8]}"
    mode = ours(backend, "setConsumeMode", "-c", backend.cluster, "-t", topic, "-g", group, "-m", "POP")
    assert {r["status"] for r in mode["results"]} == {"updated"}
    with live([*java5_live, backend.namesrv_addr, topic, group], {"LIVE_CLIENT_REBALANCE": "false"}) as consumer:
        consumer.got(produce("java", backend, topic, 12), "12 popped messages")
        status = wait_until(
            lambda: (d := ours(backend, "consumerStatus", "-g", group))["clients"][0]["info"]["popQueues"] and d,
            CLIENT_WAIT, 1.0, "the consumer's pop queues",
        )  # fmt: skip
        pop_queues = status["clients"][0]["info"]["popQueues"]
        assert {q["topic"] for q in pop_queues} == {topic}
        assert {q["brokerName"] for q in pop_queues} == set(backend.brokers)
        lag_settles(backend, group, 0)


# --- static topics: the Java client sends to and consumes from logic queues -------------------------------


def test_static_topic_send_and_consume_with_the_java_client(backend: Backend) -> None:
    """updateStaticTopic, then the Java client 5.x (which addresses the logic queues by the mock broker name; 4.9's
    knows nothing of them) sends 8 messages and a group consumes them: the same on the embedded cluster as on
    Apache 5.x; the messages are in the physical queues (topicStatus), the group's offsets at their ends."""
    with static_topic(backend, "StaticIO") as (topic, group):
        _static_topic_round_trip(backend, topic, group)


@contextlib.contextmanager
def static_topic(backend: Backend, prefix: str) -> Iterator[tuple[str, str]]:
    """A new static topic of 4 logic queues over the cluster and a new group name, for the Java 5.x client; the
    topic is deleted afterwards."""
    if backend.version_desc.startswith("V4"):
        not_applicable(f"{backend.name} has no static topics")
    peer_or_skip("java5")
    topic, group = new_topic(prefix), f"CG_{prefix.upper()}_{uuid.uuid4().hex[:8]}"
    assert mq("updateStaticTopic", "-n", backend.namesrv_addr, "-t", topic, "-qn", "4", "-c", backend.cluster).code == 0
    try:
        yield topic, group
    finally:  # the backend is shared: Java 5.5.0's exportMetrics and exportMetadata fail with a static topic in it
        mq("deleteTopic", "-n", backend.namesrv_addr, "-c", backend.cluster, "-t", topic)


def _static_topic_round_trip(backend: Backend, topic: str, group: str) -> None:
    from tests.conformance.test_topic_parity import ours_route

    def mapped() -> bool:
        leaders = [q for m in ours_route(backend, topic).queue_mappings.values() for q in m.curr_id_map]
        return sorted(leaders) == [0, 1, 2, 3]

    wait_until(mapped, 60, 0.5, f"the mapping of {topic} in its route")
    rc, sent, err = run_peer("java5", "produce", [backend.namesrv_addr, topic, 8], timeout=CLIENT_WAIT)
    assert rc == 0 and len(sent) == 8, err[-800:]
    assert {r["queueId"] for r in sent} == {0, 1, 2, 3}  # logic queue ids (the client sends round-robin)
    rc, got, err = run_peer("java5", "consume", [backend.namesrv_addr, topic, group, 8, 90], timeout=CLIENT_WAIT)
    assert rc == 0, err[-800:]
    assert sorted(r["body"] for r in got) == sorted(r["body"] for r in sent)
    assert {r["brokerName"] for r in got} == {"__syslo__global__"}  # read from the logic queues
    status = ours(backend, "topicStatus", "-t", topic)
    assert sum(q["maxOffset"] for q in status["queues"]) == 8
    progress = lag_settles(backend, group, 0, topic, queues=2)  # 4 logic queues: 2 physical ones per broker
    assert sum(row[1] for k, row in our_rows(progress).items() if k[0] == topic) == 8


def test_a_static_topic_remapped_between_sends_is_consumed_whole_by_the_java_client(backend: Backend) -> None:
    """updateStaticTopic over the cluster, 8 messages from the Java 5.x client, remappingStaticTopic moves the other
    broker's queues onto the first, 8 more: a new group's Java consumer gets all 16, each moved queue's later ones at
    logic offsets from 10000 (the earlier ones read from the old broker through the new leader, which forwards the
    reads); Java mqadmin's topicStatus shows each logic queue spanning both items. The same on the embedded cluster
    as on Apache 5.x."""
    with static_topic(backend, "StaticMove") as (topic, group):
        _remapped_round_trip(backend, topic, group)


def _static_leaders(backend: Backend, topic: str) -> dict[str, list[int]]:
    from tests.conformance.test_topic_parity import ours_route

    return {b: sorted(m.curr_id_map) for b, m in ours_route(backend, topic).queue_mappings.items()}


def _remapped_round_trip(backend: Backend, topic: str, group: str) -> None:
    leaders = wait_until(
        lambda: (got := _static_leaders(backend, topic)) and sum(map(len, got.values())) == 4 and got,
        60, 0.5, f"the mapping of {topic} in its route",
    )  # fmt: skip
    first = sorted(backend.brokers)[0]
    moved = {q for b, ids in leaders.items() if b != first for q in ids}
    assert moved, leaders
    rc, sent, err = run_peer("java5", "produce", [backend.namesrv_addr, topic, 8], timeout=CLIENT_WAIT)
    assert rc == 0 and len(sent) == 8, err[-800:]
    remap = mq("remappingStaticTopic", "-n", backend.namesrv_addr, "-t", topic, "-b", first)
    assert remap.code == 0, remap.out + remap.err
    wait_until(lambda: _static_leaders(backend, topic).get(first) == [0, 1, 2, 3], 60, 0.5, f"{first} leading all")
    rc, later, err = run_peer("java5", "produce", [backend.namesrv_addr, topic, 8], timeout=CLIENT_WAIT)
    assert rc == 0 and len(later) == 8, err[-800:]
    assert {r["queueId"] for r in later} == {0, 1, 2, 3}
    assert all((r["queueOffset"] >= 10000) == (r["queueId"] in moved) for r in later)  # block_round_up(2)

    rc, got, err = run_peer("java5", "consume", [backend.namesrv_addr, topic, group, 16, 90], timeout=CLIENT_WAIT)
    assert rc == 0, err[-800:]
    assert sorted(r["body"] for r in got) == sorted(r["body"] for r in sent + later)
    assert {r["brokerName"] for r in got} == {"__syslo__global__"}
    offsets = {r["body"]: (r["queueId"], r["queueOffset"]) for r in got}
    assert offsets == {r["body"]: (r["queueId"], r["queueOffset"]) for r in sent + later}  # logic offsets, as sent

    assert sum(q["maxOffset"] for q in ours(backend, "topicStatus", "-t", topic)["queues"]) == 16  # physical
    assert backend.java_mqadmin is not None
    java_rows = [line.split() for line in backend.java_mqadmin(["topicStatus", "-t", topic]).splitlines()]
    logic = {int(r[1]): (int(r[2]), int(r[3])) for r in java_rows if len(r) >= 4 and r[0] == "__syslo__global__"}
    assert logic == {q: (0, 10002 if q in moved else 4) for q in range(4)}
