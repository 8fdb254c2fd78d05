"""Looking at stored messages and progress: QUERY_MESSAGE (12), VIEW_MESSAGE_BY_ID (33),
GET_TOPIC_STATS_INFO (202) and GET_CONSUME_STATS (208).

TopicStatsTable and ConsumeStats are keyed by MessageQueue objects. They are written the way a
Java broker writes them, with the whole MessageQueue object as the map key
(``{"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:{...}}}``): Java's fastjson reads
that (it also reads a standard string key holding the object), and so do the Go and Rust admin
clients, which parse exactly this raw form.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqadmin.server.broker.brokerstore import Processor
from mqadmin.server.headers import need, need_int, opt_bool
from mqadmin.server.remoting import ClientChannel
from mqadmin.wire import fastjson
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand

if TYPE_CHECKING:
    pass

DEFAULT_QUERY_MAX_NUM = 32
MAX_QUERY_NUM = 64
UNIQUE_KEY_QUERY = "_UNIQUE_KEY_QUERY"


def mq_keyed_json(fields: dict[str, Any], table: list[tuple[dict[str, Any], dict[str, Any]]]) -> bytes:
    """``fields`` plus ``offsetTable`` as fastjson writes a map with MessageQueue keys."""
    rows = ",".join(f"{fastjson.dumps(mq)}:{fastjson.dumps(value)}" for mq, value in table)
    items = [f"{fastjson.dumps(k)}:{fastjson.dumps(v)}" for k, v in fields.items()]
    items.append('"offsetTable":{' + rows + "}")
    return ("{" + ",".join(sorted(items)) + "}").encode()


class QueryProcessor(Processor):
    async def query_message(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        topic, key = need(cmd, "topic"), need(cmd, "key")
        max_num = need_int(cmd, "maxNum")
        begin, end = need_int(cmd, "beginTimestamp"), need_int(cmd, "endTimestamp")
        unique = opt_bool(cmd, UNIQUE_KEY_QUERY)
        if unique:
            max_num = DEFAULT_QUERY_MAX_NUM
        found = self.messages.query(topic, key, min(max(max_num, 0), MAX_QUERY_NUM), begin, end, unique=unique)
        ext = {
            "indexLastUpdateTimestamp": str(self.messages.last_store_timestamp),
            "indexLastUpdatePhyoffset": str(self.messages.max_phys_offset),
        }
        if not found:
            return cmd.response(ResponseCode.QUERY_NOT_FOUND, "can not find message, maybe time range not correct", ext)
        return cmd.response(ResponseCode.SUCCESS, None, ext, b"".join(found))

    async def view_message(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        offset = need_int(cmd, "offset")
        data = self.messages.read_message(offset)
        if data is None:
            return cmd.response(ResponseCode.SYSTEM_ERROR, f"can not find message by the offset, {offset}")
        return cmd.response(body=data)

    async def topic_stats(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        topic = need(cmd, "topic")
        tc = self.broker.topics.get(topic)
        if tc is None:
            return cmd.response(ResponseCode.TOPIC_NOT_EXIST, f"topic[{topic}] not exist")
        broker_name = self.broker.config.broker_name
        table = []
        for qid in range(tc.write_queue_nums):
            hi = self.messages.max_offset(topic, qid)
            table.append(
                (
                    {"brokerName": broker_name, "queueId": qid, "topic": topic},
                    {
                        "lastUpdateTimestamp": self.messages.store_time(topic, qid, hi - 1) if hi > 0 else 0,
                        "maxOffset": hi,
                        "minOffset": self.messages.min_offset(topic, qid),
                    },
                )
            )
        return cmd.response(body=mq_keyed_json({"topicPutTps": self.rates.put_tps(topic)}, table))

    async def consume_stats(self, cmd: RemotingCommand, ch: ClientChannel) -> RemotingCommand:
        group = need(cmd, "consumerGroup")
        topic = cmd.ext.get("topic") or ""
        topics = [topic] if topic.strip() else sorted(self.offsets.topics_of(group))
        info = self.clients.consumers.get(group)
        broker_name = self.broker.config.broker_name
        table = []
        tps = 0.0
        for t in topics:
            tc = self.broker.topics.get(t)
            if tc is None:
                continue
            if info is not None and info.subscriptions and t not in info.subscriptions:
                continue
            for qid in range(tc.read_queue_nums):
                consumer = max(self.offsets.query(group, t, qid), 0)
                last = self.messages.store_time(t, qid, consumer - 1) if consumer > 0 else 0
                value = {
                    "brokerOffset": self.messages.max_offset(t, qid),
                    "consumerOffset": consumer,
                    "lastTimestamp": last,
                    "pullOffset": consumer,
                }
                table.append(({"brokerName": broker_name, "queueId": qid, "topic": t}, value))
            tps += self.rates.get_tps(group, t)
        return cmd.response(body=mq_keyed_json({"consumeTps": round(tps, 2)}, table))
