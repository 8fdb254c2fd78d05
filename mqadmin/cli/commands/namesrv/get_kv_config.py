"""getKvConfig (mqadmin's own): the entries of a KV namespace, or one key's value."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.commands.namesrv._shared import NamespaceOpt, text_value
from mqadmin.cli.declare import Option
from mqadmin.cli.errors import CliError, ExitCode
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient


class KvConfigDoc(TypedDict):
    namespace: str
    entries: Annotated[dict[str, str], "key -> value"]


@command(
    "getKvConfig",
    "mqadmin getKvConfig -s ORDER_TOPIC_CONFIG",
    "mqadmin getKvConfig -s ORDER_TOPIC_CONFIG -k Orders",
    blocking=True,
    document=KvConfigDoc,
)
def get_kv_config(
    namespace: NamespaceOpt,
    namesrv: NamesrvOpt = None,
    key: Annotated[
        str | None, Option("-k", "--key", metavar="KEY", help="Only this key [every key].", show_default=False)
    ] = None,
) -> None:
    """Show the entries of a KV namespace (GET_KVLIST_BY_NAMESPACE), or with -k one key (GET_KV_CONFIG).

    Asks one name server (the next one if it cannot be reached). An empty namespace prints nothing; a key
    that is not there exits 1.
    """
    from mqadmin.cli.render import Column, json_output, print_json, print_table
    from mqadmin.cli.runner import run_admin

    namespace = text_value(namespace, "-s", "namespace")
    wanted = None if key is None else text_value(key, "-k", "key")

    async def go(admin: AdminClient) -> dict[str, str]:
        if wanted is None:
            return await admin.kv_list(namespace)
        value = await admin.get_kv_config(namespace, wanted)
        return {} if value is None else {wanted: value}

    entries = dict(sorted(run_admin(namesrv, go).items()))
    if json_output():
        print_json({"namespace": namespace, "entries": entries})
    else:
        print_table([Column("KEY"), Column("VALUE")], entries.items())
    if wanted is not None and not entries:
        raise CliError(
            f"namespace {namespace!r} has no key {wanted!r}",
            "list its keys with: mqadmin getKvConfig -s NAMESPACE",
            ExitCode.FAILURE,
        )
