"""The topology file (reader and shipped JSON Schema agree), and doctor's live rules on brokers as read."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import jsonschema
import pytest

from mqadmin.model.topic import TopicConfig
from mqadmin.topology import doctor
from mqadmin.topology.model import SCHEMA_PATH, TopologyError, parse_topology
from mqadmin.topology.schema import schema_text

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = """
[clusters.prod]
namesrv = "10.0.0.1:9876;10.0.0.2:9876"
cluster = "DefaultCluster"
[clusters.prod.defaults.topic]
queueNums = 16

[clusters.staging]

[defaults.topic]
queueNums = 8

[topics.Orders]
order = true
messageType = "FIFO"
[topics.Orders.overrides.staging]
queueNums = 2

[topics.Audit]
clusters = ["prod"]
brokers = ["broker-a"]
perm = 4

[groups.OrderService]
retryMaxTimes = 5
consumeBroadcastEnable = false
groupRetryPolicy = { type = "EXPONENTIAL", exponentialRetryPolicy = { initial = 1000, max = 60000, multiplier = 2 } }
"""


def validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text()))


def test_the_shipped_schema_is_the_generated_one_and_a_valid_schema() -> None:
    assert SCHEMA_PATH.read_text() == schema_text()
    jsonschema.Draft202012Validator.check_schema(json.loads(schema_text()))


def test_defaults_cluster_defaults_and_overrides_resolve_in_order() -> None:
    t = parse_topology(EXAMPLE, "example.toml")
    prod, staging = t.clusters["prod"], t.clusters["staging"]
    assert (prod.cluster, prod.namesrv, staging.cluster, staging.namesrv) == (
        "DefaultCluster",
        "10.0.0.1:9876;10.0.0.2:9876",
        "staging",
        None,
    )
    fifo = {"message.type": "FIFO"}
    assert prod.topics["Orders"].config == TopicConfig("Orders", 16, 16, 6, order=True, attributes=fifo)
    assert staging.topics["Orders"].config.write_queue_nums == 2
    assert "Audit" not in staging.topics
    assert prod.topics["Audit"].brokers == ("broker-a",) and prod.topics["Audit"].config.perm == 4
    group = staging.groups["OrderService"].config
    assert (group.retry_max_times, group.consume_broadcast_enable) == (5, False)
    assert validator().is_valid(tomllib.loads(EXAMPLE))


BAD = [
    ("[clusters.a]\n[topics.T]\nqueues = 4\n", "topics.T.queues"),
    ("[clusters.a]\n[topics.T]\nperm = 5\n", "topics.T.perm"),
    ("[clusters.a]\n[topics.T]\nqueueNums = 0\n", "topics.T.queueNums"),
    ("[clusters.a]\n[topics.T]\nmessageType = 'BULK'\n", "topics.T.messageType"),
    ("[clusters.a]\n[topics.T]\nclusters = []\n", "topics.T.clusters"),
    ("[clusters.a]\n[topics.'bad name']\n", "topics.bad name"),
    ("[clusters.a]\n[groups.G]\nretryMaxTimes = -1\n", "groups.G.retryMaxTimes"),
    ("[clusters.a]\n[groups.G]\nconsumeEnable = 'yes'\n", "groups.G.consumeEnable"),
    ("[clusters.a]\n[defaults.topic]\norder = 1\n", "defaults.topic.order"),
    ("[clusters.a]\nversion = 2\n", "clusters.a.version"),
    ("[clusters.a]\n[clusters.a.defaults.topic]\nperm = 7\n", "clusters.a.defaults.topic.perm"),
    ("version = 2\n[clusters.a]\n", "version"),
    ("[topics.T]\n", "clusters"),
]


@pytest.mark.parametrize(("text", "key"), BAD, ids=[k for _, k in BAD])
def test_what_the_reader_refuses_the_schema_refuses_too(text: str, key: str) -> None:
    with pytest.raises(TopologyError) as e:
        parse_topology(text, "t.toml")
    assert f"t.toml: {key}" in str(e.value)
    assert not validator().is_valid(tomllib.loads(text))


def test_the_documented_examples_are_valid() -> None:
    docs = (REPO / "docs" / "topology.md").read_text()
    blocks = re.findall(r"```toml\n(.*?)```", docs, flags=re.S)
    assert blocks
    for block in blocks:
        parse_topology(block, "docs/topology.md")
        errors = [e.message for e in validator().iter_errors(tomllib.loads(block))]
        assert not errors, (block, errors)


# --- doctor's live rules --------------------------------------------------------------------------------------


def broker(name: str, broker_id: int = 0, **config: str) -> doctor._Broker:
    runtime = {k: config.pop(k) for k in ("brokerVersionDesc", "commitLogMaxOffset") if k in config}
    return doctor._Broker("C", name, broker_id, f"127.0.0.1:{10911 + broker_id}", config, runtime)


def rules(found: list[doctor.Finding]) -> list[tuple[str, str, str]]:
    return [(f.rule, f.severity, f.broker or "") for f in found]


def test_auto_create_on_is_high_with_the_command_turning_it_off() -> None:
    (f,) = doctor._master_findings(broker("broker-a", autoCreateTopicEnable="true"), 7, "ns:9876")
    assert (f.rule, f.severity) == ("AUTO_CREATE_TOPIC_ENABLED", "high")
    assert f.fix == "mqadmin updateBrokerConfig -n ns:9876 -b 127.0.0.1:10911 -k autoCreateTopicEnable -v false"
    assert f.evidence["autoCreateTopicEnable"] == "true"


def test_tbw102_missing_with_auto_create_on_and_left_over_with_it_off() -> None:
    on = doctor._master_findings(broker("broker-a", autoCreateTopicEnable="true"), 6, "ns:9876")
    assert rules(on) == [("AUTO_CREATE_TOPIC_ENABLED", "high", "broker-a"), ("TBW102_MISSING", "medium", "broker-a")]
    assert "perm 6" in on[1].message
    off = doctor._master_findings(broker("broker-a", autoCreateTopicEnable="false"), 7, "ns:9876")
    assert rules(off) == [("TBW102_LEFT_OVER", "low", "broker-a")]
    assert doctor._master_findings(broker("broker-a", autoCreateTopicEnable="false"), None, "ns:9876") == []


def test_a_broker_permission_without_write_is_high() -> None:
    (f,) = doctor._master_findings(broker("broker-a", brokerPermission="4"), None, "ns:9876")
    assert (f.rule, f.severity, f.evidence["brokerPermission"]) == ("BROKER_WRITE_WIPED", "high", 4)
    assert "-k brokerPermission -v 6" in f.fix


def test_version_skew_names_the_brokers_behind_the_newest() -> None:
    same = [broker("broker-a", brokerVersionDesc="V5_3_3"), broker("broker-b", brokerVersionDesc="V5_3_3")]
    assert doctor._version_skew("C", same) == []
    mixed = [*same, broker("broker-c", brokerVersionDesc="V5_10_0")]
    (f,) = doctor._version_skew("C", mixed)
    assert f.rule == "VERSION_SKEW" and f.severity == "medium"
    assert f.evidence == {"versions": {"V5_10_0": ["broker-c/0"], "V5_3_3": ["broker-a/0", "broker-b/0"]}}
    assert f.fix.startswith("upgrade broker-a/0, broker-b/0 to V5_10_0")


def test_a_slave_further_behind_than_the_limit_is_a_finding() -> None:
    master = broker("broker-a", commitLogMaxOffset="5000")
    near, far = broker("broker-a", 1, commitLogMaxOffset="4000"), broker("broker-a", 2, commitLogMaxOffset="100")
    assert doctor._slaves_behind("C", [master, near], 1000) == []
    (f,) = doctor._slaves_behind("C", [master, near, far], 1000)
    assert (f.rule, f.evidence["brokerId"], f.evidence["masterOffset"] - f.evidence["slaveOffset"]) == (
        "SLAVE_BEHIND",
        2,
        4900,
    )


def test_every_rule_has_one_definition_shared_with_the_audit() -> None:
    from mqadmin.audit import job

    assert not set(job.RULES) & set(doctor.LIVE_RULES)
    assert all(sev in doctor.SEVERITIES for sev, _ in (*job.RULES.values(), *doctor.LIVE_RULES.values()))


@pytest.mark.parametrize("mapping", ["topicQueueMappingDetailMap", "topicQueueMappingInfoMap"])
def test_static_topics_are_left_to_the_static_topic_commands(mapping: str) -> None:
    """A 5.x static topic differs between brokers by design (its queues are mapped): exportTopology leaves it
    out with a warning, and plan neither lists it as extra nor deletes it with --prune. Apache's brokers name
    their static topics in the detail map of GET_ALL_TOPIC_CONFIG (AdminBrokerProcessor.getAllTopicConfig)."""
    from mqadmin.model.rpc.topics import GET_ALL_TOPIC_CONFIG
    from mqadmin.topology.export import export_clusters
    from mqadmin.topology.live import BrokerState, ClusterState

    def table(queues: int) -> dict[str, TopicConfig]:
        body = {
            "topicConfigTable": {
                "Plain": {"topicName": "Plain", "readQueueNums": 4, "writeQueueNums": 4, "perm": 6},
                "Mapped": {"topicName": "Mapped", "readQueueNums": queues, "writeQueueNums": queues, "perm": 6},
            },
            mapping: {"Mapped": {"topic": "Mapped", "totalQueues": 6, "bname": "broker-a"}},
        }
        return GET_ALL_TOPIC_CONFIG.response_body.decode(json.dumps(body).encode())

    a, b = table(6), table(3)
    assert getattr(a, "static", None) == frozenset({"Mapped"})
    brokers = [
        BrokerState(name, f"127.0.0.1:{port}", 0, t, {}, frozenset(), t.static)  # type: ignore[attr-defined]
        for name, port, t in (("broker-a", 10911, a), ("broker-b", 10921, b))
    ]
    state = ClusterState("DefaultCluster", ["127.0.0.1:9876"], brokers, frozenset({"broker-a", "broker-b"}))
    assert state.is_managed_topic("Plain") and not state.is_managed_topic("Mapped")
    out = export_clusters([state])
    assert list(out.doc["topics"]) == ["Plain"]
    assert out.warnings == ["static topics of DefaultCluster not written (updateStaticTopic manages them): Mapped"]


def test_names_a_topology_file_cannot_hold_are_left_out_of_an_export_with_a_warning() -> None:
    """A broker may hold a group named "" (Java's updateSubGroup accepts it): the exported file stays readable."""
    from mqadmin.model.group import SubscriptionGroupConfig
    from mqadmin.topology.export import export_clusters
    from mqadmin.topology.live import BrokerState, ClusterState

    groups = {"": SubscriptionGroupConfig(""), "Orders": SubscriptionGroupConfig("Orders")}
    broker = BrokerState("broker-a", "127.0.0.1:10911", 0, {}, groups)
    out = export_clusters([ClusterState("DefaultCluster", ["127.0.0.1:9876"], [broker], frozenset({"broker-a"}))])
    assert list(out.doc["groups"]) == ["Orders"]
    assert len(out.warnings) == 1 and "not written: the group name is blank" in out.warnings[0]
    parse_topology(out.toml())


def _many(topics: int, extra: str = "") -> str:
    head = '[clusters.prod]\ncluster = "C"\n\n[defaults.topic]\nqueueNums = 4\n'
    return head + "".join(f"\n[topics.T{i:05d}]\nperm = 6\n" for i in range(topics)) + extra


@pytest.mark.parametrize(
    "extra",
    [
        "",
        "\n[groups.G1]\nretryMaxTimes = 3\n[topics.T00001.overrides.prod]\nqueueNums = 9\n",  # a sub-table later
        '\n[topics.Late]\nmessageType = "FIFO"\n',
        "\n[topics]\nX = {}\n",  # the [topics] table after its sub-tables: read whole
    ],
)
def test_a_file_of_thousands_of_tables_reads_as_tomllib_reads_it(extra: str) -> None:
    """The topology read part by part (2,500 tables: three parts) is the one read whole."""
    text = _many(2500, extra)
    whole = parse_topology.__globals__["_Reader"]("t").clusters(tomllib.loads(text))
    assert parse_topology(text, "t").clusters == whole
    if "overrides" in extra:
        assert whole["prod"].topics["T00001"].config.write_queue_nums == 9


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("\n[topics.T00007]\nperm = 4\n", "Cannot declare ('topics', 'T00007') twice"),  # in two parts
        ('\n[topics.Open]\nnote = """\n' + "".join(f"[topics.S{i}]\n" for i in range(1200)), "Unterminated string"),
    ],
)
def test_an_error_in_a_file_of_thousands_of_tables_is_tomllibs(extra: str, message: str) -> None:
    text = _many(2500, extra)
    with pytest.raises(tomllib.TOMLDecodeError) as whole:
        tomllib.loads(text)
    assert message in str(whole.value)
    with pytest.raises(TopologyError) as ours:
        parse_topology(text, "t")
    assert str(ours.value) == f"t is not valid TOML: {whole.value}"
