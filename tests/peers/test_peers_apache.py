"""Real RocketMQ clients against real Apache RocketMQ 4.9.8 and 5.5.0 clusters (name server + 2 brokers).

For each peer (Java rocketmq-client 4.9.8, PyPI rocketmq 0.4.4 / C++ client, npm ali-ons):
produce 5 messages and consume them back, on a pre-created topic and on a topic the broker
auto-creates through TBW102; then all three peers share one topic and each consumes what all
of them produced.  One cluster per version serves the module's tests; everything is on 127.0.0.1.
The oldest and the newest supported versions; 5.3.3 sits between them on the same remoting protocol.
"""

from __future__ import annotations

import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.peers.harness import KINDS, PeerUnavailable, ensure_peer, run_peer

pytestmark = [pytest.mark.conformance, pytest.mark.timeout(300)]

try:
    from tests.realrmq import apache
except Exception as exc:  # pragma: no cover - depends on the other harness being present
    apache = None
    _APACHE_IMPORT_ERROR = f"tests.realrmq.apache unavailable: {exc!r}"
else:
    _APACHE_IMPORT_ERROR = ""

APACHE_VERSIONS = ("4.9.8", "5.5.0")
COUNT = 5
PRODUCE_TIMEOUT = 60
CONSUME_WAIT = 45  # seconds the peer itself waits for messages
CONSUME_TIMEOUT = CONSUME_WAIT + 30  # hard bound on the peer process


def _uid() -> str:
    return uuid.uuid4().hex[:8]


def _bodies(records):
    return sorted(r.get("body") for r in records)


def _describe(what, rc, records, err):
    return f"{what}: rc={rc}, {len(records)} record(s)\nrecords={records}\nstderr tail:\n{err[-4000:]}"


@pytest.fixture(scope="module", params=APACHE_VERSIONS)
def cluster(request):
    if apache is None:
        pytest.skip(_APACHE_IMPORT_ERROR)
    reason = apache.skip_reason(request.param)
    if reason:
        pytest.skip(reason)
    with apache.ApacheCluster(request.param, brokers=2, auto_create=True).throwaway() as c:
        yield c


@pytest.fixture(scope="module")
def peers():
    """kind -> None if usable, else the reason it is not.  Set-up runs in parallel."""

    def probe(kind):
        # PeerUnavailable names what is missing (java/javac/mvn, node/npm, the wheel's platform).
        try:
            ensure_peer(kind)
        except PeerUnavailable as e:
            return f"{kind} peer unavailable: {e.reason}"
        return None

    with ThreadPoolExecutor(len(KINDS)) as pool:
        return dict(zip(KINDS, pool.map(probe, KINDS), strict=True))


def _need(peers, kind):
    if peers[kind]:
        pytest.skip(peers[kind])


def _create_topics(cluster, topics):
    """Create topics (4 queues) on every master of the cluster, with our admin client.

    What is checked here is the peers; topic creation itself is checked against Java mqadmin in
    tests/conformance. Java mqadmin's fixed 3 s request timeout made this set-up flaky on a busy machine.
    """
    import asyncio

    from mqadmin.admin import AdminClient
    from mqadmin.admin.topics import TopicChange

    async def create_all():
        async with AdminClient([cluster.namesrv_addr], timeout=30) as admin:
            targets = await admin.targets(None, apache.DEFAULT_CLUSTER)
            for topic in topics:
                results = await admin.update_topic_on(
                    targets, TopicChange(topic, read_queue_nums=4, write_queue_nums=4)
                )
                failed = [r for r in results if not r.ok]
                assert results and not failed, f"updateTopic {topic} failed: {failed}"

    asyncio.run(create_all())


@pytest.fixture(scope="module")
def topics(cluster, peers):
    """Pre-created topics: one per usable peer plus one shared by all peers."""
    names = {kind: f"PeerT_{kind}_{_uid()}" for kind in KINDS if not peers[kind]}
    names["shared"] = f"PeerShared_{_uid()}"
    _create_topics(cluster, list(names.values()))
    return names


def _produce(kind, mode, ns, topic, prefix):
    rc, recs, err = run_peer(kind, mode, [ns, topic, COUNT], timeout=PRODUCE_TIMEOUT, env={"PEER_BODY_PREFIX": prefix})
    assert rc == 0 and len(recs) == COUNT, _describe(f"{kind} {mode}", rc, recs, err)
    for r in recs:
        assert r["status"] == "SEND_OK", r
        assert r["msgId"], r
        assert r["topic"] == topic
    assert _bodies(recs) == sorted(f"{prefix}-{i}" for i in range(COUNT))
    return recs


def _consume(kind, ns, topic, count):
    for attempt in range(2):
        group = f"CG_{kind}_{_uid()}"
        rc, recs, err = run_peer(kind, "consume", [ns, topic, group, count, CONSUME_WAIT], timeout=CONSUME_TIMEOUT)
        # A client that could not even start because Apache's name server did not answer in time (several JVMs
        # starting at once on a loaded 2-core machine) is started once more, as a new group; any other failure,
        # or one after a message arrived, is the test's answer.
        if attempt == 0 and rc != 0 and not recs and "RemotingTimeoutException" in err:
            continue
        break
    assert rc == 0 and len(recs) == count, _describe(f"{kind} consume", rc, recs, err)
    return recs


def _check_round_trip(kind, produced, consumed, topic):
    assert _bodies(consumed) == _bodies(produced)
    by_body = {r["body"]: r for r in produced}
    for r in consumed:
        p = by_body[r["body"]]
        assert r["topic"] == topic
        assert r["tags"] == p["tags"] == "TagA"
        assert r["keys"] == p["keys"]
        assert r["brokerName"] in ("broker-a", "broker-b")
        if p.get("queueId") is not None and p.get("brokerName"):
            # Where the producer reports the queue, the consumer must see the message there.
            assert (r["brokerName"], r["queueId"]) == (p["brokerName"], p["queueId"]), (p, r)


@pytest.mark.parametrize("kind", KINDS)
def test_produce_consume_existing_topic(cluster, peers, topics, kind):
    _need(peers, kind)
    topic, ns = topics[kind], cluster.namesrv_addr
    t0 = time.monotonic()
    produced = _produce(kind, "produce", ns, topic, f"{kind}-{_uid()}")
    consumed = _consume(kind, ns, topic, COUNT)
    _check_round_trip(kind, produced, consumed, topic)
    print(f"{kind}: produce+consume {COUNT} on {topic} in {time.monotonic() - t0:.1f}s")


@pytest.mark.parametrize("kind", KINDS)
def test_produce_auto_create_then_consume(cluster, peers, kind):
    _need(peers, kind)
    topic, ns = f"PeerAuto_{kind}_{_uid()}", cluster.namesrv_addr
    produced = _produce(kind, "produce-auto", ns, topic, f"{kind}-auto-{_uid()}")
    consumed = _consume(kind, ns, topic, COUNT)
    _check_round_trip(kind, produced, consumed, topic)


def test_every_peer_reads_every_peer(cluster, peers, topics):
    usable = [k for k in KINDS if not peers[k]]
    if len(usable) < 2:
        pytest.skip("needs at least two usable peers: " + "; ".join(r for r in peers.values() if r))
    topic, ns = topics["shared"], cluster.namesrv_addr
    produced = []
    for kind in usable:
        produced += _produce(kind, "produce", ns, topic, f"x-{kind}-{_uid()}")

    def consume(kind):
        return kind, _consume(kind, ns, topic, len(produced))

    with ThreadPoolExecutor(len(usable)) as pool:
        results = list(pool.map(consume, usable))
    for kind, consumed in results:
        assert _bodies(consumed) == _bodies(produced), f"{kind} did not read what the peers produced"
