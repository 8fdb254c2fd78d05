"""Options and checks shared by the name-server commands, and the per-name-server result table."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, NotRequired, TypedDict

from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetResultDoc
from mqadmin.cli.errors import usage_error

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


class PermTopicDoc(TypedDict):
    topic: str
    perm: Annotated[dict[str, int], "old and new permission"]


class WritePermResultDoc(TargetResultDoc):
    topicCount: Annotated[int | None, "topics whose write permission changed (would change with --dry-run)"]
    topics: NotRequired[Annotated[list[PermTopicDoc], "--dry-run: each topic that would change"]]


class WritePermDoc(TypedDict):
    brokerName: str
    dryRun: NotRequired[Annotated[bool, "wipeWritePerm --dry-run"]]
    results: Annotated[list[WritePermResultDoc], "each name server"]
    outcome: Outcome


NamespaceOpt = Annotated[
    str, Option("-s", "--namespace", metavar="NAMESPACE", help="KV namespace, e.g. ORDER_TOPIC_CONFIG.")
]
KvKeyOpt = Annotated[str, Option("-k", "--key", metavar="KEY", help="Key name.")]
BrokerNameOpt = Annotated[
    str,
    Option(
        "-b",
        "--brokerName",
        metavar="BROKER",
        help="Broker name, e.g. broker-a (not its address).",
    ),
]

_ADDRESS = re.compile(r"^[^\s:]+:\d+$")
_BAD_KEY = re.compile(r"[\s=:#!\\]")


def text_value(value: str, option: str, what: str) -> str:
    """An option value as Java mqadmin takes it: trimmed; a blank one is a usage error."""
    text = value.strip()
    if not text:
        raise usage_error(f"the {what} ({option}) is blank", f"give a non-blank {what} with {option}")
    return text


def config_value(value: str) -> str:
    """A name-server config value: one line (config travels as properties text, one key per line, so a line
    break would set other keys)."""
    text = text_value(value, "-v", "value")
    if "\n" in text or "\r" in text:
        raise usage_error(f"-v {value!r} contains a line break", "config values are one line")
    return text


def config_key(value: str) -> str:
    key = text_value(value, "-k", "key")
    if _BAD_KEY.search(key):
        raise usage_error(
            f"-k {key!r} is not a config key (no spaces, '=', ':', '#', '!' or '\\')",
            "list the keys with: mqadmin getNamesrvConfig",
        )
    return key


def broker_name(value: str) -> str:
    name = text_value(value, "-b", "broker name")
    if _ADDRESS.match(name):
        raise usage_error(
            f"-b {name!r} is an address; this command takes a broker name",
            "list broker names with: mqadmin clusterList (for example -b broker-a)",
        )
    return name


def print_counts(results: Sequence[TargetResult]) -> None:
    """One row per name server with the topic count it reported (wipeWritePerm, addWritePerm)."""
    from mqadmin.cli.render import Column, print_table

    with_reason = any(r.reason for r in results)
    columns = [Column("NAME SERVER"), Column("ADDRESS"), Column("RESULT", styled=True), Column("TOPICS", numeric=True)]
    columns += [Column("REASON")] if with_reason else []
    rows = []
    for r in results:
        row: list[object] = [r.name, r.addr, str(r.status), "" if r.data is None else r.data]
        rows.append(row + ([r.reason or ""] if with_reason else []))
    print_table(columns, rows)


async def check_known(admin: AdminClient, name: str) -> None:
    """A usage error for a broker name the name server does not list (nothing to change)."""
    from mqadmin.cli.errors import usage_error

    known = (await admin.cluster_info()).brokers
    if name not in known:
        listing = ", ".join(sorted(known)) or "none registered"
        raise usage_error(f"broker {name!r} is not registered with the name server (brokers: {listing})")


def counts_json(results: list[TargetResult], name: str) -> dict[str, Any]:
    from mqadmin.cli.runner import results_json

    doc = results_json(results, brokerName=name)
    for entry, r in zip(doc["results"], results, strict=True):
        entry["topicCount"] = r.data
    return doc
