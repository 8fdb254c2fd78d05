"""cleanBrokerMetadata: make the controller forget replicas of a broker name."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.commands.ha._shared import FoundControllerOpt, ReplicaDoc
from mqadmin.cli.declare import Option
from mqadmin.cli.errors import usage_error
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient


class CleanedReplicaDoc(ReplicaDoc):
    clean: Annotated[bool, "whether it is (would be, with --dry-run) forgotten"]


class CleanBrokerMetadataDoc(TypedDict):
    clusterName: str | None
    brokerName: str
    brokerIds: Annotated[list[int] | None, "-b (null: every replica)"]
    cleanLivingBroker: bool
    dryRun: bool
    controller: Annotated[str | None, "the leader that cleaned (null with --dry-run)"]
    replicas: Annotated[list[CleanedReplicaDoc], "the replicas the controller held before"]


@command(
    "cleanBrokerMetadata",
    "mqadmin cleanBrokerMetadata -a 127.0.0.1:9878 -c DefaultCluster -bn broker-a -b '2;3' --dry-run",
    "mqadmin cleanBrokerMetadata -a 127.0.0.1:9878 -bn broker-a -l",
    document=CleanBrokerMetadataDoc,
)
def clean_broker_metadata(
    broker_name: Annotated[str, Option("-bn", "--brokerName", metavar="BROKER", help="Broker name.")],
    broker_ids: Annotated[
        str | None,
        Option(
            "-b",
            "--brokerControllerIdsToClean",
            metavar="ID[;ID]",
            help="Controller ids of the replicas to forget, e.g. '1;2;3' [every replica of -bn].",
            show_default=False,
        ),
    ] = None,
    cluster: Annotated[
        str | None,
        Option("-c", "--clusterName", metavar="CLUSTER", help="The broker's cluster.", show_default=False),
    ] = None,
    clean_living: Annotated[
        bool, Option("-l", "--cleanLivingBroker", help="Also forget replicas that are alive.")
    ] = False,
    dry_run: Annotated[
        bool, Option("--dry-run", help="Show the replicas the controller holds; clean nothing.")
    ] = False,
    controller: FoundControllerOpt = None,
    namesrv: NamesrvOpt = None,
) -> None:
    """Make the controller forget replicas of broker name -bn (CLEAN_BROKER_DATA): the ids of -b, or every
    replica. Without -l the controller refuses to forget live replicas, and -c is required (as in Java). With -l
    Apache's controller forgets every replica of -bn whatever -b says, so -b is refused with -l (Java sends both).

    The request goes to the controller leader, found by asking -a for its metadata. The replicas the controller
    holds for -bn before (CONTROLLER_GET_SYNC_STATE_DATA) are listed with the ones to forget; --dry-run stops
    there and sends nothing.
    """
    from mqadmin.cli.commands.ha._shared import controllers, leader_of, run_controller
    from mqadmin.cli.render import Column, json_output, note, print_json, print_lines, print_table

    ids = _ids(broker_ids)
    if clean_living and ids is not None:
        raise usage_error(
            f"-b cannot go with -l: with -l the controller ignores -b and forgets every replica of {broker_name}",
            "leave -b out to forget every replica, living ones too; or -l out to forget offline replicas by id",
        )
    if not clean_living and not (cluster or "").strip():
        raise usage_error("-c is required unless -l is given", "give the broker's cluster with -c, or add -l")
    addrs = controllers(controller, namesrv, cluster)

    async def go(admin: AdminClient) -> dict[str, Any]:
        _, leader = await leader_of(admin, addrs)
        before = (await admin.sync_state_sets(leader, [broker_name])).get(broker_name)
        replicas = [] if before is None else sorted(before.in_sync + before.not_in_sync, key=lambda r: r.broker_id)
        doc: dict[str, Any] = {
            "clusterName": cluster,
            "brokerName": broker_name,
            "brokerIds": ids,
            "cleanLivingBroker": clean_living,
            "dryRun": dry_run,
            "controller": None,
            "replicas": [{**r.to_json(), "clean": ids is None or r.broker_id in ids} for r in replicas],
        }
        if not dry_run:
            ids_text = None if ids is None else ";".join(str(i) for i in ids)
            await admin.clean_broker_metadata(leader, cluster, broker_name, ids_text, clean_living)
            doc["controller"] = leader
        return doc

    doc = run_controller(addrs, go)
    held = {r["brokerId"] for r in doc["replicas"]}
    unknown = [str(i) for i in ids or [] if i not in held]
    if unknown:  # the controller answers success for them and forgets nothing
        note(
            f"mqadmin: the controller holds no replica of {broker_name} with id {', '.join(unknown)}: "
            "nothing to forget there"
        )
    if json_output():
        print_json(doc)
        return
    verb = "would forget" if dry_run else "forgotten"
    rows = [
        (
            broker_name,
            r["brokerId"],
            r["brokerAddress"],
            "-" if r.get("alive") is None else str(r["alive"]).lower(),
            verb if r["clean"] else "kept",
        )  # fmt: skip
        for r in doc["replicas"]
    ]
    print_table([Column("BROKER"), Column("BROKER ID", numeric=True), Column("ADDRESS"), Column("ALIVE"),
                 Column("RESULT", styled=True)], rows)  # fmt: skip
    what = "every replica" if ids is None else "ids " + ", ".join(str(i) for i in ids)
    if dry_run:
        print_lines([f"dry run: would clear {what} of {broker_name} from the controller; nothing sent"])
    else:
        print_lines([f"cleared {what} of {broker_name} from the controller {doc['controller']}"])


def _ids(value: str | None) -> list[int] | None:
    """``1;2;3`` as Java reads it; a usage error for anything that is not a list of ids."""
    if value is None:
        return None
    parts = [p.strip() for p in value.split(";") if p.strip()]
    try:
        ids = [int(p) for p in parts]
    except ValueError:
        raise usage_error(f"-b {value!r} is not a list of broker ids", "for example: -b '1;2;3'") from None
    if not ids:
        raise usage_error("-b is blank", "for example: -b '1;2;3', or leave -b out to forget every replica")
    return ids
