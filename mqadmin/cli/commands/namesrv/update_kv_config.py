"""updateKvConfig: write one KV entry to every name server."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.commands.namesrv._shared import KvKeyOpt, NamespaceOpt, text_value
from mqadmin.cli.declare import Option
from mqadmin.cli.doc_types import Outcome, TargetResultDoc
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, TargetResult


class KvWrittenDoc(TypedDict):
    namespace: str
    key: str
    value: str
    results: list[TargetResultDoc]
    outcome: Outcome


@command(
    "updateKvConfig",
    "mqadmin updateKvConfig -s ORDER_TOPIC_CONFIG -k Orders -v 'broker-a:8;broker-b:8'",
    blocking=True,
    document=KvWrittenDoc,
)
def update_kv_config(
    namespace: NamespaceOpt,
    key: KvKeyOpt,
    value: Annotated[str, Option("-v", "--value", metavar="VALUE", help="Value.")],
    namesrv: NamesrvOpt = None,
) -> None:
    """Create or update one KV entry on every name server of -n (PUT_KV_CONFIG), concurrently.

    Each name server reports created, updated (old→new), unchanged (it already held this value; nothing
    sent) or failed with the reason.
    """
    from mqadmin.cli.render import json_output, print_json
    from mqadmin.cli.runner import exit_for_results, print_results, results_json, run_admin

    namespace, key = text_value(namespace, "-s", "namespace"), text_value(key, "-k", "key")
    value = text_value(value, "-v", "value")

    async def go(admin: AdminClient) -> list[TargetResult]:
        return await admin.update_kv(namespace, key, value)

    results = run_admin(namesrv, go)
    if json_output():
        print_json(results_json(results, namespace=namespace, key=key, value=value))
    else:
        print_results(results, "NAME SERVER")
    exit_for_results(results, f"updateKvConfig {namespace} {key}")
