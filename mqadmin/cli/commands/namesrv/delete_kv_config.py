"""deleteKvConfig: delete one KV entry from every name server."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.commands.namesrv._shared import KvKeyOpt, NamespaceOpt, text_value
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetResultDoc
from mqadmin.cli.errors import CliError, ExitCode
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


class KvDeletionResultDoc(TargetResultDoc):
    value: Annotated[str | None, "the value it held (null: none, or failed)"]


class KvDeletedDoc(TypedDict):
    namespace: str
    key: str
    results: list[KvDeletionResultDoc]
    outcome: Outcome


@command(
    "deleteKvConfig", "mqadmin deleteKvConfig -s ORDER_TOPIC_CONFIG -k Orders", blocking=True, document=KvDeletedDoc
)
def delete_kv_config(
    namespace: NamespaceOpt,
    key: KvKeyOpt,
    namesrv: NamesrvOpt = None,
    if_exists: Annotated[bool, Option("--if-exists", help="Exit 0 also when no name server has the entry.")] = False,
) -> None:
    """Delete one KV entry from every name server of -n (DELETE_KV_CONFIG), concurrently.

    Each name server reports deleted (with the value it held), not found (nothing sent) or failed. When no
    name server has the entry the exit code is 1, unless --if-exists.
    """
    from mqadmin.admin import Status
    from mqadmin.cli.render import json_output, print_json
    from mqadmin.cli.runner import exit_for_results, print_results, results_json, run_admin

    namespace, key = text_value(namespace, "-s", "namespace"), text_value(key, "-k", "key")

    async def go(admin: AdminClient) -> list[TargetResult]:
        return await admin.delete_kv(namespace, key)

    results = run_admin(namesrv, go)
    if json_output():
        doc = results_json(results, namespace=namespace, key=key)
        for entry, r in zip(doc["results"], results, strict=True):
            entry["value"] = r.data
        print_json(doc)
    else:
        print_results(results, "NAME SERVER")
    exit_for_results(results, f"deleteKvConfig {namespace} {key}")
    if not if_exists and all(r.status == Status.NOT_FOUND for r in results):
        raise CliError(
            f"no name server has {key!r} in namespace {namespace!r}",
            "pass --if-exists to accept that",
            ExitCode.FAILURE,
        )
