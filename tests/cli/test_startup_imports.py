"""What a one-request command imports (start-up is most of its time): a valid command line never imports
Typer or click (mqadmin.cli.fast_parse parses it), plain output never imports rich, the request declarations
a command does not use are never run, nor orjson (the servers' header codec), and a command whose requests
go one after the other runs over blocking sockets without importing asyncio (nor ssl without TLS).

Each command runs in a fresh interpreter against an embedded cluster, with stdout a pipe (plain output);
the test checks its output and then which modules it loaded. Timings are measured in bench/bench_cli.py.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.devprocs import EmbeddedCluster

RUN_AND_LIST_MODULES = """
import json, sys, types
sys.modules.pop("pathlib", None)  # loaded at start-up by a development install's import finder, not by mqadmin
from mqadmin.cli.main import main
code = main(sys.argv[1:])
sys.stdout.flush()
loaded = {name: type(m) is types.ModuleType for name, m in list(sys.modules.items()) if m is not None}
sys.stderr.write("\\nMODULES " + json.dumps({"code": code, "loaded": loaded}) + "\\n")
"""

UNUSED_BY_ONE_REQUEST = (
    "auth", "consumers", "lite", "messages", "namesrv_admin", "offsets", "pop", "static_topics", "stats",
)  # fmt: skip
"""Declaration modules (mqadmin.model.rpc.*) that topicList, clusterList and updateTopic never need."""


def run(args: list[str]) -> tuple[int, str, dict[str, bool]]:
    """(exit code, stdout, module name -> whether it has run) of ``mqadmin ARGS`` in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", RUN_AND_LIST_MODULES, *args], capture_output=True, text=True, timeout=120
    )
    report = json.loads(done.stderr.rsplit("MODULES ", 1)[1])
    return report["code"], done.stdout, report["loaded"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    with EmbeddedCluster(tmp_path_factory.mktemp("startup-imports")) as c:
        yield c


def executed(loaded: dict[str, bool], prefix: str) -> set[str]:
    return {name for name, ran in loaded.items() if ran and (name == prefix or name.startswith(prefix + "."))}


def event_loop_modules(loaded: dict[str, bool]) -> set[str]:
    """What a command run over asyncio loads and one run over blocking sockets must not."""
    return {m for prefix in ("asyncio", "ssl", "concurrent.futures", "logging") for m in executed(loaded, prefix)}


def test_help_imports_neither_rich_nor_the_admin_client() -> None:
    code, out, loaded = run(["--help"])
    assert code == 0 and "updateTopic" in out
    assert executed(loaded, "typer")  # help is Typer's
    assert not executed(loaded, "rich")
    assert not executed(loaded, "mqadmin.admin")
    assert not executed(loaded, "asyncio")
    assert not executed(loaded, "mqadmin.cli.settings")  # nor profiles, config files or tomllib


def test_a_commands_help_does_not_import_asyncio() -> None:
    """Options that complete names from the cluster load the client only when the shell asks (at a Tab)."""
    code, out, loaded = run(["topicRoute", "--help"])
    assert code == 0 and "--topic" in out
    assert not executed(loaded, "asyncio")
    assert not executed(loaded, "mqadmin.cli.live_names")


def test_one_request_commands_with_plain_output_do_not_import_rich(cluster: EmbeddedCluster) -> None:
    ns = cluster.namesrv_addr
    code, out, loaded = run(["updateTopic", "-n", ns, "-c", cluster.cluster, "-t", "StartupImports"])
    assert code == 0 and out.count("created") == 2
    assert not executed(loaded, "typer") and not executed(loaded, "click")
    assert not executed(loaded, "rich")
    assert not event_loop_modules(loaded)  # -c: both masters at once, on threads over blocking sockets
    assert not executed(loaded, "mqadmin.model.auth")

    code, out, loaded = run(["topicList", "-n", ns])
    assert code == 0 and "StartupImports" in out.split()
    assert not executed(loaded, "typer") and not executed(loaded, "click")
    assert not executed(loaded, "rich")
    unused = {f"mqadmin.model.rpc.{m}" for m in UNUSED_BY_ONE_REQUEST}
    assert not unused & executed(loaded, "mqadmin.model.rpc")
    assert not executed(loaded, "mqadmin.model.access")  # ACL rules: only requests that declare one load them
    assert not executed(loaded, "hashlib")  # only to sign requests or to cache an address server's answer
    assert not executed(loaded, "mqadmin.transport.credentials")  # nor the class of the credentials
    assert not executed(loaded, "orjson")  # the servers' header codec: a client's few headers take json's
    assert not executed(loaded, "pathlib")  # the config file and secrets are found with os.path
    assert not executed(loaded, "mqadmin.model.topic")  # topic configs: topicList asks the name server only
    assert not executed(loaded, "mqadmin.cli.config")  # no config file here: its reader and profiles not loaded

    code, out, loaded = run(["--format", "table", "clusterList", "-n", ns])
    assert code == 0 and "broker-a" in out and "broker-b" in out
    assert not executed(loaded, "typer") and not executed(loaded, "click")
    assert not executed(loaded, "rich")
    assert not unused & executed(loaded, "mqadmin.model.rpc")
    assert not executed(loaded, "mqadmin.model.broker_consume")  # declared with GET_BROKER_CONSUME_STATS only
    assert not executed(loaded, "mqadmin.model.auth")  # ACL users and policies: only to explain a failure
    assert not executed(loaded, "orjson")
    assert not event_loop_modules(loaded)


def test_a_usage_error_is_typer_s(cluster: EmbeddedCluster) -> None:
    code, _, loaded = run(["topicList", "-n", cluster.namesrv_addr, "--no-such-option"])
    assert code == 2 and executed(loaded, "typer")


def test_every_declaration_module_is_listed_and_they_load_together() -> None:
    """Declarations load on first use, so a request code declared twice, or a malformed header, would only fail
    when used: load them all and read every header's fields."""
    from mqadmin.model import rpc

    package = Path(rpc.__file__).parent
    on_disk = {p.stem for p in package.glob("*.py")} - {"__init__", "spec", "bodies"}
    assert set(rpc.DECLARATION_MODULES) == on_disk
    script = (
        "import importlib; from mqadmin.model import rpc\n"
        "for m in rpc.DECLARATION_MODULES: importlib.import_module('mqadmin.model.rpc.' + m)\n"
        "for r in rpc.REGISTRY.values():\n"
        "    for h in (r.header, r.response_header):\n"
        "        if h is not None: h.wire_fields()  # raises on a malformed header declaration\n"
        "print(len(rpc.REGISTRY))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 50


def test_commands_over_blocking_sockets_run_without_asyncio(cluster: EmbeddedCluster) -> None:
    """Each command that opts in to blocking sockets, with its output checked, in the order a user would run
    them: create a topic on one broker, change it, list and route it, read the broker, and a KV entry; then the
    fan-outs, which ask every master (or name server) at once on threads: a topic, its permission and a group on
    the cluster, the brokers' config and runtime, write permission, the name servers' config."""
    ns, broker = cluster.namesrv_addr, cluster.broker_addrs["broker-a"]
    with socket.create_server(("127.0.0.1", 0)) as s:
        dead = f"127.0.0.1:{s.getsockname()[1]}"
    code, _, _ = run(["updateKvConfig", "-n", ns, "-s", "StartupNs", "-k", "color", "-v", "blue"])
    assert code == 0
    expectations = [  # (command, words that one line of its output must hold)
        (["updateTopic", "-n", ns, "-b", broker, "-t", "Sequential"], "broker-a created"),
        (["updateTopic", "-n", ns, "-b", broker, "-t", "Sequential", "-w", "4"], "writeQueueNums 8→4"),
        (["updateTopicPerm", "-n", ns, "-b", broker, "-t", "Sequential", "-p", "4"], "perm 6→4"),
        (["topicList", "-n", ns], "Sequential"),
        (["topicList", "-n", f"{dead};{ns}"], "Sequential"),  # the next name server when one is down
        (["topicRoute", "-n", ns, "-t", "Sequential"], f"broker-a master {broker}"),
        (["topicClusterList", "-n", ns, "-t", "Sequential"], cluster.cluster),
        (["updateBrokerConfig", "-n", ns, "-b", broker, "-k", "maxMessageSize", "-v", "65536"], "broker-a updated"),
        (["getBrokerConfig", "-n", ns, "-b", broker], "maxMessageSize 65536"),
        (["brokerStatus", "-n", ns, "-b", broker], "brokerVersionDesc"),
        (["getKVConfig", "-n", ns, "-s", "StartupNs", "-k", "color"], "blue"),
        (["getKVConfig", "-n", ns, "-s", "StartupNs"], "color blue"),
        (["updateTopic", "-n", ns, "-c", cluster.cluster, "-t", "FannedOut", "-o", "true"], "broker-b created"),
        (["updateTopic", "-n", ns, "-c", cluster.cluster, "-t", "FannedOut", "-r", "4"], "broker-b updated"),
        (["updateTopicPerm", "-n", ns, "-c", cluster.cluster, "-t", "FannedOut", "-p", "4"], "broker-b perm 6→4"),
        (
            ["updateBrokerConfig", "-n", ns, "-c", cluster.cluster, "-k", "maxMessageSize", "-v", "32768"],
            "broker-b updated",
        ),
        (["getBrokerConfig", "-n", ns, "-c", cluster.cluster], "broker-b maxMessageSize 32768"),
        (["updateSubGroup", "-n", ns, "-c", cluster.cluster, "-g", "FannedOutGroup"], "broker-b created"),
        (["deleteSubGroup", "-n", ns, "-c", cluster.cluster, "-g", "FannedOutGroup"], "broker-b deleted"),
        (["deleteTopic", "-n", ns, "-c", cluster.cluster, "-t", "FannedOut"], "broker-b deleted"),
        (["clusterList", "-n", ns], f"broker-b 0 master {cluster.broker_addrs['broker-b']}"),
        (["brokerStatus", "-n", ns, "-c", cluster.cluster], f"{cluster.broker_addrs['broker-b']} brokerVersionDesc"),
        (["wipeWritePerm", "-n", ns, "-b", "broker-b"], "ok"),
        (["addWritePerm", "-n", ns, "-b", "broker-b"], "ok"),
        (["deleteKvConfig", "-n", ns, "-s", "StartupNs", "-k", "color"], "deleted"),
        (["getNamesrvConfig", "-n", ns], "clusterTest"),
    ]
    for args, words in expectations:
        code, out, loaded = run(args)
        assert code == 0, (args, out)
        assert any(set(words.split()) <= set(line.split()) for line in out.splitlines()), (args, out)
        assert not event_loop_modules(loaded), args
        assert not executed(loaded, "mqadmin.transport.tls"), args  # without TLS, nor its settings


def test_sequential_commands_fail_as_before_without_asyncio() -> None:
    with socket.create_server(("127.0.0.1", 0)) as s:
        dead = f"127.0.0.1:{s.getsockname()[1]}"
    script = [sys.executable, "-c", RUN_AND_LIST_MODULES, "topicList", "-n", dead]
    done = subprocess.run(script, capture_output=True, text=True, timeout=120)
    error, report = done.stderr.rsplit("MODULES ", 1)
    assert json.loads(report)["code"] == 4
    assert error.strip().splitlines() == [
        f"mqadmin: error: no name server answered (connection to {dead} refused: Connection refused)",
        "  hint: is a name server running there? pass -n host:9876 or set NAMESRV_ADDR",
    ]
    assert not event_loop_modules(json.loads(report)["loaded"])
