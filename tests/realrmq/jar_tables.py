"""The command line of the generators that read Apache's jars into committed tables (``acl_table``,
``broker_config_table``): rewrite the table, or with ``--check`` exit 1 when the committed one is stale."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path


def generator_main(module: str, doc: str, output: Path, generate: Callable[[Path], str], argv: list[str] | None) -> int:
    """``generate``: the table's text from the ``lib`` directory of the downloaded Apache 5.5.0."""
    from tests.realrmq.apache import ensure_distribution

    parser = argparse.ArgumentParser(prog=f"python -m {module}", description=doc.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare with the committed file; exit 1 if stale")
    args = parser.parse_args(argv)
    text = generate(ensure_distribution("5.5.0") / "lib")
    if args.check:
        if output.read_text() != text:
            print(f"{output} is out of date: run python -m {module}", file=sys.stderr)
            return 1
        return 0
    from mqadmin.files import atomic_write, backup_of

    atomic_write(output, text.encode())
    backup_of(output).unlink(missing_ok=True)  # a generated file in the repository: git keeps its history
    print(f"wrote {output}")
    return 0
