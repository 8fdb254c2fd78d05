"""Under ``--format json`` every command fails the same way: nothing on stdout, one error document on stderr
(``{"error": {"code", "exitCode", "message", "hint"}}``, docs/cli.md), and the documented exit code.

Each registered command runs for real with a name server that is not there (a closed loopback port) or, for a
command that needs none, with another failing input.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from mqadmin.cli import registry
from mqadmin.cli.documents import shipped_error_schema
from mqadmin.cli.errors import ExitCode

NS = "{ns}"
"""Replaced by the closed port's address."""
UNREACHABLE = ["-n", NS]
NO_NAMESRV = ExitCode.NAMESRV_UNREACHABLE
MSG_ID = "7F0000011C2A18B4AAC27A4D0C830000"

CASES: dict[str, tuple[list[str], ExitCode]] = {
    "updateTopic": (["-c", "C", "-t", "T"], NO_NAMESRV),
    "deleteTopic": (["-c", "C", "-t", "T"], NO_NAMESRV),
    "topicRoute": (["-t", "T"], NO_NAMESRV),
    "topicList": ([], NO_NAMESRV),
    "topicStatus": (["-t", "T"], NO_NAMESRV),
    "updateOrderConf": (["-t", "T", "-m", "get"], NO_NAMESRV),
    "updateSubGroup": (["-c", "C", "-g", "G"], NO_NAMESRV),
    "updateSubGroupList": (["-c", "C", "-f", "tests/data/groups.json"], NO_NAMESRV),
    "deleteSubGroup": (["-c", "C", "-g", "G"], NO_NAMESRV),
    "getConsumerConfig": (["-g", "G"], NO_NAMESRV),
    "updateTopicPerm": (["-c", "C", "-t", "T", "-p", "4"], NO_NAMESRV),
    "updateTopicList": (["-c", "C", "-f", "tests/data/topic_list.json"], NO_NAMESRV),
    "topicClusterList": (["-t", "T"], NO_NAMESRV),
    "allocateMQ": (["-t", "T", "-i", "c1,c2"], NO_NAMESRV),
    "updateStaticTopic": (["-t", "T", "-qn", "4", "-c", "C"], NO_NAMESRV),
    "remappingStaticTopic": (["-t", "T", "-c", "C"], NO_NAMESRV),
    "getBrokerLiteInfo": (["-c", "C"], NO_NAMESRV),
    "getParentTopicInfo": (["-p", "T"], NO_NAMESRV),
    "getLiteTopicInfo": (["-p", "T", "-l", "L"], NO_NAMESRV),
    "getLiteClientInfo": (["-p", "T", "-g", "G", "-c", "client"], NO_NAMESRV),
    "getLiteGroupInfo": (["-p", "T", "-g", "G"], NO_NAMESRV),
    "triggerLiteDispatch": (["-p", "T", "-g", "G"], NO_NAMESRV),
    "clusterList": ([], NO_NAMESRV),
    "top": (["--count", "1"], NO_NAMESRV),
    "brokerStatus": (["-c", "C"], NO_NAMESRV),
    "clusterRT": (["--count", "1"], NO_NAMESRV),
    "statsAll": ([], NO_NAMESRV),
    "exportConfigs": (["-c", "C", "-f", "{tmp}/configs.json"], NO_NAMESRV),
    "exportMetrics": (["-c", "C", "-f", "{tmp}/metrics.json"], NO_NAMESRV),
    "getBrokerConfig": (["-c", "C"], NO_NAMESRV),
    "updateBrokerConfig": (["-c", "C", "-k", "k", "-v", "v"], NO_NAMESRV),
    "brokerConsumeStats": (["-b", NS], ExitCode.FAILURE),
    "sendMsgStatus": (["-b", "broker-a"], NO_NAMESRV),
    "cleanExpiredCQ": (["-c", "C"], NO_NAMESRV),
    "cleanUnusedTopic": (["-c", "C"], NO_NAMESRV),
    "deleteExpiredCommitLog": (["-c", "C"], NO_NAMESRV),
    "setCommitLogReadAheadMode": (["-c", "C", "-m", "0"], NO_NAMESRV),
    "getColdDataFlowCtrInfo": (["-c", "C"], NO_NAMESRV),
    "updateColdDataFlowCtrGroupConfig": (["-c", "C", "-g", "G", "-v", "1"], NO_NAMESRV),
    "removeColdDataFlowCtrGroupConfig": (["-c", "C", "-g", "G"], NO_NAMESRV),
    "switchTimerEngine": (["-c", "C", "-e", "R"], NO_NAMESRV),
    "resetMasterFlushOffset": (["-b", NS, "-o", "0"], NO_NAMESRV),
    "getNamesrvConfig": ([], NO_NAMESRV),  # a fan-out to the name servers: none answered
    "updateNamesrvConfig": (["-k", "k", "-v", "v"], NO_NAMESRV),
    "getKvConfig": (["-s", "NS"], NO_NAMESRV),
    "updateKvConfig": (["-s", "NS", "-k", "k", "-v", "v"], NO_NAMESRV),
    "deleteKvConfig": (["-s", "NS", "-k", "k"], NO_NAMESRV),
    "wipeWritePerm": (["-b", "broker-a"], NO_NAMESRV),
    "addWritePerm": (["-b", "broker-a"], NO_NAMESRV),
    "sendMessage": (["-t", "T", "-p", "x"], NO_NAMESRV),
    "consumeMessage": (["-t", "T"], NO_NAMESRV),
    "createUser": (["-c", "C", "-u", "u", "-p", "p"], NO_NAMESRV),
    "updateUser": (["-c", "C", "-u", "u", "-p", "p"], NO_NAMESRV),
    "deleteUser": (["-c", "C", "-u", "u"], NO_NAMESRV),
    "getUser": (["-c", "C", "-u", "u"], NO_NAMESRV),
    "listUser": (["-c", "C"], NO_NAMESRV),
    "copyUser": (["-f", NS, "-t", NS], ExitCode.FAILURE),
    "createAcl": (["-c", "C", "-s", "User:u", "-r", "Topic:*", "-a", "Pub", "-d", "Allow"], NO_NAMESRV),
    "updateAcl": (["-c", "C", "-s", "User:u", "-r", "Topic:*", "-a", "Pub", "-d", "Allow"], NO_NAMESRV),
    "deleteAcl": (["-c", "C", "-s", "User:u"], NO_NAMESRV),
    "getAcl": (["-c", "C", "-s", "User:u"], NO_NAMESRV),
    "listAcl": (["-c", "C"], NO_NAMESRV),
    "copyAcl": (["-f", NS, "-t", NS], ExitCode.FAILURE),
    "queryMsgById": (["-i", MSG_ID, "-t", "T"], NO_NAMESRV),
    "queryMsgByUniqueKey": (["-t", "T", "-i", MSG_ID], NO_NAMESRV),
    "queryMsgByKey": (["-t", "T", "-k", "k"], NO_NAMESRV),
    "queryMsgByOffset": (["-t", "T", "-b", "broker-a", "-i", "0", "-o", "0"], NO_NAMESRV),
    "printMsg": (["-t", "T"], NO_NAMESRV),
    "printMsgByQueue": (["-t", "T", "-a", "broker-a", "-i", "0"], NO_NAMESRV),
    "queryCq": (["-t", "T", "-q", "0", "-i", "0"], NO_NAMESRV),
    "queryMsgTraceById": (["-i", MSG_ID], NO_NAMESRV),
    "checkMsgSendRT": (["-t", "T"], NO_NAMESRV),
    "decodeMessageId": (["-i", "XYZ"], ExitCode.USAGE),
    "resendDlqMessage": (["-g", "G"], NO_NAMESRV),
    "consumerProgress": ([], NO_NAMESRV),
    "consumerConnection": (["-g", "G"], NO_NAMESRV),
    "producerConnection": (["-g", "G", "-t", "T"], NO_NAMESRV),
    "producer": (["-b", NS], ExitCode.FAILURE),
    "consumerStatus": (["-g", "G"], NO_NAMESRV),
    "getConsumerStatus": (["-g", "G", "-t", "T"], NO_NAMESRV),
    "setConsumeMode": (["-c", "C", "-t", "T", "-g", "G", "-m", "POP"], NO_NAMESRV),
    "resetOffsetByTime": (["-g", "G", "-t", "T", "-s", "0"], NO_NAMESRV),
    "skipAccumulatedMessage": (["-g", "G", "-t", "T"], NO_NAMESRV),
    "cloneGroupOffset": (["-s", "G", "-d", "G2", "-t", "T"], NO_NAMESRV),
    "plan": (["-f", "tests/data/topology.toml"], NO_NAMESRV),
    "apply": (["-f", "tests/data/topology.toml"], NO_NAMESRV),
    "exportTopology": (["-c", "C"], NO_NAMESRV),
    "wait": ([], ExitCode.USAGE),  # nothing to wait for (an unreachable name server: exit 7, still waiting)
    "doctor": ([], NO_NAMESRV),
    "startMonitoring": (["--count", "1"], NO_NAMESRV),
    "exportMetadata": (["--out", "{tmp}/export"], ExitCode.FAILURE),  # no cluster could be collected
    "audit": (["{tmp}/no-such-export", "--out", "{tmp}/audit"], ExitCode.USAGE),
    "generateFleet": (["--out", "{tmp}/fleet", "--brokers", "1", "--topics", "0"], ExitCode.USAGE),
    "haStatus": (["-c", "C"], NO_NAMESRV),
    "getBrokerEpoch": (["-c", "C"], NO_NAMESRV),
    "getSyncStateSet": (["-a", NS, "-b", "broker-a"], ExitCode.FAILURE),
    "getControllerMetaData": (["-a", NS], ExitCode.FAILURE),
    "getControllerConfig": (["-a", NS], ExitCode.FAILURE),
    "updateControllerConfig": (["-a", NS, "-k", "k", "-v", "v"], ExitCode.FAILURE),
    "electMaster": (["-a", NS, "-b", "1", "-bn", "broker-a", "-c", "C"], ExitCode.FAILURE),
    "cleanBrokerMetadata": (["-a", NS, "-bn", "broker-a", "-c", "C"], ExitCode.FAILURE),
    "checkRocksdbCqWriteProgress": (["-c", "C"], NO_NAMESRV),
    "rocksDBConfigToJson": (["-c", "C", "-t", "topics"], NO_NAMESRV),
    "exportPopRecord": (["-c", "C"], NO_NAMESRV),
    "profile": (["show", "NoSuchProfile"], ExitCode.USAGE),
    "dev": (["up", "--brokers", "0"], ExitCode.USAGE),
    "help": (["noSuchCommand"], ExitCode.USAGE),
}
"""Per command: its arguments (``-n`` with the closed port is added unless the command takes none) and the exit
code its failure has."""

NO_NS_OPTION = {"decodeMessageId", "audit", "generateFleet", "profile", "dev", "help"}
"""Commands that take no name server (they fail on a local input)."""

REPO = Path(__file__).resolve().parents[2]
ERRORS = jsonschema.Draft202012Validator(shipped_error_schema())
"""The error document's schema, as the package ships it."""


@pytest.fixture(scope="module")
def closed_addr() -> str:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


def test_every_command_has_a_failing_case() -> None:
    assert set(CASES) == {e.name for e in registry.COMMANDS}


def test_the_error_document_is_what_docs_cli_md_shows() -> None:
    from mqadmin.cli.errors import error_document

    doc = error_document("no name server answered", "pass -n host:9876", ExitCode.NAMESRV_UNREACHABLE)
    assert doc == {
        "error": {"code": "NAMESRV_UNREACHABLE", "exitCode": 4, "message": "no name server answered",
                  "hint": "pass -n host:9876"},
        "document": None,
    }  # fmt: skip
    assert list(ERRORS.iter_errors(doc)) == []
    assert '"code": "NAMESRV_UNREACHABLE", "exitCode": 4' in (REPO / "docs" / "cli.md").read_text()


@pytest.mark.parametrize("name", sorted(CASES))
def test_failure_under_format_json_is_one_error_document_on_stderr(name: str, closed_addr: str, tmp_path: Path) -> None:
    args, code = CASES[name]
    args = [a.replace(NS, closed_addr).replace("{tmp}", str(tmp_path)) for a in args]
    if name not in NO_NS_OPTION:
        args += ["-n", closed_addr]
    cmd = [sys.executable, "-m", "mqadmin", name, *args, "--format", "json", "--timeout", "5"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=REPO, stdin=subprocess.DEVNULL)
    assert done.stdout == "", f"{name}: stdout: {done.stdout!r}"
    doc = json.loads(done.stderr.splitlines()[-1])  # after any warning lines
    assert list(ERRORS.iter_errors(doc)) == [], doc
    assert (done.returncode, doc["error"]["exitCode"], doc["error"]["code"]) == (int(code), int(code), code.name), doc
    assert doc["error"]["message"] and isinstance(doc["error"]["hint"], str | None), doc
