"""Conformance of our name server and broker with real Apache RocketMQ 4.9.8 and 5.3.3.

* The real Java mqadmin works against our cluster (clusterList, updateTopic, topicRoute, topicList,
  topicStatus, ordered topics, deleteTopic).
* A real Apache broker registers with OUR name server and serves routes through it.
* OUR broker registers with a real Apache name server, announces new topics to it at once, and is
  dropped by it when our process dies.
"""

from __future__ import annotations

import asyncio
import json
import queue
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest

from mqadmin.admin.client import AdminClient
from mqadmin.admin.errors import ResponseError
from mqadmin.admin.messaging import send_message
from mqadmin.model.route import TopicRouteData
from mqadmin.wire import fastjson
from tests.conftest import wait_until
from tests.realrmq import apache

pytestmark = [pytest.mark.conformance, pytest.mark.timeout(900)]

VERSIONS = pytest.mark.parametrize("version", apache.VERSIONS)


@pytest.fixture(autouse=True)
def _needs_apache() -> None:
    reason = apache.skip_reason()
    if reason:
        pytest.skip(reason)


class Dev:
    """``mqadmin dev <what>`` as its own process; ``info`` is its JSON ready line."""

    def __init__(self, *args: str) -> None:
        cmd = [sys.executable, "-m", "mqadmin", "--format", "json", "dev", *args]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: lines.put(self.proc.stdout.readline()), daemon=True).start()  # type: ignore[union-attr]
        try:
            self.info = json.loads(lines.get(timeout=60))
        except (queue.Empty, json.JSONDecodeError):
            self.proc.kill()
            raise AssertionError(f"mqadmin dev {' '.join(args)} did not become ready") from None

    def kill9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(30)


def route(namesrv: str, topic: str) -> TopicRouteData | None:
    async def go() -> TopicRouteData | None:
        async with AdminClient([namesrv], timeout=10) as admin:
            try:
                return await admin.topic_route(topic)
            except ResponseError:
                return None

    return asyncio.run(go())


def brokers_of(namesrv: str) -> dict[str, dict[int, str]]:
    async def go() -> dict[str, dict[int, str]]:
        async with AdminClient([namesrv], timeout=10) as admin:
            return {n: b.broker_addrs for n, b in (await admin.cluster_info()).brokers.items()}

    return asyncio.run(go())


# --- the Java mqadmin against our cluster ---------------------------------------------------------


@pytest.fixture(scope="module")
def dev() -> Iterator[Dev]:
    d = Dev("up", "--namesrv-port", "0", "--broker-port", "0")
    yield d
    d.stop()


@VERSIONS
def test_java_mqadmin_against_our_cluster(dev, version):
    ns = dev.info["namesrvAddr"]
    addrs = sorted(b["addr"] for b in dev.info["brokers"])
    topic = f"JavaTopic{version.replace('.', '')}"

    out = apache.java_mqadmin(version, ["clusterList"], ns).stdout
    rows = [line.split() for line in out.splitlines() if line.startswith("DefaultCluster")]
    assert sorted(r[3] for r in rows) == addrs and all("V5_3_3" in r for r in rows)

    out = apache.java_mqadmin(version, ["updateTopic", "-c", "DefaultCluster", "-t", topic, "-r", "4", "-w", "4"], ns)
    assert sorted(re.findall(r"create topic to (\S+) success", out.stdout)) == addrs, out.stdout + out.stderr

    out = apache.java_mqadmin(version, ["topicRoute", "-t", topic], ns).stdout
    got = fastjson.loads(out[out.index("{") :])
    assert sorted(q["brokerName"] for q in got["queueDatas"]) == ["broker-a", "broker-b"]
    assert {q["writeQueueNums"] for q in got["queueDatas"]} == {4}

    listed = apache.java_mqadmin(version, ["topicList"], ns).stdout.split()
    assert topic in listed and "TBW102" in listed

    out = apache.java_mqadmin(version, ["topicList", "-c"], ns).stdout
    assert any(line.split()[:2] == ["DefaultCluster", topic] for line in out.splitlines() if line.strip())

    out = apache.java_mqadmin(version, ["topicStatus", "-t", topic], ns)
    rows = [line.split() for line in out.stdout.splitlines() if line.startswith("broker-")]
    assert len(rows) == 8 and "Exception" not in out.stdout + out.stderr

    out = apache.java_mqadmin(version, ["updateTopic", "-c", "DefaultCluster", "-t", topic, "-o", "true"], ns)
    assert "set cluster orderConf" in out.stdout, out.stdout + out.stderr
    assert route(ns, topic).order_topic_conf in ("broker-a:8;broker-b:8", "broker-b:8;broker-a:8")

    out = apache.java_mqadmin(version, ["deleteTopic", "-c", "DefaultCluster", "-t", topic], ns).stdout
    assert "delete topic [" + topic + "] from NameServer success" in out
    assert route(ns, topic) is None


@VERSIONS
def test_java_broker_status_and_config_read_our_broker(dev, version):
    addr = dev.info["brokers"][0]["addr"]
    ns = dev.info["namesrvAddr"]
    out = apache.java_mqadmin(version, ["brokerStatus", "-b", addr], ns).stdout
    table = {k.strip(): v.strip() for k, v in (line.split(":", 1) for line in out.splitlines() if ":" in line)}
    assert table["brokerVersionDesc"] == "V5_3_3" and table["putTps"] == "0.0 0.0 0.0", out
    out = apache.java_mqadmin(version, ["getBrokerConfig", "-b", addr], ns).stdout
    assert re.search(r"brokerName\s+=\s+broker-a", out) and re.search(r"autoCreateTopicEnable\s+=\s+true", out)


# --- a real Apache broker and our name server -------------------------------------------------------


@VERSIONS
def test_apache_broker_registers_with_our_name_server(version, tmp_path):
    ns = Dev("namesrv", "--port", "0", "--data-dir", str(tmp_path / "ns"))
    broker = apache.Broker(version, ns.info["namesrvAddr"], broker_name="broker-j")
    try:
        broker.start()  # ready = our cluster info lists it under its name, id and address
        addr = ns.info["namesrvAddr"]
        assert brokers_of(addr) == {"broker-j": {0: broker.addr}}
        tbw102 = route(addr, "TBW102")
        assert tbw102 is not None and tbw102.queue_datas[0].perm == 7  # its TBW102, learned from its body

        out = apache.java_mqadmin(version, ["updateTopic", "-c", "DefaultCluster", "-t", "ViaOurNamesrv"], addr)
        assert f"create topic to {broker.addr} success" in out.stdout, out.stdout + out.stderr
        wait_until(lambda: route(addr, "ViaOurNamesrv"), timeout=60, what="the Apache broker's re-registration")

        out = apache.java_mqadmin(version, ["clusterList"], addr).stdout
        assert "broker-j" in out and broker.addr in out
        broker.kill()
        wait_until(lambda: not brokers_of(addr), timeout=30, what="our name server dropping the dead broker")
    finally:
        broker.kill()
        ns.stop()


# --- our broker and a real Apache name server -------------------------------------------------------


@VERSIONS
def test_our_broker_registers_with_an_apache_name_server(version, tmp_path):
    with apache.NameServer(version) as ans:
        addr = ans.namesrv_addr
        ours = Dev("broker", "-n", addr, "--port", "0", "--data-dir", str(tmp_path / "b"))
        try:
            assert ours.info["registered"] is True
            broker_addr = ours.info["brokerAddr"]
            info = apache.cluster_info(addr)
            assert info["brokerAddrTable"]["broker-a"]["brokerAddrs"] == {"0": broker_addr}
            assert route(addr, "TBW102").queue_datas[0].perm == 7

            out = apache.java_mqadmin(version, ["updateTopic", "-b", broker_addr, "-t", "OnOurBroker"], addr)
            assert f"create topic to {broker_addr} success" in out.stdout, out.stdout + out.stderr
            created = route(addr, "OnOurBroker")  # announced before the create was acknowledged
            assert created is not None and created.queue_datas[0].broker_name == "broker-a"

            async def auto_create() -> str:
                async with AdminClient([addr], timeout=10) as admin:
                    return (await send_message(admin, "AutoOnOurBroker", b"hi")).broker_name

            assert asyncio.run(auto_create()) == "broker-a"
            assert route(addr, "AutoOnOurBroker").queue_datas[0].write_queue_nums == 4

            out = apache.java_mqadmin(version, ["clusterList"], addr).stdout
            assert broker_addr in out and "V5_3_3" in out
            ours.kill9()
            wait_until(lambda: "broker-a" not in apache.cluster_info(addr).get("brokerAddrTable", {}),
                       timeout=30, what="the Apache name server dropping our dead broker")  # fmt: skip
        finally:
            ours.stop()


@VERSIONS
def test_java_config_and_group_commands_against_our_cluster(dev, version):
    ns = dev.info["namesrvAddr"]
    out = apache.java_mqadmin(version, ["updateNamesrvConfig", "-k", "clusterTest", "-v", "true"], ns).stdout
    assert "update name server config success" in out
    out = apache.java_mqadmin(version, ["getNamesrvConfig"], ns).stdout
    assert re.search(r"clusterTest\s+=\s+true", out) and re.search(r"orderMessageEnable\s+=\s+true", out)

    group = f"JavaGroup{version.replace('.', '')}"
    out = apache.java_mqadmin(version, ["updateSubGroup", "-c", "DefaultCluster", "-g", group, "-r", "5"], ns).stdout
    assert out.count("create subscription group to") == 2, out

    async def groups() -> list[dict]:
        async with AdminClient([ns]) as admin:
            found = []
            for b in dev.info["brokers"]:
                found.append((await admin.subscription_groups(b["addr"]))[group])
            return found

    assert [(g["retryMaxTimes"], g["consumeBroadcastEnable"]) for g in asyncio.run(groups())] == [(5, False)] * 2

    args = ["updateBrokerConfig", "-c", "DefaultCluster", "-k", "maxMessageSize", "-v", "1048576"]
    out = apache.java_mqadmin(version, args, ns).stdout
    assert out.count("update broker config success") == 2, out
    out = apache.java_mqadmin(version, ["getBrokerConfig", "-b", dev.info["brokers"][1]["addr"]], ns).stdout
    assert re.search(r"maxMessageSize\s+=\s+1048576", out)
