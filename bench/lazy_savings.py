"""What each start-up laziness of the CLI saves, in instructions (callgrind), against an embedded cluster.

Each command runs under ``valgrind --tool=callgrind`` as it is, then once with one mechanism turned off by a
prelude that does what the eager alternative would (import what the mechanism defers) before the command
starts; the difference is that mechanism's saving (docs/development.md, Start-up):

* ``fast-parser``: every command line parsed by the Typer app;
* ``registry``: every command module imported (as a registry that imported its commands would);
* ``admin-client``: ``AdminClient`` with all its operation modules in place of ``LazyAdminClient``;
* ``declarations``: every request declaration module run when bound, not at first use (``_Deferred``);
* ``admin-names``: every name of ``mqadmin.admin`` imported with the package (not on first use).

    python bench/lazy_savings.py                      # topicList and updateTopic -c
    python bench/lazy_savings.py --cases topicList

Instruction counts are deterministic to within a fraction of a percent, unlike wall time on a loaded machine.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

PRELUDES = {
    "as is": "",
    "fast-parser": "from mqadmin.cli import fast_parse\nfast_parse.parse_command_line = lambda args: None\n",
    "registry": (
        "import importlib\n"
        "from mqadmin.cli import registry\n"
        "for e in registry.COMMANDS:\n"
        "    importlib.import_module('mqadmin.cli.commands.' + e.module)\n"
    ),
    "admin-client": (
        "from mqadmin.admin import lazy_client\n"
        "from mqadmin.admin.client import AdminClient\n"
        "lazy_client.LazyAdminClient = AdminClient\n"
    ),
    "declarations": (
        "from mqadmin.model import rpc\n"
        "_bind = rpc.__getattr__\n"
        "def _eager(name):\n"
        "    module = _bind(name)\n"
        "    module.__dict__\n"
        "    return module\n"
        "rpc.__getattr__ = _eager\n"
    ),
    "admin-names": "import mqadmin.admin as a\nfor n in a.__all__:\n    getattr(a, n)\n",
}
WARM_UP = PRELUDES["registry"] + PRELUDES["admin-client"] + "from mqadmin.model import rpc\nrpc.load_all()\n"
"""Run first: every module imported once, so that no measured run includes writing bytecode."""
RUN = "import sys\nsys.argv = ['mqadmin', *sys.argv[1:]]\nfrom mqadmin.cli import console\nconsole()\n"


def instructions(prelude: str, args: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="lazy-savings-") as cwd:
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c", prelude + RUN]
            + args,
            capture_output=True,
            text=True,
            cwd=cwd,
            env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"},
        )
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {done.stdout[-300:]} {done.stderr[-600:]}")
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"no instruction count from callgrind: {done.stderr[-300:]}")
    return int(found.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="topicList,updateTopic -c")
    opts = parser.parse_args()
    from tests.devprocs import EmbeddedCluster

    with tempfile.TemporaryDirectory(prefix="lazy-savings-cluster-") as tmp, EmbeddedCluster(Path(tmp)) as cluster:
        ns = cluster.namesrv_addr
        for case in [c.strip() for c in opts.cases.split(",")]:
            counts = {}
            for name, prelude in [("warm-up", WARM_UP), *PRELUDES.items()]:
                args = ["topicList", "-n", ns]
                if case == "updateTopic -c":
                    args = ["updateTopic", "-n", ns, "-c", cluster.cluster, "-t", f"Lazy_{uuid.uuid4().hex[:10]}"]
                counts[name] = instructions(prelude, args)
            base = counts["as is"]
            print(f"{case}: {base / 1e6:.0f}M instructions as is")
            for name, n in counts.items():
                if name not in ("as is", "warm-up"):
                    print(f"  without {name:<13} {n / 1e6:6.0f}M  (+{(n - base) / 1e6:.0f}M, +{(n - base) / base:.0%})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
