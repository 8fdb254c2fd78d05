"""A long-running push consumer on the Apache RocketMQ C++ client (PyPI ``rocketmq`` 0.4.4), for the
consumer/offset conformance tests. Run it with the peer venv's python (``tests.peers.harness.ensure_py_peer``):

    cpp_consumer.py <namesrv> <topic> <group>

stdout: ``{"event":"started"}``, then one JSON line per delivery (``msgId``, ``topic``, ``queueId``,
``queueOffset``, ``body``). stdin: ``quit`` (or end of input) shuts the consumer down, which commits its
offsets. It reuses tests/peers/py_client.py's set-up (stdout kept for JSON, the native log under
``$PEER_LOG_DIR``) and its ``emit``.
"""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "peers"))

import py_client as peer  # noqa: E402  (redirects the native library's stdout before it loads)
from rocketmq.client import PushConsumer  # noqa: E402


def text(value):
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def main(namesrv, topic, group):
    consumer = PushConsumer(group)
    consumer.set_namesrv_addr(namesrv)
    consumer.set_instance_name(f"cpp-live-{os.getpid()}-{time.monotonic_ns()}")

    def on_message(msg):
        peer.emit({
            "event": "msg", "msgId": text(msg.id), "topic": text(msg.topic), "queueId": msg.queue_id,
            "queueOffset": msg.queue_offset, "body": text(msg.body),
        })  # fmt: skip

    consumer.subscribe(topic, on_message)
    consumer.start()
    peer.emit({"event": "started"})
    for line in sys.stdin:
        if line.strip() == "quit":
            break
    consumer.shutdown()
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        peer.err(__doc__)
        os._exit(64)
    code = main(*sys.argv[1:])
    sys.stderr.flush()
    os._exit(code)  # the wrapper's __del__ calls into the library after shutdown (see py_client.py)
