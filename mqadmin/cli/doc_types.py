"""Parts of ``--format json`` documents shared by many commands (``mqadmin.cli.documents``): one target's result
in a fan-out, and the outcome."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict


class ChangeDoc(TypedDict):
    old: Any
    new: Any


class TargetResultDoc(TypedDict):
    """What happened on one target of a fan-out (a broker, a name server, a controller)."""

    name: Annotated[str, 'the broker\'s name, "namesrv" or "controller" ("" when not known)']
    addr: Annotated[str, "host:port"]
    status: Annotated[
        str,
        "ok, created, updated, would update, unchanged, deleted, would delete, not found, written, skipped, "
        "failed, not sent",
    ]
    reason: Annotated[str | None, "why it failed or was skipped (null otherwise)"]
    changes: Annotated[dict[str, ChangeDoc], "field -> its old and new value, for what was changed"]


Outcome = Annotated[
    Literal["ok", "partial", "failed"], "ok: every target done (exit 0); partial: some failed (3); failed: all (1)"
]


class ClusterTargetDoc(TypedDict):
    cluster: Annotated[str, "-c"]


class BrokerTargetDoc(TypedDict):
    brokerAddr: Annotated[str, "-b"]


TargetGiven = Annotated[ClusterTargetDoc | BrokerTargetDoc, "what the command was given: -c CLUSTER or -b BROKER"]


class SettingDoc(TypedDict):
    """One config key set on servers (name servers, brokers, controllers)."""

    key: str
    value: str
    results: list[TargetResultDoc]
    outcome: Outcome
