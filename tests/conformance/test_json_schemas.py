"""Read commands' ``--format json`` documents from real brokers (Apache 4.9, 5.3, 5.5 and the embedded cluster) are
valid under the JSON Schemas the package ships (mqadmin/cli/schemas.json, generated from each command's declared
document): what real servers send (missing runtime figures on 4.9, configs, message properties) fits the contract.
"""

from __future__ import annotations

from typing import Any

from tests.cli.test_json_contract import schema_errors
from tests.conformance.backends import Backend
from tests.conformance.test_cli_commands import mq, new_topic, on_cluster, wait_for_route
from tests.conftest import wait_until

GROUP = "TOOLS_CONSUMER"


def ours(b: Backend, *args: str) -> Any:
    r = mq("--format", "json", *args, "-n", b.namesrv_addr)
    assert r.code == 0, (args, r.code, r.err)
    return r.json()


def test_read_commands_documents_are_valid_under_their_shipped_schemas(backend: Backend) -> None:
    topic = new_topic("Schemas")
    assert mq("updateTopic", *on_cluster(backend), "-t", topic, "-r", "2", "-w", "2").code == 0
    wait_for_route(backend, topic, lambda doc: len(doc["queues"]) == 2)
    sent = ours(backend, "sendMessage", "-t", topic, "-p", "hello", "-k", "schemaKey", "-c", "TagA")
    found = wait_until(
        lambda: ours(backend, "queryMsgByKey", "-t", topic, "-k", "schemaKey")["messages"] or None,
        timeout=60, interval=0.5, what="the key indexed",
    )  # fmt: skip
    assert [m["msgId"] for m in found] == [sent["msgId"]]
    broker, addr = sent["broker"], sent["brokerAddr"]
    runs: list[tuple[str, list[str]]] = [
        ("sendMessage", []),
        ("clusterList", []),
        ("clusterList", ["-m"]),
        ("brokerStatus", ["-c", backend.cluster]),
        ("brokerStatus", ["-b", addr]),
        ("topicList", []),
        ("topicList", ["-c"]),
        ("topicRoute", ["-t", topic]),
        ("topicStatus", ["-t", topic]),
        ("getBrokerConfig", ["-c", backend.cluster]),
        ("getBrokerConfig", ["-b", addr]),
        ("getNamesrvConfig", []),
        ("queryMsgByKey", ["-t", topic, "-k", "schemaKey"]),
        ("queryMsgById", ["-i", sent["offsetMsgId"]]),
        ("queryMsgByUniqueKey", ["-t", topic, "-i", sent["msgId"]]),
        ("queryMsgByOffset", ["-t", topic, "-b", broker, "-i", str(sent["queueId"]), "-o", str(sent["queueOffset"])]),
        ("printMsg", ["-t", topic]),
        ("printMsgByQueue", ["-t", topic, "-a", broker, "-i", str(sent["queueId"]), "-p", "true", "-f", "true"]),
        ("consumeMessage", ["-t", topic, "-c", "1"]),
        ("decodeMessageId", ["-i", f"{sent['msgId']},{sent['offsetMsgId']}"]),
        ("skipAccumulatedMessage", ["-g", GROUP, "-t", topic]),  # (the group's offsets, for consumerProgress)
        ("consumerProgress", []),
        ("consumerProgress", ["-g", GROUP, "-t", topic, "-s", "true"]),
    ]
    failures = []
    for name, args in runs:
        doc = sent if name == "sendMessage" else ours(backend, name, *args)
        if errors := schema_errors(name, doc):  # (schema_errors insists that the command declares its document)
            failures.append(f"{name} {args}: {errors}")
    assert not failures, "\n".join(failures)
