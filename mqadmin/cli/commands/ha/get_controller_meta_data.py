"""getControllerMetaData: the controller group, its leader and peers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.commands.ha._shared import FoundControllerOpt
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.model.rpc.ha import ControllerMetadataHeader


class ControllerMetadataDoc(TypedDict):
    controller: Annotated[str, "the controller asked"]
    group: str | None
    controllerLeaderId: str | None
    controllerLeaderAddress: str | None
    isLeader: Annotated[bool, "whether the controller asked is the leader"]
    peers: Annotated[list[str], "id:host:port of each member of the controller group"]


@command(
    "getControllerMetaData",
    "mqadmin getControllerMetaData -a 127.0.0.1:9878",
    "mqadmin getControllerMetaData -n 127.0.0.1:9876   # the controller the brokers use",
    document=ControllerMetadataDoc,
)
def get_controller_meta_data(controller: FoundControllerOpt = None, namesrv: NamesrvOpt = None) -> None:
    """Show the controller group of -a (CONTROLLER_GET_METADATA_INFO): its name, the leader's id and address,
    whether the controller asked is the leader, and every peer (id and address). Needs no name server with
    -a; without it the controller is found through the name server (-n)."""
    from mqadmin.cli.commands.ha._shared import controllers, reachable, run_controller
    from mqadmin.cli.render import Column, json_output, print_json, print_table

    addrs = controllers(controller, namesrv)

    async def go(admin: AdminClient) -> tuple[str, ControllerMetadataHeader]:
        return await reachable(admin, addrs)

    addr, meta = run_controller(addrs, go)
    peers = [p for p in (meta.peers or "").split(";") if p]
    if json_output():
        print_json(
            {
                "controller": addr,
                "group": meta.group,
                "controllerLeaderId": meta.leader_id,
                "controllerLeaderAddress": meta.leader_address,
                "isLeader": meta.is_leader,
                "peers": peers,
            }
        )
        return
    print_table(
        [Column("KEY"), Column("VALUE")],
        [
            ("ControllerGroup", meta.group or "-"),
            ("ControllerLeaderId", meta.leader_id or "-"),
            ("ControllerLeaderAddress", meta.leader_address or "-"),
            ("IsLeader", str(meta.is_leader).lower()),
            *(("Peer", p) for p in peers),
        ],
    )
