"""The ``--format json`` output contract: each command declares its document once, as a TypedDict given to
``@command(..., document=...)`` (fields annotated ``Annotated[type, "what it means"]``), and everything else is
made from that declaration: the JSON Schema of every command (``mqadmin/cli/schemas.json``, shipped in the
package, written by ``python -m mqadmin.cli.generate``), the fields ``mqadmin help CMD`` lists and the schema
``mqadmin help CMD --schema`` prints, and the field table of the command's section in docs/commands/*.md.

The declaration is the contract: keys are camelCase (a snake_case key is refused here, so it cannot ship), the
top level is an object, and an object has exactly its declared keys (``additionalProperties: false``); a map whose
keys are data (topic names, config keys) is a ``dict[str, X]``. ``CONTRACT_VERSION`` changes when a declared
document changes incompatibly (a key renamed or removed, a type changed); adding a key does not change it.
"""

from __future__ import annotations

import re
import types
from typing import (
    Annotated,
    Any,
    Literal,
    NotRequired,
    Required,
    TypedDict,
    Union,
    get_args,
    get_origin,
    is_typeddict,
)

CONTRACT_VERSION = 2
"""1: the documents before they were declared (some top-level lists, snake_case keys); 2: declared documents."""

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
CAMEL = re.compile(r"^[a-z][a-zA-Z0-9]*$")


class ContractError(TypeError):
    """A declaration that breaks the convention (a snake_case key, a top-level list, a type JSON has not)."""


def schema_id(command: str) -> str:
    """``urn:mqadmin:json:2:topicList``; a subcommand's: ``urn:mqadmin:json:2:profile:list``."""
    return f"urn:mqadmin:json:{CONTRACT_VERSION}:{command.replace(' ', ':')}"


def command_schema(command: str, document: Any, title: str | None = None) -> dict[str, Any]:
    """The JSON Schema of ``command``'s document (its TypedDicts under ``$defs``): a TypedDict, or a union of
    TypedDicts for a command whose options choose between documents (``consumerProgress`` with and without -g)."""
    options = get_args(document) if get_origin(document) in (Union, types.UnionType) else (document,)
    if not all(is_typeddict(o) for o in options):
        raise ContractError(f"{command}: the document must be a TypedDict (an object at the top level)")
    defs: dict[str, Any] = {}
    ref = _schema(document, defs, command)
    return {
        "$schema": SCHEMA_DIALECT,
        "$id": schema_id(command),
        "title": title or f"mqadmin {command} --format json",
        "contractVersion": CONTRACT_VERSION,
        **ref,
        "$defs": dict(sorted(defs.items())),
    }


def _schema(tp: Any, defs: dict[str, Any], where: str) -> dict[str, Any]:
    origin = get_origin(tp)
    if origin is Annotated:
        base, *meta = get_args(tp)
        schema = _schema(base, defs, where)
        text = "; ".join(m for m in meta if isinstance(m, str))
        return {**schema, "description": text} if text else schema
    if origin in (Required, NotRequired):
        return _schema(get_args(tp)[0], defs, where)
    if tp is Any:
        return {}
    if tp in _SCALARS:
        return {"type": _SCALARS[tp]}
    if origin in (Union, types.UnionType):
        options = [_schema(a, defs, where) for a in get_args(tp)]
        simple = [o.get("type") for o in options if set(o) == {"type"}]
        if len(simple) == len(options):
            return {"type": simple}
        return {"anyOf": options}
    if origin is Literal:
        return {"enum": list(get_args(tp))}
    if origin is list:
        (item,) = get_args(tp)
        return {"type": "array", "items": _schema(item, defs, where)}
    if origin is dict:
        key, value = get_args(tp)
        if key is not str:
            raise ContractError(f"{where}: JSON object keys are strings, not {key}")
        return {"type": "object", "additionalProperties": _schema(value, defs, where)}
    if is_typeddict(tp):
        name = tp.__name__
        if name not in defs:
            defs[name] = {}  # (a recursive reference finds its name)
            defs[name] = _object(tp, defs)
        return {"$ref": f"#/$defs/{name}"}
    raise ContractError(f"{where}: {tp!r} is not a JSON type")


_SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}


def _object(tp: Any, defs: dict[str, Any]) -> dict[str, Any]:
    from typing import get_type_hints

    hints = get_type_hints(tp, include_extras=True)
    bad = [k for k in hints if not CAMEL.match(k)]
    if bad:
        raise ContractError(f"{tp.__name__}: keys must be camelCase: {bad}")
    schema: dict[str, Any] = {"type": "object"}
    if tp.__doc__:
        schema["description"] = " ".join(tp.__doc__.split())
    schema["properties"] = {k: _schema(v, defs, f"{tp.__name__}.{k}") for k, v in hints.items()}
    # (under ``from __future__ import annotations`` a TypedDict of 3.11 does not see NotRequired: the hint does)
    schema["required"] = [k for k, v in hints.items() if k in tp.__required_keys__ and get_origin(v) is not NotRequired]
    schema["additionalProperties"] = False
    return schema


# --- the shipped schemas -------------------------------------------------------------------------------


def declared() -> dict[str, type]:
    """Command name -> its declared document, for every command that declares one, then every subcommand
    (``"profile list"``) that does (every command module is imported)."""
    import importlib

    from mqadmin.cli import registry
    from mqadmin.cli.command import COMMANDS, SUBCOMMAND_DOCUMENTS

    for entry in registry.COMMANDS:
        importlib.import_module(f"mqadmin.cli.commands.{entry.module}")
    commands = {e.name: doc for e in registry.COMMANDS if e.name in COMMANDS and (doc := COMMANDS[e.name].document)}
    return commands | {name: doc for name, doc in sorted(SUBCOMMAND_DOCUMENTS.items()) if doc is not None}


class ErrorDetailDoc(TypedDict):
    code: Annotated[str, "the exit code's name: FAILURE, USAGE, PARTIAL, NAMESRV_UNREACHABLE, AUTH, ..."]
    exitCode: int
    message: Annotated[str, "what mqadmin: error: says"]
    hint: Annotated[str | None, "what to do about it"]


class ErrorDoc(TypedDict):
    """What every command prints on stderr when it fails under --format json (mqadmin.cli.errors.error_document)."""

    error: ErrorDetailDoc
    document: Annotated[Any, "the command's document when it had one before failing (null otherwise)"]


def schemas_text() -> str:
    """``mqadmin/cli/schemas.json``: every declared command's schema, by name, and the error document's."""
    import json

    doc = {
        "contractVersion": CONTRACT_VERSION,
        "error": command_schema("error", ErrorDoc, "mqadmin --format json: a failure, on stderr"),
        "commands": {name: command_schema(name, tp) for name, tp in sorted(declared().items())},
    }
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def shipped_schema(command: str) -> dict[str, Any] | None:
    """``command``'s schema as shipped in the package (None: it declares no document yet)."""
    found: dict[str, Any] | None = _shipped()["commands"].get(command)
    return found


def shipped_error_schema() -> dict[str, Any]:
    """The error document's schema as shipped in the package."""
    found: dict[str, Any] = _shipped()["error"]
    return found


def _shipped() -> dict[str, Any]:
    import json
    from importlib.resources import files

    shipped: dict[str, Any] = json.loads(files("mqadmin.cli").joinpath("schemas.json").read_text(encoding="utf-8"))
    return shipped


# --- fields, for help and docs ---------------------------------------------------------------------------


def fields(schema: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(path, type, meaning) of every field of a command's schema, depth first: ``brokers[].addr``; a data key is
    ``<key>``: ``config.<key>``."""
    defs = schema.get("$defs", {})
    out: list[tuple[str, str, str]] = []

    def resolve(s: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in s:
            s = {**defs[s["$ref"].rsplit("/", 1)[1]], **{k: v for k, v in s.items() if k != "$ref"}}
        return s

    def walk(s: dict[str, Any], path: str, seen: tuple[str, ...]) -> None:
        s = resolve(s)
        props = s.get("properties")
        if props is not None:
            for key, sub in props.items():
                child = f"{path}.{key}" if path else key
                ref = sub.get("$ref", "")
                out.append((child, type_text(sub, defs), resolve(sub).get("description", "")))
                if ref not in seen:
                    walk(sub, child, (*seen, ref) if ref else seen)
            return
        if s.get("type") == "array" or "items" in s:
            walk(s.get("items", {}), f"{path}[]", seen)
        elif isinstance(s.get("additionalProperties"), dict):
            walk(s["additionalProperties"], f"{path}.<key>", seen)
        for option in s.get("anyOf", []):
            walk(option, path, seen)

    walk(schema, "", ())
    first: dict[str, tuple[str, str, str]] = {}
    for row in out:  # a field of several documents (a union), listed once
        first.setdefault(row[0], row)
    return list(first.values())


def type_text(s: dict[str, Any], defs: dict[str, Any]) -> str:
    """``string``, ``integer|null``, ``array of object``, ``map of string``, ``"ok"|"failed"``."""
    if "$ref" in s:
        return "object"
    if "enum" in s:
        return "|".join(f'"{v}"' if isinstance(v, str) else str(v).lower() for v in s["enum"])
    if "anyOf" in s:
        return "|".join(dict.fromkeys(type_text(o, defs) for o in s["anyOf"]))
    kinds = s.get("type")
    if kinds is None:
        return "any"
    names = []
    for kind in kinds if isinstance(kinds, list) else [kinds]:
        if kind == "array":
            names.append(f"array of {type_text(s.get('items', {}), defs)}")
        elif kind == "object" and isinstance(s.get("additionalProperties"), dict):
            names.append(f"map of {type_text(s['additionalProperties'], defs)}")
        else:
            names.append(kind)
    return "|".join(names)


def fields_text(command: str, schema: dict[str, Any]) -> str:
    """The JSON document section of ``mqadmin help CMD``."""
    rows = fields(schema)
    width = min(max(len(p) for p, _, _ in rows), 40)
    lines = [f"JSON document (--format json; contract {CONTRACT_VERSION}; schema: mqadmin help {command} --schema):"]
    for path, kind, meaning in rows:
        lines.append(f"  {path.ljust(width)}  {kind}" + (f"  {meaning}" if meaning else ""))
    return "\n".join(lines)


def fields_markdown(schema: dict[str, Any]) -> str:
    """The field table of a command's section in docs/commands/*.md."""
    rows = [f"| `{p}` | {k.replace('|', ' or ')} | {m} |" for p, k, m in fields(schema)]
    return "\n".join(["| field | type | meaning |", "|---|---|---|", *rows])
