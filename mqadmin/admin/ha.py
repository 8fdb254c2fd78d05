"""Replication and controller operations: brokers' HA status and epochs, and the controller's metadata, config,
replica sets, elections and broker-metadata cleaning.

Requests that change or read the controller's replica state go to the controller *leader*, found as Java
mqadmin finds it: by asking the given controller for its metadata (CONTROLLER_GET_METADATA_INFO). Given several
controllers (the peers of a group), the first that can be reached is asked.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from mqadmin.admin.config_change import change_config_key
from mqadmin.admin.core import AdminCore
from mqadmin.admin.errors import AdminError
from mqadmin.admin.fanout import Target, fan_out
from mqadmin.admin.results import Status, TargetResult
from mqadmin.model.ha import ElectMasterBody, ReplicasInfo
from mqadmin.model.rpc import ha as rpc
from mqadmin.transport.errors import Interrupted, TransportError
from mqadmin.wire.codes import ResponseCode


class NoControllerLeader(AdminError):
    """The controller answered its metadata without a leader (an election in progress, or no quorum)."""

    def __init__(self, addr: str) -> None:
        super().__init__(f"controller {addr} reports no leader (an election in progress, or no quorum)")
        self.addr = addr


@dataclass(frozen=True, slots=True)
class ElectOutcome:
    elected: bool
    """False when the controller kept the master (CONTROLLER_MASTER_STILL_EXIST, ``remark`` says why)."""
    remark: str | None
    header: rpc.ElectMasterResponseHeader
    body: ElectMasterBody


def controller_targets(addrs: Sequence[str]) -> list[Target]:
    return [Target("controller", addr) for addr in addrs]


class HaOps(AdminCore):
    # --- brokers ----------------------------------------------------------------------------------

    async def ha_status_on(self, targets: Sequence[Target]) -> list[TargetResult]:
        """GET_BROKER_HA_STATUS (907) on each broker; ``data`` is its ``HaRuntimeInfo``."""

        async def one(t: Target) -> TargetResult:
            reply = await self.request(t.addr, rpc.GET_BROKER_HA_STATUS)
            return TargetResult(t.name, t.addr, Status.OK, data=reply.body)

        return await fan_out(targets, one)

    async def epoch_caches_on(self, targets: Sequence[Target]) -> list[TargetResult]:
        """GET_BROKER_EPOCH_CACHE (1007) on each broker; ``data`` is its ``EpochCache``."""

        async def one(t: Target) -> TargetResult:
            reply = await self.request(t.addr, rpc.GET_BROKER_EPOCH_CACHE)
            return TargetResult(t.name, t.addr, Status.OK, data=reply.body)

        return await fan_out(targets, one)

    # --- the controller ---------------------------------------------------------------------------

    async def controllers_of_cluster(self, cluster: str | None = None) -> list[str]:
        """Where the controllers are, as the cluster says: the ``controllerAddr`` of a broker in controller mode
        (GET_BROKER_CONFIG of the brokers of ``cluster``, else of every cluster), else the peers of the controller
        a name server runs itself (``enableControllerInNamesrv``: its ``controllerDLegerPeers``, from
        GET_NAMESRV_CONFIG). Empty: neither."""
        from mqadmin.admin.fanout import every_address
        from mqadmin.model.rpc import brokers as broker_rpc
        from mqadmin.model.rpc import namesrv as namesrv_rpc

        info = await self.cluster_info()
        names = [cluster] if cluster is not None else sorted(info.clusters)
        targets = [t for c in names for t in every_address(info.brokers_of(c))]

        async def config(t: Target) -> TargetResult:
            reply = await self.request(t.addr, broker_rpc.GET_BROKER_CONFIG)
            return TargetResult(t.name, t.addr, Status.OK, data=reply.body or {})

        for r in await fan_out(targets, config):
            if r.ok and r.data.get("enableControllerMode", "").strip().lower() == "true":
                named = [a.strip() for a in r.data.get("controllerAddr", "").split(";") if a.strip()]
                if named:
                    return named

        async def namesrv_config(t: Target) -> TargetResult:
            reply = await self.request(t.addr, namesrv_rpc.GET_NAMESRV_CONFIG)
            return TargetResult(t.name, t.addr, Status.OK, data=reply.body or {})

        found: list[str] = []
        for r in await fan_out([Target("namesrv", a) for a in self.namesrv.addrs], namesrv_config):
            if r.ok and r.data.get("enableControllerInNamesrv", "").strip().lower() == "true":
                found += [a for a in dledger_peers(r.data.get("controllerDLegerPeers", "")) if a not in found]
        return found

    async def controller_metadata(self, addr: str) -> rpc.ControllerMetadataHeader:
        """CONTROLLER_GET_METADATA_INFO (1005): the controller group, its leader and peers."""
        return (await self.request(addr, rpc.CONTROLLER_GET_METADATA_INFO)).header or rpc.ControllerMetadataHeader()

    async def reachable_controller(self, controllers: Sequence[str]) -> tuple[str, rpc.ControllerMetadataHeader]:
        """The first of ``controllers`` that answers CONTROLLER_GET_METADATA_INFO, with its answer: a controller
        group is reached through any live peer, as its brokers reach it (their controllerAddr lists every peer).
        A peer that cannot be reached is passed over; when none can, the last one's failure is raised."""
        for addr in controllers[:-1]:
            try:
                return addr, await self.controller_metadata(addr)
            except Interrupted:
                raise
            except TransportError:
                continue
        return controllers[-1], await self.controller_metadata(controllers[-1])

    async def controller_leader(self, controllers: Sequence[str]) -> tuple[str, str]:
        """(the controller asked, the leader's address as it reports it): the first reachable of ``controllers``
        is asked. The requests below go to that leader."""
        addr, meta = await self.reachable_controller(controllers)
        if not meta.leader_address:
            raise NoControllerLeader(addr)
        return addr, meta.leader_address

    async def sync_state_sets(self, leader: str, broker_names: Sequence[str]) -> dict[str, ReplicasInfo]:
        """CONTROLLER_GET_SYNC_STATE_DATA (1006) on the leader: each broker name's master and replicas."""
        if not broker_names:
            return {}
        reply = await self.request(leader, rpc.CONTROLLER_GET_SYNC_STATE_DATA, body=list(broker_names))
        return reply.body or {}

    async def elect_master(self, leader: str, cluster: str, broker_name: str, broker_id: int) -> ElectOutcome:
        """CONTROLLER_ELECT_MASTER (1002) on the leader, as an administrator's election of ``broker_id``; a
        master that stays (CONTROLLER_MASTER_STILL_EXIST) is an outcome with ``elected`` False."""
        header = rpc.ElectMasterHeader(
            cluster_name=cluster,
            broker_name=broker_name,
            broker_id=broker_id,
            designate_elect=True,
            invoke_time=int(time.time() * 1000),
        )
        reply = await self.request(leader, rpc.CONTROLLER_ELECT_MASTER, header)
        return ElectOutcome(
            elected=reply.code == ResponseCode.SUCCESS,
            remark=reply.remark,
            header=reply.header or rpc.ElectMasterResponseHeader(),
            body=reply.body or ElectMasterBody(),
        )

    async def clean_broker_metadata(
        self, leader: str, cluster: str | None, broker_name: str, broker_ids: str | None, clean_living: bool
    ) -> None:
        """CLEAN_BROKER_DATA (1011) on the leader."""
        header = rpc.CleanBrokerDataHeader(
            cluster_name=cluster,
            broker_name=broker_name,
            broker_ids=broker_ids,
            clean_living=clean_living,
            invoke_time=int(time.time() * 1000),
        )
        await self.request(leader, rpc.CLEAN_BROKER_DATA, header)

    async def controller_config_at(self, addr: str) -> dict[str, str]:
        return (await self.request(addr, rpc.GET_CONTROLLER_CONFIG)).body or {}

    async def controller_configs(self, addrs: Sequence[str]) -> list[TargetResult]:
        """GET_CONTROLLER_CONFIG (1010) on each controller; ``data`` is its config."""

        async def one(t: Target) -> TargetResult:
            return TargetResult(t.name, t.addr, Status.OK, data=await self.controller_config_at(t.addr))

        return await fan_out(controller_targets(addrs), one)

    async def update_controller_config(self, addrs: Sequence[str], key: str, value: str) -> list[TargetResult]:
        """UPDATE_CONTROLLER_CONFIG (1009) on each controller, its config read before and after
        (``change_config_key``)."""

        async def write(addr: str, props: dict[str, str]) -> None:
            await self.request(addr, rpc.UPDATE_CONTROLLER_CONFIG, body=props)

        async def one(t: Target) -> TargetResult:
            return await change_config_key(t, key, value, self.controller_config_at, write, "controller")

        return await fan_out(controller_targets(addrs), one)


def dledger_peers(value: str) -> list[str]:
    """The addresses of ``controllerDLegerPeers`` (``n0-127.0.0.1:9878;n1-127.0.0.1:9868``), in order."""
    return [p.split("-", 1)[1].strip() for p in value.split(";") if "-" in p and p.split("-", 1)[1].strip()]
