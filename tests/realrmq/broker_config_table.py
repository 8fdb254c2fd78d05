"""Generate ``mqadmin/server/broker/apache_broker_config.json``, every broker setting of Apache RocketMQ 5.5.0
(BrokerConfig, NettyServerConfig, NettyClientConfig, MessageStoreConfig: what its GET_BROKER_CONFIG reports and
its UPDATE_BROKER_CONFIG sets), from its published jars (the distribution the harness downloads).

    python -m tests.realrmq.broker_config_table            # rewrite the file
    python -m tests.realrmq.broker_config_table --check    # exit 1 when the committed file differs

Each key gets its type, whether an update can set it (Apache's ``MixAll.properties2Object`` calls a setter only
for a number, boolean or text parameter; an enum-typed setting such as brokerRole is read at start only) and the
default a freshly built config object reports (``MixAll.object2Properties``; null when it reports nothing). The
defaults come from running Java over the jars (``java/BrokerConfigTable.java``): field initialisers are code,
which a class-file reader would have to interpret. Defaults that depend on the machine are made fixed: 4 cores
for the thread-pool sizes, ``/home/rocketmq`` as the home directory, no ROCKETMQ_HOME, and the host's name and
address (brokerName, brokerIP1, brokerIP2) left out.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

VERSION = "5.5.0"
OUTPUT = Path(__file__).resolve().parents[2] / "mqadmin" / "server" / "broker" / "apache_broker_config.json"
SOURCE = Path(__file__).with_name("java") / "BrokerConfigTable.java"
HOST_DEPENDENT = frozenset({"brokerName", "brokerIP1", "brokerIP2"})
"""Defaults Apache takes from the machine's name and address: left out (the embedded broker reports its own)."""


def build(lib: Path) -> dict[str, Any]:
    from tests.realrmq.apache import find_java

    java = find_java()
    if java is None:
        raise RuntimeError("no java on PATH")
    out = subprocess.run(
        [java, "-XX:ActiveProcessorCount=4", "-Duser.home=/home/rocketmq", "-Drocketmq.home.dir=",
         "-cp", f"{lib}/*", str(SOURCE)],
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    keys: dict[str, list[Any]] = {}
    for line in out.stdout.splitlines():
        if not line.startswith("CONFIG\t"):
            continue  # logback's start-up chatter
        _, key, type_, settable, value = line.split("\t", 4)
        default = value[1:] if value.startswith("=") and key not in HOST_DEPENDENT else None
        keys[key] = [type_ if settable == "true" else "start-only", default]
    return {"version": VERSION, "keys": dict(sorted(keys.items()))}


def render(table: dict[str, Any]) -> str:
    """One key per line, so a new Apache version shows as a readable diff."""
    rows = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in table["keys"].items())
    return f'{{\n "version": {json.dumps(table["version"])},\n "keys": {{\n{rows}\n }}\n}}\n'


def text(lib: Path) -> str:
    """The table as committed, from Apache's jars in ``lib``."""
    return render(build(lib))


if __name__ == "__main__":
    from tests.realrmq.jar_tables import generator_main

    sys.exit(generator_main("tests.realrmq.broker_config_table", __doc__ or "", OUTPUT, text, sys.argv[1:]))
