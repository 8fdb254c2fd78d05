"""Regenerate the shell completions, the man page, docs/parity.md, docs/protocol-requests.md, the topology
JSON Schema and the admin client's operations index.

    python -m mqadmin.cli.generate            # writes completions/ and man/ under the current directory
    python -m mqadmin.cli.generate --check    # exit 1 listing the files that are out of date

Run it from the repository root after adding or changing a command.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def generated_files() -> dict[str, str]:
    """Relative path -> content of every generated file."""
    from mqadmin.admin.lazy_client import render_operations_index
    from mqadmin.cli.complete import SHELLS, script
    from mqadmin.cli.manpage import render_manpage
    from mqadmin.cli.parity import render_parity
    from mqadmin.cli.request_table import render_request_table
    from mqadmin.cli.typer_app import app
    from mqadmin.topology.schema import schema_text

    files = {f"completions/mqadmin.{shell}": script(shell) for shell in SHELLS}
    files["man/mqadmin.1"] = render_manpage(app)
    files["docs/parity.md"] = render_parity()
    files["docs/protocol-requests.md"] = render_request_table()
    files["mqadmin/topology/schema.json"] = schema_text()
    files["mqadmin/admin/operations.py"] = render_operations_index()
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mqadmin.cli.generate", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("."), help="directory holding completions/ and man/")
    parser.add_argument("--check", action="store_true", help="only report files that differ; exit 1 if any")
    args = parser.parse_args(argv)
    stale = []
    for rel, content in generated_files().items():
        path = args.out / rel
        current = path.read_text() if path.exists() else None
        if current == content:
            continue
        stale.append(rel)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content)
    verb = "out of date" if args.check else "written"
    for rel in stale:
        print(f"{verb}: {rel}", file=sys.stderr)
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
