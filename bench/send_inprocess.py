"""Sends fed to the embedded broker in-process, without sockets, for instruction counts (callgrind).

The broker is started in this process on a temporary data directory; frames go to its protocol's
``data_received`` and responses are collected from a stand-in transport, so what is measured is the
server's own path (decoding, checks, store, response), repeatably under ``valgrind --tool=callgrind``:

    valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out \\
        python bench/send_inprocess.py --mode batch --count 200 --batch 64
    callgrind_annotate /tmp/cg.out | head        # instructions; subtract a --dry run's (set-up, frames)

``--mode sync`` sends ``--count`` SEND_MESSAGE_V2 frames, ``--in-flight`` at a time; ``--mode batch`` sends
``--count`` SEND_BATCH_MESSAGE frames of ``--batch`` messages (1 KiB bodies and a tag, as bench_server.py's drain part).
Every response must be SUCCESS.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

from mqadmin.model.rpc.messages import SendHeaderV2
from mqadmin.model.topic import TopicConfig
from mqadmin.server.broker.batch import encode_batch
from mqadmin.server.broker.broker import Broker
from mqadmin.server.broker.config import BrokerConfig
from mqadmin.wire.codes import RequestCode, ResponseCode
from mqadmin.wire.frame import RemotingCommand, decode_frame, encode_frame
from mqadmin.wire.message import encode_properties, new_uniq_key

TOPIC = "BenchInProcess"
BODY = b"x" * 1024


class _Transport:
    """What the broker's protocol writes to: responses are parsed and counted."""

    def __init__(self) -> None:
        self.responses: list[RemotingCommand] = []
        self.arrived = asyncio.Event()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return ("127.0.0.1", 40000) if name == "peername" else default

    def write(self, data: bytes) -> None:
        pos = 0
        while pos < len(data):  # the broker writes whole frames
            n = int.from_bytes(data[pos : pos + 4])
            self.responses.append(decode_frame(data[pos + 4 : pos + 4 + n]))
            pos += 4 + n
        self.arrived.set()

    def get_write_buffer_size(self) -> int:
        return 0

    def is_closing(self) -> bool:
        return False

    def close(self) -> None:
        pass

    abort = close


def _frame(opaque: int, batch: int) -> bytes:
    if batch:
        items = [(0, BODY, encode_properties({"TAGS": "TagA", "UNIQ_KEY": new_uniq_key(), "WAIT": "true"}))
                 for _ in range(batch)]  # fmt: skip
        code, body, props = RequestCode.SEND_BATCH_MESSAGE, encode_batch(items), ""
    else:
        code, body = RequestCode.SEND_MESSAGE_V2, BODY
        props = encode_properties({"UNIQ_KEY": new_uniq_key(), "WAIT": "true", "TAGS": "t"})
    header = SendHeaderV2(
        producer_group="BenchGroup", topic=TOPIC, default_topic="TBW102", default_topic_queue_nums=4, queue_id=-1,
        sys_flag=0, born_timestamp=int(time.time() * 1000), flag=0, properties=props or None, batch=bool(batch),
    )  # fmt: skip
    return encode_frame(RemotingCommand(code=code, opaque=opaque, ext=header.to_ext(), body=body))


async def run(mode: str, count: int, batch: int, in_flight: int, dry: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        broker = Broker(BrokerConfig(listen_port=0, namesrv_addrs=[], data_dir=Path(tmp)))
        await broker.start()
        try:
            await broker.topics.update(TopicConfig(TOPIC, read_queue_nums=8, write_queue_nums=8))
            frames = [_frame(i, batch if mode == "batch" else 0) for i in range(count)]
            if dry:
                return
            conn = broker.server._connection()
            transport = _Transport()
            conn.connection_made(transport)  # type: ignore[arg-type]
            window = 1 if mode == "batch" else in_flight
            for start in range(0, count, window):
                chunk = frames[start : start + window]
                conn.data_received(b"".join(chunk))
                while len(transport.responses) < start + len(chunk):
                    transport.arrived.clear()
                    await transport.arrived.wait()
            bad = [r for r in transport.responses if r.code != ResponseCode.SUCCESS]
            if bad or len(transport.responses) != count:
                raise SystemExit(f"{len(bad)} of {len(transport.responses)} responses failed: {bad[:1]}")
            conn.connection_lost(None)
        finally:
            await broker.stop()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mode", choices=["batch", "sync"], default="batch")
    p.add_argument("--count", type=int, default=200, help="frames to send (0: set-up only)")
    p.add_argument("--batch", type=int, default=64, help="messages per batch frame")
    p.add_argument("--in-flight", type=int, default=16, help="sync frames sent before waiting for their answers")
    p.add_argument("--dry", action="store_true", help="build the frames, send none (the client's share, to subtract)")
    a = p.parse_args()
    asyncio.run(run(a.mode, a.count, a.batch, a.in_flight, a.dry))


if __name__ == "__main__":
    main()
