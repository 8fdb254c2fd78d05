"""exportMetadata's single-cluster form, with Java mqadmin's options: one cluster's (-c) or one broker's (-b)
user topics and subscription groups written to DIR/metadata.json, topic.json (-t) or subscriptionGroup.json
(-g), as Java's ExportMetadataCommand writes them.

The command itself (mqadmin/cli/commands/metadata.py) is the fleet export when none of these options is
given.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqadmin.cli.commands.cluster._export import DEFAULT_EXPORT_DIR, export_dir, finish_export
from mqadmin.cli.errors import usage_error
from mqadmin.cli.params import exactly_one

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient, Target, TargetResult


def export_cluster_metadata(
    namesrv: list[str] | None,
    fleet: Path | None,
    out: Path | None,
    cluster: str | None,
    broker_addr: str | None,
    file_path: str | None,
    topics_only: bool,
    groups_only: bool,
    special: bool,
) -> None:
    from mqadmin.cli.runner import run_admin

    if fleet is not None or out is not None:
        raise usage_error(
            "--fleet and --out belong to the fleet export; -c, -b, -f, -t, -g and -s to the single-cluster one",
            "use either: exportMetadata -c CLUSTER [-f DIR] [-t|-g] [-s], or exportMetadata --out DIR [-n …|--fleet]",
        )
    if namesrv is not None and len(namesrv) > 1:
        raise usage_error("the single-cluster export takes one -n", "quote a list of name servers: -n 'a:9876;b:9876'")
    exactly_one(broker_addr, cluster)
    if topics_only and groups_only:
        raise usage_error("-t and -g exclude each other", "give -t (topics only), -g (groups only) or neither (both)")
    directory = export_dir(DEFAULT_EXPORT_DIR if file_path is None else file_path)
    name = "topic.json" if topics_only else "subscriptionGroup.json" if groups_only else "metadata.json"

    async def go(admin: AdminClient) -> tuple[dict[str, Any], list[TargetResult]]:
        if broker_addr is not None:
            return await _one_broker(admin, broker_addr, topics_only, groups_only, special)
        assert cluster is not None
        merged, results = await admin.cluster_metadata(cluster, special)
        return {**merged.to_json(topics=not groups_only, groups=not topics_only), "exportTime": _now()}, results

    doc, results = run_admin(namesrv[0] if namesrv else None, go)
    target = {"cluster": cluster} if cluster is not None else {"brokerAddr": broker_addr}
    finish_export(directory, name, doc, results, "exportMetadata", target=target)


async def _one_broker(
    admin: AdminClient, addr: str, topics_only: bool, groups_only: bool, special: bool
) -> tuple[dict[str, Any], list[TargetResult]]:
    """-b: with -t the broker's topic wrapper, with -g its group wrapper, as Java writes them; with neither
    (Java writes nothing then) both tables in metadata.json's form."""
    from mqadmin.admin import Status, TargetResult, fan_out
    from mqadmin.admin.exports import ClusterMetadata
    from mqadmin.cli.runner import broker_targets

    async def one(t: Target) -> TargetResult:
        if topics_only:
            doc = (await admin.user_topics(t.addr, special)).to_json()
        elif groups_only:
            doc = (await admin.user_groups(t.addr)).to_json()
        else:
            merged = ClusterMetadata()
            merged.add(await admin.user_topics(t.addr, special), await admin.user_groups(t.addr))
            doc = {**merged.to_json(), "exportTime": _now()}
        return TargetResult(t.name, t.addr, Status.OK, data=doc)

    results = await fan_out(await broker_targets(admin, addr, None, masters_only=False), one)
    return results[0].data, results


def _now() -> int:
    return int(time.time() * 1000)
