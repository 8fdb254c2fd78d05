"""Regenerate the shell completions, the man page, docs/parity.md, docs/protocol-requests.md, the topology
JSON Schema, the commands' JSON Schemas (mqadmin/cli/schemas.json), the admin client's operations index, the
exit-code tables of README.md and docs/cli.md (between their ``<!-- exit codes -->`` markers) and the document
field tables of docs/commands/*.md (between ``<!-- document of CMD -->`` markers).

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
    from mqadmin.cli.documents import schemas_text
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
    files["mqadmin/cli/schemas.json"] = schemas_text()
    files["mqadmin/admin/operations.py"] = render_operations_index()
    return files


EXIT_CODE_TABLES = ("README.md", "docs/cli.md")
BEGIN_EXIT_CODES = "<!-- exit codes: generated from mqadmin/cli/errors.py by python -m mqadmin.cli.generate -->"
END_EXIT_CODES = "<!-- end of exit codes -->"


def exit_code_table() -> str:
    """The Markdown table of every exit code, from ``EXIT_CODES``."""
    from mqadmin.cli.errors import EXIT_CODES

    rows = [f"| {int(code)} | {text.replace('|', chr(92) + '|')} |" for code, text in EXIT_CODES.items()]
    return "\n".join(["| code | meaning |", "|---|---|", *rows])


def spliced_files(out: Path) -> dict[str, str]:
    """Relative path -> content of the hand-written files under ``out`` whose generated section is replaced by
    what the code says today (a file without the markers is an error: its table would go stale unseen)."""
    files = {}
    for rel in EXIT_CODE_TABLES:
        path = out / rel
        if not path.exists():
            continue
        text = path.read_text()
        head, begin, rest = text.partition(BEGIN_EXIT_CODES + "\n")
        _, end, tail = rest.partition(END_EXIT_CODES)
        if not begin or not end:
            raise RuntimeError(f"{rel}: no {BEGIN_EXIT_CODES} ... {END_EXIT_CODES} section")
        files[rel] = f"{head}{begin}{exit_code_table()}\n{end}{tail}"
    return files


DOCUMENT_DOCS = "docs/commands"
BEGIN_DOCUMENT = "<!-- document of {name}: generated from its declaration by python -m mqadmin.cli.generate -->"
END_DOCUMENT = "<!-- end of document -->"


def document_tables(out: Path) -> dict[str, str]:
    """Relative path -> content of each docs/commands/*.md whose declared commands' field tables (between their
    ``<!-- document of NAME -->`` markers) are replaced by what the declarations say; a declared command whose
    markers are in no file is an error."""
    from mqadmin.cli.documents import command_schema, declared, fields_markdown

    docs = sorted((out / DOCUMENT_DOCS).glob("*.md"))
    if not docs:
        return {}
    texts = {path: path.read_text() for path in docs}
    for name, document in declared().items():
        begin = BEGIN_DOCUMENT.format(name=name) + "\n"
        path = next((p for p, t in texts.items() if begin in t), None)
        if path is None:
            raise RuntimeError(f"{DOCUMENT_DOCS}/*.md: no {begin.strip()} ... {END_DOCUMENT} in the section of {name}")
        head, _, rest = texts[path].partition(begin)
        _, end, tail = rest.partition(END_DOCUMENT)
        if not end:
            raise RuntimeError(f"{path.name}: {name}'s document has no {END_DOCUMENT}")
        table = fields_markdown(command_schema(name, document))
        texts[path] = f"{head}{begin}{table}\n{end}{tail}"
    return {str(path.relative_to(out)): text for path, text in texts.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mqadmin.cli.generate", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("."), help="directory holding completions/ and man/")
    parser.add_argument("--check", action="store_true", help="only report files that differ; exit 1 if any")
    args = parser.parse_args(argv)
    stale = []
    for rel, content in {**generated_files(), **spliced_files(args.out), **document_tables(args.out)}.items():
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
