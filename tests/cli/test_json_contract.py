"""Every command's ``--format json`` output is valid under the JSON Schema the package ships for it.

Each command declares its document as a TypedDict (``mqadmin.cli.documents``), from which
``mqadmin/cli/schemas.json`` is generated; each command runs for real against an embedded cluster and its
document is validated with that shipped schema (``jsonschema``). A command that declares no document yet
(``UNDECLARED``) is compared, key by key, with the example in its section of docs/commands/*.md instead: object
keys camelCase, maps whose keys are data documented with a ``"<placeholder>"`` key, empty results ``[]``/``{}``.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from mqadmin.cli import registry
from mqadmin.cli.command import APPS, NO_DOCUMENT, SUBCOMMAND_DOCUMENTS
from mqadmin.cli.documents import declared, shipped_schema
from tests.devprocs import EmbeddedCluster, start_dev
from tests.unit.test_settings import run, write_config

REPO = Path(__file__).resolve().parents[2]
DOCS = sorted((REPO / "docs" / "commands").glob("*.md"))
CLUSTER = "DefaultCluster"
T = "JsonContract"
DLQ = "%DLQ%JsonContractGroup"

CASES: dict[str, list[list[str]]] = {
    "updateTopic": [
        ["-c", CLUSTER, "-t", T, "-o", "true"],
        ["-c", CLUSTER, "-t", T, "-r", "16"],
        ["-c", CLUSTER, "-t", DLQ],
    ],  # fmt: skip
    "topicRoute": [["-t", T]],
    "topicList": [[], ["-c"]],
    "updateTopicPerm": [["-c", CLUSTER, "-t", T, "-p", "4"], ["-c", CLUSTER, "-t", T, "-p", "6"]],
    "updateTopicList": [["-c", CLUSTER, "-f", str(REPO / "tests" / "data" / "topic_list.json")]],
    "topicClusterList": [["-t", T]],
    "allocateMQ": [["-t", T, "-i", "c1,c2,c3"]],
    "updateStaticTopic": [["-t", "JsonContractStatic", "-qn", "4", "-c", CLUSTER, "--dry-run"]],
    "topicStatus": [["-t", T]],
    "updateOrderConf": [["-t", T, "-m", "put", "-v", "broker-a:8;broker-b:8"], ["-t", T, "-m", "get"]],
    "clusterList": [[], ["-m"]],
    "top": [["--count", "1"]],
    "brokerStatus": [["-c", CLUSTER]],
    "clusterRT": [["--count", "1", "-a", "2"]],
    "statsAll": [["-t", T]],
    "getNamesrvConfig": [[]],
    "updateNamesrvConfig": [["-k", "productEnvName", "-v", "contract"]],
    "updateKvConfig": [["-s", "CONTRACT", "-k", "k1", "-v", "v1"]],
    "getKvConfig": [["-s", "CONTRACT"]],
    "deleteKvConfig": [["-s", "CONTRACT", "-k", "k1"]],
    "wipeWritePerm": [["-b", "broker-a", "--dry-run"], ["-b", "broker-a"]],
    "addWritePerm": [["-b", "broker-a"]],
    "sendMessage": [["-t", DLQ, "-p", "dead"], ["-t", T, "-p", "hello", "-k", "k1", "-c", "TagA"]],
    "consumeMessage": [["-t", T, "-c", "1"]],
    "queryMsgById": [["-t", T, "-i", "{sendMessage.msgId}"], ["-i", "{sendMessage.offsetMsgId}"]],
    "queryMsgByUniqueKey": [["-t", T, "-i", "{sendMessage.msgId}"]],
    "queryMsgByKey": [["-t", T, "-k", "k1"]],
    "queryMsgByOffset": [["-t", T, "-b", "{sendMessage.broker}", "-i", "{sendMessage.queueId}", "-o", "0"]],
    "printMsg": [["-t", T]],
    "printMsgByQueue": [
        ["-t", T, "-a", "{sendMessage.broker}", "-i", "{sendMessage.queueId}", "-p", "true", "-f", "true"]
    ],  # fmt: skip
    "queryCq": [["-t", T, "-q", "{sendMessage.queueId}", "-i", "0", "-b", "{sendMessage.brokerAddr}"]],
    "queryMsgTraceById": [["-i", "{sendMessage.msgId}", "-t", T]],
    "checkMsgSendRT": [["-t", T, "-a", "2"]],
    "decodeMessageId": [["-i", "{sendMessage.msgId}"]],
    "resendDlqMessage": [["-g", "JsonContractGroup", "--dry-run"]],
    "resetOffsetByTime": [
        ["-g", "TOOLS_CONSUMER", "-t", T, "-s", "0"],
        ["-g", "TOOLS_CONSUMER", "-t", T, "-s", "now", "--dry-run"],
    ],  # fmt: skip
    "skipAccumulatedMessage": [["-g", "TOOLS_CONSUMER", "-t", T]],
    "consumerProgress": [["-g", "TOOLS_CONSUMER", "-t", T], []],
    "cloneGroupOffset": [["-s", "TOOLS_CONSUMER", "-d", "JsonContractGroup", "-t", T]],
    "setConsumeMode": [
        ["-c", CLUSTER, "-t", T, "-g", "TOOLS_CONSUMER", "-m", "POP"],
        ["-c", CLUSTER, "-t", T, "-g", "TOOLS_CONSUMER", "-m", "PULL"],
    ],  # fmt: skip
    "apply": [["-f", str(REPO / "tests" / "data" / "topology.toml")]],
    "plan": [["-f", str(REPO / "tests" / "data" / "topology.toml")]],
    "exportTopology": [["-c", CLUSTER]],
    "wait": [["--masters", "2"], ["-t", T, "-c", CLUSTER]],
    "getBrokerConfig": [["-c", CLUSTER]],
    "updateBrokerConfig": [["-c", CLUSTER, "-k", "maxMessageSize", "-v", "8388608"]],
    "brokerConsumeStats": [["-b", "{sendMessage.brokerAddr}"]],
    "sendMsgStatus": [["-b", "broker-a", "-c", "2"]],
    "cleanExpiredCQ": [["-c", CLUSTER, "--dry-run"], ["-c", CLUSTER]],
    "cleanUnusedTopic": [["--dry-run"], ["-c", CLUSTER]],
    "deleteExpiredCommitLog": [["-c", CLUSTER, "--dry-run"], ["-c", CLUSTER]],
    "haStatus": [["-c", CLUSTER]],
    "resetMasterFlushOffset": [["-b", "{sendMessage.brokerAddr}", "-o", "0"]],  # a master: SUCCESS, as Apache's
    "exportPopRecord": [["-c", CLUSTER, "--dry-run"]],
    "setCommitLogReadAheadMode": [["-c", CLUSTER, "-m", "0"]],
    "updateColdDataFlowCtrGroupConfig": [["-c", CLUSTER, "-g", T, "-v", "4096"]],
    "getColdDataFlowCtrInfo": [["-c", CLUSTER]],
    "removeColdDataFlowCtrGroupConfig": [["-c", CLUSTER, "-g", T]],
    "getBrokerLiteInfo": [["-c", CLUSTER]],
    "startMonitoring": [["--count", "1"]],
    "exportMetadata": [["--out", "{tmp}/fleet-export"], ["-c", CLUSTER, "-f", "{tmp}"]],
    "deleteTopic": [["-c", CLUSTER, "-t", T]],
    "updateSubGroup": [["-c", CLUSTER, "-g", T], ["-c", CLUSTER, "-g", T, "-r", "3"]],
    "updateSubGroupList": [["-c", CLUSTER, "-f", str(REPO / "tests" / "data" / "groups.json")]],
    "getConsumerConfig": [["-g", T]],
    "deleteSubGroup": [["-c", CLUSTER, "-g", T, "--dry-run"], ["-c", CLUSTER, "-g", T]],
}
"""Invocations per command, run in this order (so the topic exists until deleteTopic). An argument
``{command.key}`` is that key of the last JSON document the command printed (a message id, say); ``{tmp}`` a
temporary directory."""

AUTH_EXEMPT = "needs a broker with ACL 2.0; checked in tests/conformance/test_auth.py"

LITE = (
    "needs lite topics (5.5 brokers; the embedded broker cannot hold any): shape checked with a fake 5.5 broker "
    "in tests/unit/test_cli_topic_parity.py"
)
BROKER_5X = (
    "needs an Apache 5.x broker (the embedded one refuses it as Apache does without the feature): shape checked "
    "in tests/conformance/test_broker_parity.py"
)
ROCKSDB = (
    "needs an Apache 5.x broker with RocksDB (the embedded one refuses it: it keeps nothing there): shape "
    "checked in tests/conformance/test_ha_parity.py"
)
CONTROLLER = (
    "needs a controller (the embedded servers run none): shape checked against Apache in controller mode in "
    "tests/conformance/test_controller_parity.py"
)
REAL_CLIENTS = "its shape is checked with real clients in tests/conformance/test_consumer_parity.py"
EXEMPT = {
    "createUser": AUTH_EXEMPT,
    "updateUser": AUTH_EXEMPT,
    "deleteUser": AUTH_EXEMPT,
    "getUser": AUTH_EXEMPT,
    "listUser": AUTH_EXEMPT,
    "copyUser": AUTH_EXEMPT,
    "createAcl": AUTH_EXEMPT,
    "updateAcl": AUTH_EXEMPT,
    "deleteAcl": AUTH_EXEMPT,
    "getAcl": AUTH_EXEMPT,
    "listAcl": AUTH_EXEMPT,
    "copyAcl": AUTH_EXEMPT,
    "profile": "subcommands, on the local config: test_profile_documents_are_valid below",
    "dev": "subcommands that run servers: test_dev_documents_are_valid below",
    "help": "prints help text, not data",
    "audit": "takes exports, not a cluster: test_audit_document_is_valid below",
    "generateFleet": "takes no cluster: test_generate_fleet_document_is_valid below",
    "exportConfigs": "writes a file (-f); its document is checked by tests/conformance/test_namesrv_parity.py",
    "exportMetrics": "writes a file (-f); its document is checked by tests/conformance/test_namesrv_parity.py",
    "remappingStaticTopic": (
        "needs a static topic (5.x brokers; the embedded broker refuses them): shape checked in "
        "tests/unit/test_cli_topic_parity.py and on Apache 5.x in tests/conformance/test_topic_parity.py"
    ),
    "getParentTopicInfo": LITE,
    "getLiteTopicInfo": LITE,
    "getLiteClientInfo": LITE,
    "getLiteGroupInfo": LITE,
    "triggerLiteDispatch": LITE,
    "doctor": (
        "exits 8/9 whenever it has findings (the embedded brokers have autoCreateTopicEnable on): its document is "
        "checked against docs/commands/topology.md in tests/conformance/test_topology.py"
    ),
    "consumerConnection": f"needs a consumer online: {REAL_CLIENTS}",
    "producerConnection": f"needs a producer online: {REAL_CLIENTS}",
    "producer": f"takes a broker address and needs a producer online: {REAL_CLIENTS}",
    "consumerStatus": f"needs a consumer online: {REAL_CLIENTS}",
    "getConsumerStatus": f"needs a consumer online: {REAL_CLIENTS}",
    "switchTimerEngine": BROKER_5X,
    "checkRocksdbCqWriteProgress": ROCKSDB,
    "rocksDBConfigToJson": ROCKSDB,
    "getBrokerEpoch": f"needs a broker in controller mode: {CONTROLLER}",
    "getSyncStateSet": CONTROLLER,
    "getControllerMetaData": CONTROLLER,
    "getControllerConfig": CONTROLLER,
    "updateControllerConfig": CONTROLLER,
    "electMaster": CONTROLLER,
    "cleanBrokerMetadata": CONTROLLER,
}
"""Commands whose JSON is a file format of its own, or that print no JSON document."""

CAMEL = re.compile(r"^[a-z][a-zA-Z0-9]*$")
PLACEHOLDER = re.compile(r"^<[^>]+>$")


def documented_shapes() -> dict[str, list[Any]]:
    """Command -> the JSON examples in its ``## name`` section of docs/commands/*.md."""
    shapes: dict[str, list[Any]] = {}
    sections = [s for doc in DOCS for s in re.split(r"^## ", doc.read_text(), flags=re.M)[1:]]
    for section in sections:
        name = section.split("\n", 1)[0].strip().strip("`")
        blocks = re.findall(r"```json\n(.*?)```", section, flags=re.S)
        if blocks:
            shapes[name] = [json.loads(b) for b in blocks]
    return shapes


def mismatch(doc: Any, actual: Any, path: str = "$") -> str | None:
    """Why ``actual`` does not have the documented shape (None when it does)."""
    if doc is None or actual is None:
        return None  # null stands for "no value" on either side
    if isinstance(doc, dict):
        if not isinstance(actual, dict):
            return f"{path}: documented an object, got {type(actual).__name__}"
        if doc and all(PLACEHOLDER.match(k) for k in doc):
            (value_shape,) = doc.values()
            return next((m for k, v in actual.items() if (m := mismatch(value_shape, v, f"{path}[{k!r}]"))), None)
        bad = [k for k in actual if not CAMEL.match(k)]
        if bad:
            return f"{path}: keys not camelCase: {bad}"
        if set(doc) != set(actual):
            return f"{path}: documented keys {sorted(doc)}, got {sorted(actual)}"
        return next((m for k in doc if (m := mismatch(doc[k], actual[k], f"{path}.{k}"))), None)
    if isinstance(doc, list):
        if not isinstance(actual, list):
            return f"{path}: documented a list, got {type(actual).__name__}"
        if not doc:
            return None
        return next((m for i, v in enumerate(actual) if (m := mismatch(doc[0], v, f"{path}[{i}]"))), None)
    if isinstance(doc, bool) != isinstance(actual, bool) or isinstance(doc, str) != isinstance(actual, str):
        return f"{path}: documented {doc!r}, got {actual!r}"
    return None


def test_every_command_is_covered_or_exempt_with_a_reason() -> None:
    names = {e.name for e in registry.COMMANDS}
    assert names == set(CASES) | set(EXEMPT), "add the command to CASES (and docs/commands/) or to EXEMPT with a reason"
    missing = sorted(set(CASES) - set(documented_shapes()))
    assert not missing, f"docs/commands/*.md has no JSON example for: {missing}"


def schema_errors(name: str, doc: Any) -> list[str]:
    """Why ``doc`` is not valid under ``name``'s shipped schema (nothing when it is)."""
    import jsonschema

    schema = shipped_schema(name)
    assert schema is not None, f"{name} declares no document"
    validator = jsonschema.Draft202012Validator(schema)
    return [f"{'/'.join(map(str, e.absolute_path)) or '$'}: {e.message}" for e in validator.iter_errors(doc)]


def contract_violations(name: str, doc: Any) -> list[str]:
    """Why ``doc`` breaks ``name``'s contract: its shipped schema where it declares one, else the examples of its
    section of docs/commands/*.md (nothing when it holds)."""
    if shipped_schema(name) is not None:
        return schema_errors(name, doc)
    reasons = [mismatch(shape, doc) for shape in documented_shapes()[name]]
    return [r for r in reasons if r] if all(reasons) else []


def assert_contract(name: str, doc: Any) -> None:
    violations = contract_violations(name, doc)
    assert not violations, f"{name}: {violations}"


def test_declared_commands_are_shipped_and_their_documented_examples_are_valid() -> None:
    shapes = documented_shapes()
    names = declared()
    every = {e.name for e in registry.COMMANDS} | set(SUBCOMMAND_DOCUMENTS)
    assert sorted(names) == sorted(n for n in every if shipped_schema(n) is not None)
    assert {"profile list", "dev up"} <= set(names)
    bad = {name: errors for name in names for doc in shapes.get(name, []) if (errors := schema_errors(name, doc))}
    assert not bad, f"docs/commands examples not valid under their schema: {bad}"


def test_schema_errors_finds_what_it_should() -> None:
    doc = {"topics": ["Orders"]}
    assert schema_errors("topicList", doc) == []
    assert schema_errors("topicList", [doc])  # a top-level list
    assert any("topic_rows" in e for e in schema_errors("topicList", {**doc, "topic_rows": 1}))  # an undeclared key
    assert schema_errors("topicList", {"topics": [1]})  # a wrong type


def test_mismatch_finds_what_it_should() -> None:
    doc = {"results": [{"name": "x", "addrs": {"<id>": "a"}}], "outcome": "ok"}
    assert mismatch(doc, {"results": [{"name": "b", "addrs": {"0": "h:1"}}], "outcome": "ok"}) is None
    assert "camelCase" in mismatch(doc, {"results": [], "outcome": "ok", "min_offset": 1})
    assert "documented keys" in mismatch(doc, {"results": [{"name": "b"}], "outcome": "ok"})
    assert "documented a list" in mismatch(doc, {"results": {}, "outcome": "ok"})


PROFILE_CASES = [
    ["create", "prod", "-n", "127.0.0.1:9876", "--access-key", "a", "--secret-command", "x",
     "--broker-addr-map", "10.0.0.5:10911=127.0.0.1:1", "--tls", "--timeout", "7", "--default-format", "json"],
    ["create", "stage", "-n", "127.0.0.2:9876"],
    ["use", "stage"],
    ["use", "stage"],  # already current
    ["list"],
    ["show", "prod"],
    ["show"],  # the one in use
    ["show", "--resolved"],
    ["delete", "stage", "--dry-run"],
    ["delete", "stage"],
]  # fmt: skip
"""Invocations of the profile subcommands, in order, on an empty config file."""

DEV_CASES = {
    "dev up": ["--namesrv-port", "0", "--broker-port", "0", "--brokers", "1"],
    "dev namesrv": ["--port", "0"],
    "dev broker": ["--port", "0", "--broker-name", "broker-z"],  # -n: the name server above
}
"""The dev servers, each started with its ready line as its document; ``dev demo`` ends by itself."""


def subcommands() -> list[str]:
    """``"profile list"`` etc.: every subcommand of every command that has some, from its Typer app."""
    from mqadmin.cli.typer_app import load_command

    declared()  # imports every command module: the apps register as their modules load
    out = []
    for name in sorted(APPS):
        group = load_command(registry.find(name))
        ctx = group.make_context(name, [], resilient_parsing=True)
        out += [f"{name} {sub}" for sub in group.list_commands(ctx)]
    return out


def test_every_subcommand_declares_its_document_or_says_it_prints_none(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    subs = subcommands()
    assert {"profile list", "profile edit", "dev up", "dev demo"} <= set(subs)
    assert sorted(SUBCOMMAND_DOCUMENTS) == sorted(subs)
    undeclared = [s for s in subs if SUBCOMMAND_DOCUMENTS[s] is None]
    assert undeclared == ["profile edit"]
    covered = {f"profile {args[0]}" for args in PROFILE_CASES} | set(DEV_CASES) | {"dev demo"}
    assert covered == set(subs) - set(undeclared)
    shapes = documented_shapes()
    for sub in subs:
        r = run(monkeypatch, capsys, "help", *sub.split())
        assert r.code == 0, r.err
        text = r.out
        if sub in undeclared:
            assert NO_DOCUMENT in " ".join(text.split()) and "JSON document (" not in text, text
            assert sub not in shapes  # no example in docs/commands: its section says it prints none
        else:
            assert f"JSON document (--format json; contract 2; schema: mqadmin help {sub} --schema)" in text, text
            assert shapes[sub], f"docs/commands has no example of {sub}"


def test_help_prints_a_subcommands_schema_and_refuses_one_it_has_not(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def help_(*args: str) -> tuple[int, str, str]:
        r = run(monkeypatch, capsys, "help", *args)
        return r.code, r.out, r.err

    code, out, _ = help_("profile", "list", "--schema")
    assert code == 0 and json.loads(out) == shipped_schema("profile list")
    assert json.loads(out)["$id"] == "urn:mqadmin:json:2:profile:list"
    code, _, err = help_("profile", "edit", "--schema")
    assert code == 2 and "profile edit prints no JSON document" in err
    code, _, err = help_("dev", "upp")
    assert code == 2 and "dev has no subcommand 'upp'" in err and "up" in err
    code, _, err = help_("topicList", "x")
    assert code == 2 and "topicList has no subcommands" in err


def test_profile_documents_are_valid(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    write_config("")
    for args in PROFILE_CASES:
        r = run(monkeypatch, capsys, "profile", *args, "--format", "json")
        assert r.code == 0, (args, r.err)
        assert_contract(f"profile {args[0]}", r.json())


def test_dev_documents_are_valid(tmp_path: Path) -> None:
    """Each server's ready line (then SIGTERM: exit 0), and dev demo's document."""
    import subprocess

    started = []
    try:
        for sub, args in DEV_CASES.items():
            more = ["-n", started[0][1]["namesrvAddr"]] if sub == "dev broker" else []
            proc, ready = start_dev(sub.split()[1], *args, *more, "--data-dir", str(tmp_path / sub.split()[1]))
            started.append((proc, ready))
            assert_contract(sub, ready)
            assert ready["pid"] == proc.p.pid
        assert started[-1][1]["registered"] is True  # dev broker registered with dev up's name server
    finally:
        codes = [proc.stop() for proc, _ in reversed(started)]
    assert codes == [0] * len(DEV_CASES)
    demo = [sys.executable, "-m", "mqadmin", "--format", "json", "dev", "demo"]
    done = subprocess.run(demo, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert_contract("dev demo", json.loads(done.stdout))


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    with EmbeddedCluster(tmp_path_factory.mktemp("json-contract")) as c:
        yield c


def test_generate_fleet_document_is_valid(tmp_path: Path) -> None:
    import subprocess

    cmd = [sys.executable, "-m", "mqadmin", "generateFleet", "--out", str(tmp_path / "fleet"), "--sources", "1",
           "--clusters-per-source", "1", "--brokers", "2", "--topics", "20", "--format", "json"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert contract_violations("generateFleet", json.loads(done.stdout)) == []


def test_audit_document_is_valid(tmp_path: Path) -> None:
    """The audit's document, with and without a baseline, and as summary.json (the same without ``top``)."""
    import subprocess

    def mqadmin(*args: str) -> Any:
        done = subprocess.run([sys.executable, "-m", "mqadmin", "--format", "json", *args], capture_output=True,
                              text=True, timeout=300)  # fmt: skip
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    fleet = str(tmp_path / "fleet")
    mqadmin("generateFleet", "--out", fleet, "--sources", "2", "--brokers", "2", "--topics", "20", "--workers", "1")
    first = mqadmin("audit", fleet, "--out", str(tmp_path / "a1"), "--engine", "python", "--top", "3")
    second = mqadmin("audit", fleet, "--out", str(tmp_path / "a2"), "--engine", "python", "--baseline",
                     str(tmp_path / "a1"))  # fmt: skip
    assert first["top"] and first["baseline"] is None and second["baseline"]["unchanged"] == second["findings"] > 0
    for doc in (first, second):
        assert contract_violations("audit", doc) == []
    summary = json.loads((tmp_path / "a2" / "summary.json").read_text())
    assert contract_violations("audit", {**summary, "top": []}) == []


def test_each_command_json_matches_its_documented_shape(cluster: EmbeddedCluster, tmp_path: Path) -> None:
    import subprocess

    failures = []
    seen: dict[str, str] = {}
    for name, invocations in CASES.items():
        for args in invocations:
            args = [seen.get(a[1:-1], a) if a.startswith("{") and a.endswith("}") else a for a in args]
            args = [a.replace("{tmp}", str(tmp_path)) for a in args]
            cmd = [sys.executable, "-m", "mqadmin", name, *args, "-n", cluster.namesrv_addr, "--format", "json"]
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
            if done.returncode != 0:
                failures.append(f"{name} {args}: exit {done.returncode}: {done.stderr.strip()}")
                continue
            actual = json.loads(done.stdout)
            if isinstance(actual, dict):
                seen.update({f"{name}.{k}": str(v) for k, v in actual.items() if isinstance(v, (str, int))})
            if violations := contract_violations(name, actual):
                failures.append(f"{name} {args}: {violations}")
    assert not failures, "\n".join(failures)
