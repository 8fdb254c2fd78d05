"""The consumer side of a fake broker, for CLI unit tests: queues with messages, committed offsets, online
consumers and producers, and the consumer/offset requests a broker answers (as Apache 5.x does, or as 4.9
does with ``version`` 409). Installed as a FakeBroker's ``before`` hook."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqadmin.model.clients import ConsumerRunningInfo
from mqadmin.model.consume import ConsumeStats, ConsumeStatsBody, QueueProgress
from mqadmin.model.queue import MessageQueue
from mqadmin.model.rpc import clients as client_rpc
from mqadmin.model.rpc import consumers as rpc
from mqadmin.model.rpc import groups as group_rpc
from mqadmin.model.rpc.consumers import ConsumerStatus
from mqadmin.model.stats import QueueOffsets, TopicStats, TopicStatsBody
from mqadmin.model.topic import TopicConfig
from mqadmin.wire import fastjson
from mqadmin.wire.codes import ResponseCode as R
from mqadmin.wire.frame import RemotingCommand
from tests.unit.fake_remoting import FakeBroker

T0 = 1_700_000_000_000
"""Message i of every queue was stored at T0 + i minutes."""
MINUTE = 60_000


@dataclass
class Client:
    client_id: str
    language: str = "JAVA"
    version: int = 409
    info: dict[str, Any] | None = None
    """GET_CONSUMER_RUNNING_INFO answer (None: the client does not answer)."""
    holds: dict[MessageQueue, int] = field(default_factory=dict)
    """GET_CONSUMER_STATUS_FROM_CLIENT answer."""


@dataclass
class ConsumerSide:
    broker: FakeBroker
    depth: dict[str, list[int]] = field(default_factory=dict)
    """Topic → messages in each queue."""
    offsets: dict[tuple[str, str], dict[int, int]] = field(default_factory=dict)
    """(group, topic) → committed offset per queue."""
    online: dict[str, list[Client]] = field(default_factory=dict)
    subscriptions: dict[str, list[str]] = field(default_factory=dict)
    producers: dict[str, list[Client]] = field(default_factory=dict)
    modes: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    fail: dict[int, tuple[int, str]] = field(default_factory=dict)
    """Request code → (response code, remark) to answer instead."""
    commits_before_failing: int | None = None
    """UPDATE_CONSUMER_OFFSET requests answered before the next ones fail."""
    requests: list[RemotingCommand] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.broker.before = self.handle

    def add_topic(self, topic: str, depths: list[int]) -> None:
        self.depth[topic] = depths
        self.broker.topics[topic] = TopicConfig(topic, len(depths), len(depths), 6)

    def add_group(self, group: str, topic: str, offsets: list[int]) -> None:
        """A group with a retry topic and these committed offsets on ``topic``."""
        self.add_topic("%RETRY%" + group, self.depth.get("%RETRY%" + group, [0]))
        self.offsets[(group, topic)] = dict(enumerate(offsets))

    @property
    def v5(self) -> bool:
        return self.broker.version >= 413

    def codes(self) -> list[int]:
        return [c.code for c in self.requests]

    async def handle(self, cmd: RemotingCommand) -> RemotingCommand | None:
        self.requests.append(cmd)
        if cmd.code in self.fail:
            code, remark = self.fail[cmd.code]
            return cmd.response(code, remark)
        handler = getattr(self, f"_on_{cmd.code}", None)
        return handler(cmd) if handler else None

    # --- offsets -----------------------------------------------------------------------------

    def _on_208(self, cmd: RemotingCommand) -> RemotingCommand:  # GET_CONSUME_STATS
        group, only = cmd.ext["consumerGroup"], cmd.ext.get("topic")
        rows = []
        for (g, topic), table in sorted(self.offsets.items()):
            if g != group or (only and topic != only):
                continue
            for qid, depth in enumerate(self.depth.get(topic, [])):
                off = table.get(qid, 0)
                last = T0 + (off - 1) * MINUTE if off else 0
                rows.append(QueueProgress(topic, self.broker.name, qid, depth, off, off, last))
        return cmd.response(body=ConsumeStatsBody().encode(ConsumeStats(rows, 1.5)))

    def _on_43(self, cmd: RemotingCommand) -> RemotingCommand:  # GET_ALL_CONSUMER_OFFSET
        table = {f"{topic}@{group}": dict(queues) for (group, topic), queues in self.offsets.items()}
        return cmd.response(body=group_rpc.OFFSET_TABLE.encode(table))

    def _on_202(self, cmd: RemotingCommand) -> RemotingCommand:  # GET_TOPIC_STATS_INFO
        topic = cmd.ext["topic"]
        if topic not in self.depth:
            return cmd.response(R.TOPIC_NOT_EXIST, "topic not exist")
        rows = [QueueOffsets(topic, self.broker.name, q, 0, d, T0) for q, d in enumerate(self.depth[topic])]
        return cmd.response(body=TopicStatsBody().encode(TopicStats(rows)))

    def _on_29(self, cmd: RemotingCommand) -> RemotingCommand:  # SEARCH_OFFSET_BY_TIMESTAMP
        depth = self.depth[cmd.ext["topic"]][int(cmd.ext["queueId"])]
        ts = int(cmd.ext["timestamp"])
        return cmd.response(ext={"offset": str(min(max(-(-(ts - T0) // MINUTE), 0), depth))})

    def _on_30(self, cmd: RemotingCommand) -> RemotingCommand:  # GET_MAX_OFFSET
        return cmd.response(ext={"offset": str(self.depth[cmd.ext["topic"]][int(cmd.ext["queueId"])])})

    def _on_31(self, cmd: RemotingCommand) -> RemotingCommand:  # GET_MIN_OFFSET
        return cmd.response(ext={"offset": "0"})

    def _on_15(self, cmd: RemotingCommand) -> RemotingCommand:  # UPDATE_CONSUMER_OFFSET
        if self.commits_before_failing is not None:
            if self.commits_before_failing == 0:
                return cmd.response(R.SYSTEM_ERROR, "disk full")
            self.commits_before_failing -= 1
        key = (cmd.ext["consumerGroup"], cmd.ext["topic"])
        self.offsets.setdefault(key, {})[int(cmd.ext["queueId"])] = int(cmd.ext["commitOffset"])
        return cmd.response()

    def _on_222(self, cmd: RemotingCommand) -> RemotingCommand:  # INVOKE_BROKER_TO_RESET_OFFSET
        h = rpc.INVOKE_BROKER_TO_RESET_OFFSET.decode(cmd).header
        if not self.v5 and not self.online.get(h.group):
            return cmd.response(
                R.CONSUMER_NOT_ONLINE, f"Consumer not online, so can not reset offset, Group: {h.group}"
            )
        table = self.offsets.setdefault((h.group, h.topic), {})
        queues = [h.queue_id] if h.queue_id is not None and h.queue_id >= 0 else range(len(self.depth[h.topic]))
        out = {}
        for qid in queues:
            depth = self.depth[h.topic][qid]
            if h.offset not in (None, -1) and h.queue_id is not None and h.queue_id >= 0:
                target = h.offset
            elif h.timestamp < 0:
                target = depth
            else:
                target = min(max(-(-(h.timestamp - T0) // MINUTE), 0), depth)
            if not h.is_force and table.get(qid, 0) < target and not self.v5:
                target = table.get(qid, 0)
            if self.v5:  # a 5.x broker commits itself; a 4.9 one leaves it to the consumers
                table[qid] = target
            out[MessageQueue(h.topic, self.broker.name, qid)] = target
        return rpc.INVOKE_BROKER_TO_RESET_OFFSET.answer(cmd, body=out)

    # --- clients -----------------------------------------------------------------------------

    def _on_203(self, cmd: RemotingCommand) -> RemotingCommand:  # GET_CONSUMER_CONNECTION_LIST
        group = cmd.ext["consumerGroup"]
        clients = self.online.get(group)
        if not clients:
            return cmd.response(R.CONSUMER_NOT_ONLINE, f"the consumer group[{group}] not online")
        subs = {t: {"subString": "*", "subVersion": 1, "topic": t} for t in self.subscriptions.get(group, [])}
        body = {
            "connectionSet": [
                {
                    "clientAddr": f"10.0.0.{i}:5000",
                    "clientId": c.client_id,
                    "language": c.language,
                    "version": c.version,
                }
                for i, c in enumerate(clients)
            ],
            "consumeFromWhere": "CONSUME_FROM_LAST_OFFSET",
            "consumeType": "CONSUME_PASSIVELY",
            "messageModel": "CLUSTERING",
            "subscriptionTable": subs,
        }
        return cmd.response(body=fastjson.dumps_bytes(body))

    def _on_204(self, cmd: RemotingCommand) -> RemotingCommand:  # GET_PRODUCER_CONNECTION_LIST
        group = cmd.ext["producerGroup"]
        if group not in self.producers:
            return cmd.response(R.SYSTEM_ERROR, f"the producer group[{group}] not exist")
        conns = [{"clientAddr": "10.0.0.9:6000", "clientId": p.client_id, "language": p.language,
                  "version": p.version} for p in self.producers[group]]  # fmt: skip
        return cmd.response(body=fastjson.dumps_bytes({"connectionSet": conns}))

    def _on_328(self, cmd: RemotingCommand) -> RemotingCommand:  # GET_ALL_PRODUCER_INFO
        data = {g: [{"clientId": p.client_id, "language": p.language, "lastUpdateTimestamp": T0,
                     "remoteIP": "10.0.0.9:6000", "version": p.version} for p in ps]
                for g, ps in self.producers.items()}  # fmt: skip
        return cmd.response(body=fastjson.dumps_bytes({"data": data}))

    def _client(self, group: str, client_id: str) -> Client | None:
        return next((c for c in self.online.get(group, []) if c.client_id == client_id), None)

    def _on_307(self, cmd: RemotingCommand) -> RemotingCommand:  # GET_CONSUMER_RUNNING_INFO
        client = self._client(cmd.ext["consumerGroup"], cmd.ext["clientId"])
        if client is None or client.info is None:
            group, cid = cmd.ext["consumerGroup"], cmd.ext["clientId"]
            return cmd.response(R.SYSTEM_ERROR, f"The Consumer <{group}> <{cid}> not online")
        info = dict(client.info)
        if cmd.ext.get("jstackEnable") == "true" and client.language == "JAVA":
            info["jstack"] = '"main" #1 prio=5\n\tat Foo.bar(Foo.java:1)'
        return cmd.response(body=client_rpc.RUNNING_INFO.encode(ConsumerRunningInfo.from_json(info)))

    def _on_223(self, cmd: RemotingCommand) -> RemotingCommand:  # INVOKE_BROKER_TO_GET_CONSUMER_STATUS
        clients = [c for c in self.online.get(cmd.ext["group"], []) if cmd.ext.get("clientAddr") in (None, c.client_id)]
        status = ConsumerStatus({}, {c.client_id: c.holds for c in clients})
        return rpc.INVOKE_BROKER_TO_GET_CONSUMER_STATUS.answer(cmd, body=status)

    # --- request modes -----------------------------------------------------------------------

    def _on_402(self, cmd: RemotingCommand) -> RemotingCommand:  # GET_ALL_MESSAGE_REQUEST_MODE
        if not self.v5:
            return cmd.response(R.REQUEST_CODE_NOT_SUPPORTED, f" request type {cmd.code} not supported")
        table: dict[str, dict[str, Any]] = {}
        for (topic, group), mode in self.modes.items():
            table.setdefault(topic, {})[group] = mode
        return cmd.response(body=fastjson.dumps_bytes({"messageRequestModeMap": table}))

    def _on_401(self, cmd: RemotingCommand) -> RemotingCommand:  # SET_MESSAGE_REQUEST_MODE
        if not self.v5:
            return cmd.response(R.REQUEST_CODE_NOT_SUPPORTED, f" request type {cmd.code} not supported")
        body = fastjson.loads(cmd.body)
        self.modes[(body["topic"], body["consumerGroup"])] = body
        return cmd.response()


def running_info(topic: str, broker: str, *, cached: int = 0, last_consume: int = 0) -> dict[str, Any]:
    """A ConsumerRunningInfo as the Java client writes it (queue keys as objects)."""
    mq = fastjson.dumps(MessageQueue(topic, broker, 0).to_json())
    return {
        "properties": {"PROP_CONSUME_TYPE": "CONSUME_PASSIVELY", "PROP_CONSUMEORDERLY": "false",
                       "PROP_CONSUMER_START_TIMESTAMP": str(T0), "PROP_CLIENT_VERSION": "V4_9_8"},
        "subscriptionSet": [{"topic": topic, "subString": "*", "subVersion": 1}],
        "mqTable": {mq: {"commitOffset": 3, "cachedMsgCount": cached, "cachedMsgMinOffset": 3,
                         "cachedMsgMaxOffset": 3 + cached, "locked": False, "droped": False,
                         "lastPullTimestamp": T0, "lastConsumeTimestamp": last_consume}},
        "statusTable": {topic: {"pullRT": 1.5, "pullTPS": 2.0, "consumeRT": 3.0, "consumeOKTPS": 4.0,
                                "consumeFailedTPS": 0.0, "consumeFailedMsgs": 0}},
    }  # fmt: skip
