"""Topology as code against real clusters (Apache RocketMQ 5.5, 5.3, 4.9 and the embedded one): plan, apply and
exportTopology round trips, drift made with the real Java mqadmin, wait, doctor, and the imperative
--if-not-exists / --if-exists, each effect confirmed by Java mqadmin of the same version where it can see it."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqadmin.model.rpc.namesrv import ROUTE
from tests.cli.test_json_contract import assert_contract
from tests.conformance.backends import Backend
from tests.conformance.test_cli_commands import mq, new_topic, on_cluster
from tests.conftest import wait_until

pytestmark = pytest.mark.conformance


def topology(b: Backend, topics: dict[str, str], groups: dict[str, str] | None = None) -> str:
    """A topology file on the backend's cluster: ``{name: "key = value lines"}`` per topic and group."""
    text = f'[clusters.ci]\nnamesrv = "{b.namesrv_addr}"\ncluster = "{b.cluster}"\n'
    text += "".join(f"\n[topics.{name}]\n{body}\n" for name, body in topics.items())
    text += "".join(f"\n[groups.{name}]\n{body}\n" for name, body in (groups or {}).items())
    return text


def write(tmp_path: Path, text: str, name: str = "topology.toml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def java_queues(b: Backend, topic: str) -> list[tuple[str, int, int, int]]:
    """(broker, read, write, perm) of the topic's route as Java's ``topicRoute`` prints it."""
    assert b.java_mqadmin is not None
    out = b.java_mqadmin(["topicRoute", "-t", topic])
    route = ROUTE.decode(out[out.index("{") : out.rindex("}") + 1].encode())
    return sorted((q.broker_name, q.read_queue_nums, q.write_queue_nums, q.perm) for q in route.queue_datas)


def items(doc: dict, name: str) -> list[tuple[str, str]]:
    return sorted((i["broker"], i["action"]) for i in doc["items"] if i["name"] == name)


def test_plan_apply_export_round_trip_and_a_second_apply_has_nothing_to_do(backend: Backend, tmp_path: Path) -> None:
    plain, ordered, group = new_topic("TopoPlain"), new_topic("TopoOrder"), new_topic("TopoGroup")
    text = topology(
        backend, {plain: "queueNums = 3", ordered: "queueNums = 2\norder = true"}, {group: "retryMaxTimes = 5"}
    )
    path = write(tmp_path, text)

    planned = mq("plan", "-f", path, "--format", "json")
    assert planned.code == 6, planned.err
    doc = planned.json()
    brokers = sorted(backend.brokers)
    assert items(doc, plain) == [(b, "create") for b in brokers]
    assert items(doc, group) == [(b, "create") for b in brokers]

    applied = mq("apply", "-f", path)
    assert applied.code == 0, applied.out + applied.err
    waited = mq("wait", "-n", backend.namesrv_addr, "-t", plain, "-t", ordered, "--timeout", "90")
    assert waited.code == 0, waited.out + waited.err
    assert java_queues(backend, plain) == [(b, 3, 3, 6) for b in brokers]
    assert java_queues(backend, ordered) == [(b, 2, 2, 6) for b in brokers]

    again = mq("apply", "-f", path)
    assert again.code == 0, again.err
    assert "apply: nothing to do" in again.err
    assert mq("plan", "-f", path).code == 0

    exported = tmp_path / "exported.toml"
    done = mq("exportTopology", "-n", backend.namesrv_addr, "-c", backend.cluster, "-f", str(exported))
    assert done.code == 0, done.err
    assert f"[topics.{plain}]" in exported.read_text() and f"[groups.{group}]" in exported.read_text()
    round_trip = mq("plan", "-n", backend.namesrv_addr, "-f", str(exported))
    assert round_trip.code == 0, round_trip.out + round_trip.err


def test_drift_made_with_java_mqadmin_is_reported_by_plan(backend: Backend, tmp_path: Path) -> None:
    topic = new_topic("TopoDrift")
    path = write(tmp_path, topology(backend, {topic: "queueNums = 4"}))
    assert mq("apply", "-f", path).code == 0
    assert mq("plan", "-f", path).code == 0
    assert backend.java_mqadmin is not None
    java = backend.java_mqadmin(["updateTopic", "-c", backend.cluster, "-t", topic, "-r", "6", "-w", "6"])

    drift = mq("plan", "-f", path, "--format", "json")
    assert drift.code == 6, java + drift.out + drift.err
    updates = [i for i in drift.json()["items"] if i["name"] == topic]
    assert sorted(i["broker"] for i in updates) == sorted(backend.brokers)
    assert all(i["action"] == "update" for i in updates), updates
    assert mq("apply", "-f", path).code == 0
    assert mq("plan", "-f", path).code == 0


def test_wait_for_masters_a_topic_and_a_consumer_with_exit_7_on_timeout(backend: Backend) -> None:
    ns = ["-n", backend.namesrv_addr]
    ok = mq("wait", *ns, "--masters", "2", "-c", backend.cluster)
    assert ok.code == 0, ok.err

    short = mq("wait", *ns, "--masters", "3", "-c", backend.cluster, "--timeout", "2", "--interval", "0.5")
    assert short.code == 7, short.err
    assert "wait (" in short.err and "2 of 3 writable masters" in short.err
    assert "timed out after" in short.err

    topic = new_topic("TopoWait")
    missing = mq("wait", *ns, "-t", topic, "--timeout", "1", "--format", "json")
    assert missing.code == 7
    assert missing.json()["outcome"] == "timed out"
    assert mq("updateTopic", *on_cluster(backend), "-t", topic).code == 0
    routable = mq("wait", *ns, "-t", topic, "--timeout", "90", "--format", "json")
    assert routable.code == 0, routable.err
    assert routable.json()["conditions"][0]["met"] is True

    nobody = mq("wait", *ns, "-g", new_topic("TopoNoConsumer"), "--timeout", "1")
    assert nobody.code == 7 and "0 consumer(s) online" in nobody.out


def test_wait_sees_a_master_whose_write_permission_is_wiped(backend: Backend) -> None:
    ns = ["-n", backend.namesrv_addr]
    assert backend.java_mqadmin is not None
    topic = new_topic("TopoWiped")
    assert mq("updateTopic", *on_cluster(backend), "-t", topic).code == 0
    assert mq("wait", *ns, "-t", topic, "--timeout", "90").code == 0
    assert mq("wipeWritePerm", *ns, "-b", "broker-b").code == 0
    try:
        r = mq("wait", *ns, "-t", topic, "--timeout", "1")
        assert r.code == 7 and "no writable queues on broker-b" in r.out, r.out + r.err
        doctor = mq("doctor", *ns, "-c", backend.cluster, "--format", "json")
        wiped = [f for f in doctor.json()["findings"] if f["rule"] == "BROKER_WRITE_WIPED"]
        assert [(f["broker"], f["fix"]) for f in wiped] == [
            ("broker-b", f"mqadmin addWritePerm -n {backend.namesrv_addr} -b broker-b")
        ]
    finally:
        assert mq("addWritePerm", *ns, "-b", "broker-b").code == 0
    assert mq("wait", *ns, "-t", topic, "--timeout", "90").code == 0


def test_doctor_finds_a_topic_auto_created_by_a_java_producer_and_its_fix_works(backend: Backend) -> None:
    ns = ["-n", backend.namesrv_addr]
    topic = new_topic("TopoAuto")
    assert backend.java_mqadmin is not None
    java_mqadmin = backend.java_mqadmin
    # Java's producer gives up after its own 3 s send timeout on a busy machine (nothing on stdout): send again.
    sent = wait_until(
        lambda: "SEND_OK" in (out := java_mqadmin(["sendMessage", "-t", topic, "-p", "via TBW102"])) and out,
        timeout=300,
        interval=1,
        what=f"Java's sendMessage to {topic}",
    )

    def placement() -> list[dict]:
        r = mq("doctor", *ns, "-c", backend.cluster, "--format", "json")
        assert r.code == 9, r.out + r.err  # autoCreateTopicEnable is on: high
        return [f for f in r.json()["findings"] if f["rule"] == "PLACEMENT_SUBSET" and f["topic"] == topic]

    (finding,) = wait_until(placement, timeout=60, interval=1, what=f"doctor's finding on {topic} after: {sent}")
    document = mq("doctor", *ns, "-c", backend.cluster, "--format", "json").json()
    assert_contract("doctor", document)
    assert finding["severity"] == "high"
    assert len(finding["evidence"]["present"]) == 1 and len(finding["evidence"]["missing"]) == 1
    assert finding["fix"].startswith(f"mqadmin updateTopic -n {backend.namesrv_addr} -c {backend.cluster} -t {topic}")

    nagios = mq("doctor", *ns, "-c", backend.cluster, "--format", "nagios")
    assert nagios.code == 2 and nagios.out.startswith("DOCTOR CRITICAL - "), nagios.out
    assert len(nagios.out.strip().splitlines()) == 1

    fix = mq(*finding["fix"].split()[1:])
    assert fix.code == 0, fix.err
    assert not placement()
    assert mq("wait", *ns, "-t", topic, "--timeout", "90").code == 0
    assert [q[0] for q in java_queues(backend, topic)] == sorted(backend.brokers)


def test_update_topic_if_not_exists_never_overwrites_and_delete_if_exists(backend: Backend) -> None:
    ns = ["-n", backend.namesrv_addr]
    topic = new_topic("TopoIdem")
    assert mq("updateTopic", *on_cluster(backend), "-t", topic, "-r", "2", "-w", "2").code == 0
    kept = mq("updateTopic", *on_cluster(backend), "-t", topic, "-r", "16", "-w", "16", "--if-not-exists")
    assert kept.code == 0 and kept.out.count("unchanged") == 2, kept.out
    assert mq("wait", *ns, "-t", topic, "--timeout", "90").code == 0
    assert java_queues(backend, topic) == [(b, 2, 2, 6) for b in sorted(backend.brokers)]
    assert mq("deleteTopic", *on_cluster(backend), "-t", topic).code == 0
    assert mq("deleteTopic", *on_cluster(backend), "-t", topic).code == 1
    assert mq("deleteTopic", *on_cluster(backend), "-t", topic, "--if-exists").code == 0


def test_apply_with_one_broker_hung_finishes_the_others_then_a_second_apply_completes(
    backend: Backend, tmp_path: Path
) -> None:
    topic, group = new_topic("TopoHung"), new_topic("TopoHungGroup")
    path = write(tmp_path, topology(backend, {topic: "queueNums = 2"}, {group: "retryMaxTimes = 2"}))
    with backend.pause("broker-b"):
        partial = mq("--timeout", "3", "apply", "-f", path, "--format", "json")
        assert partial.code == 3, partial.out + partial.err
        done = {(r["broker"], r["name"]): r["status"] for r in partial.json()["results"]}
        assert done[("broker-a", topic)] == "created" and done[("broker-a", group)] == "created", done
        assert all(status == "failed" for (b, _), status in done.items() if b == "broker-b"), done
        states = {b["name"]: b["status"] for b in partial.json()["clusters"][0]["brokers"]}
        assert states["broker-a"] == "ok" and states["broker-b"] != "ok", states
    rest = mq("apply", "-f", path, "--format", "json")
    assert rest.code == 0, rest.out + rest.err
    assert sorted((r["broker"], r["status"]) for r in rest.json()["results"] if r["kind"] != "orderConf") == [
        ("broker-b", "created"),
        ("broker-b", "created"),
    ]
    assert mq("wait", "-n", backend.namesrv_addr, "-t", topic, "--timeout", "90").code == 0
    assert java_queues(backend, topic) == [(b, 2, 2, 6) for b in sorted(backend.brokers)]
