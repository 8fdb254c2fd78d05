"""Generate ``mqadmin/model/apache_access.json``, what Apache RocketMQ 5.5.0 authorizes per request code, from its
published jars (the distribution the test harness downloads: ``tests.realrmq.apache.ensure_distribution``).

    python -m tests.realrmq.acl_table            # rewrite the file
    python -m tests.realrmq.acl_table --check    # exit 1 when the committed file differs

Apache's ``DefaultAuthorizationContextBuilder`` (rocketmq-auth) handles a few request codes in its own ``switch``
(sends, pulls, offsets, heartbeats, queue locks, routes); every other code goes through ``RequestHeaderRegistry``
(rocketmq-remoting): the request-header class whose ``@RocketMQAction(value=code, action=..., resource=...)``
names it. The resources are that class's own (not inherited) fields marked ``@RocketMQResource(type, splitter)``,
read from the request's ext fields of the same name; a topic field holding a retry topic (``%RETRY%G``) names
group G; when none is present and the class's resource type is CLUSTER, the cluster. A code with no annotated
header needs nothing beyond authentication.

This script reads those class files (``tests.realrmq.classfile``; no JVM), so it lives beside the harness that
downloads the jars rather than in ``mqadmin.cli.generate``, which must run without a download.
"""

from __future__ import annotations

import json
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.realrmq.classfile import ClassFile, Enum, lookupswitch_keys, parse

VERSION = "5.5.0"
OUTPUT = Path(__file__).resolve().parents[2] / "mqadmin" / "model" / "apache_access.json"

_ACTION = "Lorg/apache/rocketmq/common/action/RocketMQAction;"
_RESOURCE = "Lorg/apache/rocketmq/common/resource/RocketMQResource;"
_BUILDER = "org/apache/rocketmq/auth/authorization/builder/DefaultAuthorizationContextBuilder.class"
_REMOTING_BUILD = "(Lio/netty/channel/ChannelHandlerContext;Lorg/apache/rocketmq/remoting/protocol/RemotingCommand;)"


def _classes(jar: Path) -> Iterator[ClassFile]:
    with zipfile.ZipFile(jar) as z:
        for name in sorted(z.namelist()):
            if name.endswith(".class"):
                yield parse(z.read(name))


def _defaults(common: Path, annotation: str) -> dict[str, Any]:
    """Element name -> default value of an annotation type (its class file in rocketmq-common)."""
    with zipfile.ZipFile(common) as z:
        cls = parse(z.read(annotation[1:-1] + ".class"))
    return {m.name: m.default for m in cls.methods if m.default is not None}


def _title(value: Enum) -> str:
    """``Action.UPDATE`` -> ``Update``, ``ResourceType.TOPIC`` -> ``Topic``: the names ACL policies use."""
    return value.name.capitalize()


def _header_rule(cls: ClassFile, action_defaults: dict[str, Any], resource_defaults: dict[str, Any]) -> dict[str, Any]:
    ann = cls.annotation("RocketMQAction")
    assert ann is not None
    values = {**action_defaults, **ann.values}
    fields = []
    for f in cls.fields:  # declared fields only: Apache reads getDeclaredFields()
        res = next((a for a in f.annotations if a.type == _RESOURCE), None)
        if res is not None:
            rv = {**resource_defaults, **res.values}
            fields.append({"field": f.name, "type": _title(rv["value"]), "splitter": rv.get("splitter", "")})
    return {
        "header": cls.name.rsplit("/", 1)[-1],
        "actions": [_title(a) for a in values["action"]],
        "resource": _title(values["resource"]),
        "fields": fields,
    }


def _effect(rule: dict[str, Any]) -> Any:
    """What a rule makes Apache check: nothing unless it names fields or the cluster."""
    if not rule["fields"] and rule["resource"] != "Cluster":
        return None
    return rule["actions"], rule["resource"] == "Cluster", rule["fields"]


def build(lib: Path) -> dict[str, Any]:
    """The table, from the distribution's ``lib`` directory."""
    remoting = lib / f"rocketmq-remoting-{VERSION}.jar"
    auth = lib / f"rocketmq-auth-{VERSION}.jar"
    common = lib / f"rocketmq-common-{VERSION}.jar"
    action_defaults = _defaults(common, _ACTION)
    resource_defaults = _defaults(common, _RESOURCE)
    by_code: dict[int, list[dict[str, Any]]] = {}
    for cls in _classes(remoting):
        ann = cls.annotation("RocketMQAction")
        if ann is not None and ann.type == _ACTION:
            by_code.setdefault(ann.values["value"], []).append(_header_rule(cls, action_defaults, resource_defaults))
    with zipfile.ZipFile(auth) as z:
        builder = parse(z.read(_BUILDER))
    method = next(m for m in builder.methods if m.name == "build" and m.descriptor.startswith(_REMOTING_BUILD))
    switch = lookupswitch_keys(method.code or b"")
    if not switch:
        raise SystemExit(f"no request-code switch found in {_BUILDER} of {auth}")
    annotated = {}
    for code in sorted(by_code):
        rules = sorted(by_code[code], key=lambda r: not r["header"].endswith("RequestHeader"))
        # RequestHeaderRegistry keeps whichever annotated class it scans first (5.5.0 annotates two response headers
        # too): fine while they all need the same, which is the case when none names a resource.
        if len({json.dumps(_effect(r), sort_keys=True) for r in rules}) > 1:
            raise SystemExit(f"request code {code}: annotated headers that differ: {[r['header'] for r in rules]}")
        annotated[str(code)] = {
            **rules[0],
            **({"alsoAnnotated": [r["header"] for r in rules[1:]]} if rules[1:] else {}),
        }
    return {
        "about": (
            f"What Apache RocketMQ {VERSION} authorizes per remoting request code. Generated by "
            "`python -m tests.realrmq.acl_table` from rocketmq-remoting and rocketmq-auth; do not edit."
        ),
        "version": VERSION,
        "switch": switch,
        "annotated": annotated,
    }


def render(table: dict[str, Any]) -> str:
    return json.dumps(table, indent=1) + "\n"


def text(lib: Path) -> str:
    """The table as committed, from Apache's jars in ``lib``."""
    return render(build(lib))


if __name__ == "__main__":
    from tests.realrmq.jar_tables import generator_main

    sys.exit(generator_main("tests.realrmq.acl_table", __doc__ or "", OUTPUT, text, sys.argv[1:]))
