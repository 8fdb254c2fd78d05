"""exportTopology: write a live cluster's topics and groups as a topology file."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, TypedDict

from mqadmin.cli.command import command
from mqadmin.cli.declare import Option
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient
    from mqadmin.topology.live import ClusterState


class ExportedTopologyDoc(TypedDict):
    file: Annotated[str | None, "-f: the file written (null: the text is in text)"]
    clusters: list[str]
    topics: Annotated[int, "topics exported"]
    groups: Annotated[int, "groups exported"]
    warnings: list[str]
    text: Annotated[str | None, "the topology (TOML) without -f"]


@command(
    "exportTopology",
    "mqadmin exportTopology -n 127.0.0.1:9876 -f topology.toml",
    "mqadmin exportTopology -c DefaultCluster > topology.toml",
    "mqadmin exportTopology -f topology.toml && mqadmin plan -f topology.toml   # no changes",
    document=ExportedTopologyDoc,
)
def export_topology(
    namesrv: NamesrvOpt = None,
    clusters: Annotated[
        list[str] | None,
        Option("-c", "--clusterName", metavar="CLUSTER", help="A cluster to export (repeatable) [all]."),
    ] = None,
    file: Annotated[str | None, Option("-f", "--file", metavar="FILE", help="Write the file here [stdout].")] = None,
    with_namesrv: Annotated[
        bool, Option("--with-namesrv", help="Write the name servers into the file (else -n is needed).")
    ] = False,
) -> None:
    """Write the topics and subscription groups of live clusters as a topology file that plan reports as
    "no changes" against the same clusters.

    System, retry and dead-letter topics and system groups are left out. Each topic and group is written
    with the settings that differ from the defaults, and the brokers holding it when that is not every
    master. A topic whose brokers disagree (queue counts, permission) is written with the first broker's
    settings and named in a warning. A master that cannot be read is an error (nothing is written).
    """
    from mqadmin.cli.errors import CliError
    from mqadmin.cli.render import json_output, note, print_json, warn
    from mqadmin.cli.runner import run_admin
    from mqadmin.topology.export import export_clusters
    from mqadmin.topology.live import read_cluster

    async def go(admin: AdminClient) -> list[ClusterState]:
        import asyncio

        info = await admin.cluster_info()
        names = clusters or sorted(info.clusters)
        return list(await asyncio.gather(*(read_cluster(admin, c, info) for c in names)))

    states = run_admin(namesrv, go)
    failed = [f"{s.cluster}: {s.error}" for s in states if s.error]
    failed += [f"{s.cluster} {b.name} ({b.addr}): {b.error}" for s in states for b in s.brokers if b.error]
    if failed:
        raise CliError(
            f"cannot export: {failed[0]}", "the file would miss what that broker holds; retry when it is back"
        )
    namesrv_value = {s.cluster: ";".join(s.namesrv) for s in states} if with_namesrv else None
    result = export_clusters(states, namesrv_value)
    text = result.toml()
    if file is not None:
        _write(file, text)
    for w in result.warnings:
        warn(w)
    if json_output():
        doc = {"file": file, "clusters": [s.cluster for s in states], "topics": result.topics, "groups": result.groups}
        print_json({**doc, "warnings": result.warnings, "text": None if file else text})
    elif file is None:
        sys.stdout.write(text)
    else:
        note(f"exportTopology: {result.topics} topics and {result.groups} groups written to {file}")


def _write(path: str, text: str) -> None:
    import os

    from mqadmin.cli.errors import CliError

    tmp = f"{path}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError as e:
        raise CliError(f"cannot write {path}: {e.strerror or e}", "check the path") from None
