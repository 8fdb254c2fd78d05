"""Store maintenance requests, answered as Apache 5.5's AdminBrokerProcessor answers them, on this broker's
store (``mqadmin.server.store.cleanup``): deleting expired commit-log segments, dropping expired and unused
consume queues, the commit log's read-ahead; cold-read flow-control thresholds, kept and reported as by an
Apache broker with coldDataFlowControlEnable=false (its default), which enforces none; and the timer engine
switch, refused as Apache refuses it on a broker without a timer-message store."""

from __future__ import annotations

import asyncio
import logging
import time

from mqadmin.model.rpc import brokers
from mqadmin.model.rpc.spec import Decoded
from mqadmin.server.broker.admin import disk_ratio
from mqadmin.server.broker.brokerstore import BrokerParts, Processor
from mqadmin.server.loop import stop_task
from mqadmin.server.remoting import ClientChannel, RemotingServer
from mqadmin.wire import fastjson
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand

log = logging.getLogger(__name__)

READ_AHEAD_MODES = {"0": True, "1": False}
"""SET_COMMITLOG_READ_MODE's READ_AHEAD_MODE: 0 read-ahead on (MADV_NORMAL), 1 off (MADV_RANDOM)."""


class StoreAdmin(Processor):
    def __init__(self, parts: BrokerParts) -> None:
        super().__init__(parts)
        self._cleaning: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Check every cleanResourceInterval whether expired segments are to go, as Apache's clean service."""
        self._cleaning = asyncio.get_running_loop().create_task(self._clean_periodically())

    async def close(self) -> None:
        await stop_task(self._cleaning)

    async def _clean_periodically(self) -> None:
        while True:
            await asyncio.sleep(self.config.clean_resource_interval)
            try:
                if self.time_to_delete():
                    await self.messages.delete_expired_segments(self.config.file_reserved_hours)
            except Exception:  # the next round tries again
                log.exception("%s: deleting expired commit-log segments failed", self.config.broker_name)

    def time_to_delete(self, now: float | None = None) -> bool:
        """An hour of deleteWhen (a list holding a non-number matches no hour), or the disk fuller than
        diskMaxUsedSpaceRatio percent."""
        hours = [h.strip() for h in self.config.delete_when.split(";")]
        hour = time.localtime(now).tm_hour
        if all(h.isdigit() for h in hours) and hour in {int(h) for h in hours}:
            return True
        return disk_ratio(self.messages.data_dir) * 100 > self.config.disk_max_used_space_ratio

    def serve(self, server: RemotingServer) -> None:
        for declared, handler in (
            (brokers.DELETE_EXPIRED_COMMITLOG, self.delete_expired_commitlog),
            (brokers.CLEAN_EXPIRED_CONSUMEQUEUE, self.clean_expired_cq),
            (brokers.CLEAN_UNUSED_TOPIC, self.clean_unused_topic),
            (brokers.SET_COMMITLOG_READ_MODE, self.set_read_ahead),
            (brokers.SWITCH_TIMER_ENGINE, self.switch_timer_engine),
        ):  # fmt: skip
            server.serve(declared, handler)

    async def delete_expired_commitlog(self, req: Decoded[None, None], ch: ClientChannel) -> RemotingCommand:
        """Apache flags its cleaning service to delete the files past fileReservedTime on its next runs; this
        broker deletes them before it answers."""
        await self.messages.delete_expired_segments(self.config.file_reserved_hours)
        return req.cmd.response(ResponseCode.SUCCESS)

    async def clean_expired_cq(self, req: Decoded[None, None], ch: ClientChannel) -> RemotingCommand:
        dropped = await self.messages.clean_expired_queues()
        if dropped:
            log.info("%s: dropped expired consume queues %s", self.config.broker_name, dropped)
        return req.cmd.response(ResponseCode.SUCCESS)

    async def clean_unused_topic(self, req: Decoded[None, None], ch: ClientChannel) -> RemotingCommand:
        dropped = await self.messages.clean_unused_topics(self.topics.all().keys())
        if dropped:
            log.info("%s: dropped the consume queues of unused topics %s", self.config.broker_name, dropped)
        return req.cmd.response(ResponseCode.SUCCESS)

    async def set_read_ahead(self, req: Decoded[brokers.ReadAheadHeader, None], ch: ClientChannel) -> RemotingCommand:
        mode = req.header.mode.strip()
        if mode not in READ_AHEAD_MODES:
            if not mode.lstrip("+-").isdigit():
                return req.cmd.response(ResponseCode.SYSTEM_ERROR, "set commitlog readahead mode failed")
            return req.cmd.response(ResponseCode.INVALID_PARAMETER, "set commitlog readahead mode param value error")
        self.config.data_read_ahead = READ_AHEAD_MODES[mode]
        self.messages.log.set_read_ahead(self.config.data_read_ahead)
        return req.cmd.response(ResponseCode.SUCCESS, f"set commitlog readahead mode success, mode: {mode}")

    async def switch_timer_engine(
        self, req: Decoded[brokers.TimerEngineHeader, None], ch: ClientChannel
    ) -> RemotingCommand:
        return req.cmd.response(ResponseCode.INVALID_PARAMETER, "broker timerWheelEnable is false")


class ColdDataFlowControl(Processor):
    """Consumer groups' cold-read thresholds (bytes), in memory as Apache keeps them."""

    def __init__(self, parts: BrokerParts) -> None:
        super().__init__(parts)
        self.thresholds: dict[str, int] = {}

    def serve(self, server: RemotingServer) -> None:
        for declared, handler in (
            (brokers.UPDATE_COLD_DATA_FLOW_CTR_CONFIG, self.update),
            (brokers.REMOVE_COLD_DATA_FLOW_CTR_CONFIG, self.remove), (brokers.GET_COLD_DATA_FLOW_CTR_INFO, self.info),
        ):  # fmt: skip
            server.serve(declared, handler)

    async def update(self, req: Decoded[None, dict[str, str]], ch: ClientChannel) -> RemotingCommand:
        """Apache logs and skips a threshold that is not a number, and answers success; this broker refuses the
        request naming it, and changes nothing."""
        parsed: dict[str, int] = {}
        for group, raw in (req.body or {}).items():
            try:
                parsed[group] = int(raw.strip())
            except ValueError:
                return req.cmd.response(ResponseCode.SYSTEM_ERROR, f"threshold of {group!r} is not a number: {raw!r}")
        self.thresholds.update(parsed)
        return req.cmd.response(ResponseCode.SUCCESS)

    async def remove(self, req: Decoded[None, bytes], ch: ClientChannel) -> RemotingCommand:
        self.thresholds.pop((req.body or b"").decode("utf-8", "replace"), None)
        return req.cmd.response(ResponseCode.SUCCESS)

    async def info(self, req: Decoded[None, None], ch: ClientChannel) -> RemotingCommand:
        """Nothing is read cold here (no read is throttled), so the runtime table is empty, as an Apache broker's
        with the flow control off."""
        stored = self.config.to_properties()
        info = {
            "runtimeTable": {},
            "configTable": self.thresholds,
            "cgColdReadThreshold": int(stored["cgColdReadThreshold"]),
            "globalColdReadThreshold": int(stored["globalColdReadThreshold"]),
            "globalAcc": 0,
        }
        return brokers.GET_COLD_DATA_FLOW_CTR_INFO.answer(req.cmd, body=fastjson.dumps_bytes(info))
