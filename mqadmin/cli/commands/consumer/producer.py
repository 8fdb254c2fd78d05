"""producer: every producer connected to one broker, by group."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.model.clients import ProducerInfo


class ProducerInfoDoc(TypedDict):
    clientId: str
    remoteIp: Annotated[str, "host:port"]
    language: str
    version: int
    versionDesc: str
    lastUpdateTimestamp: Annotated[int | None, "its last heartbeat, ms since the epoch"]


class ProducerTableDoc(TypedDict):
    brokerAddr: str
    groups: Annotated[dict[str, list[ProducerInfoDoc]], "producer group -> its producers"]


@command("producer", "mqadmin producer -b 127.0.0.1:10911", document=ProducerTableDoc)
def producer(
    broker_addr: Annotated[str, Option("-b", "--broker", metavar="HOST:PORT", help="Address of one broker.")],
    namesrv: NamesrvOpt = None,
) -> None:
    """Every producer connected to one broker (GET_ALL_PRODUCER_INFO): group, client id, remote address,
    language, version and the time of its last heartbeat.
    """
    from mqadmin.cli.commands.consumer._shared import local_time, run_consumers
    from mqadmin.cli.render import Column, json_output, print_json, print_table
    from mqadmin.cli.runner import check_broker_addr
    from mqadmin.model.version import version_desc

    check_broker_addr(broker_addr)

    async def go(admin: AdminClient) -> dict[str, list[ProducerInfo]]:
        return await admin.producer_table(broker_addr)

    table = run_consumers(namesrv, go)
    if json_output():
        groups = {
            g: [
                {
                    "clientId": p.client_id,
                    "remoteIp": p.remote_ip,
                    "language": p.language,
                    "version": p.version,
                    "versionDesc": version_desc(p.version),
                    "lastUpdateTimestamp": p.last_update_timestamp or None,
                }
                for p in ps
            ]
            for g, ps in table.items()
        }
        print_json({"brokerAddr": broker_addr, "groups": groups})
        return
    cols = [Column("GROUP"), Column("CLIENT ID"), Column("REMOTE ADDR"), Column("LANGUAGE"), Column("VERSION"),
            Column("LAST HEARTBEAT")]  # fmt: skip
    rows = [
        (g, p.client_id, p.remote_ip, p.language, version_desc(p.version), local_time(p.last_update_timestamp))
        for g, ps in table.items()
        for p in ps
    ]
    print_table(cols, rows)
