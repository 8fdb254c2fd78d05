"""Peer client for conformance tests: drives PyPI ``rocketmq==0.4.4`` (the Apache RocketMQ C++
client, bundled as ``librocketmq.so``) against a name server.

Run it with the dedicated venv's python (see harness.ensure_py_peer), never the project env:

    py_client.py produce      <namesrv> <topic> <count>
    py_client.py produce-auto <namesrv> <topic> <count>   (topic may not exist yet: TBW102)
    py_client.py pull         <namesrv> <topic> <group> <count> <timeoutSec>

stdout carries only JSON lines, one per message.  Anything the native library prints is
redirected to stderr.  The native library writes its log to ``$HOME/logs/rocketmq-cpp/`` and
ignores Set*LogPath; with ``$PEER_LOG_DIR`` set, HOME is pointed there before the library loads,
so the log lands in ``$PEER_LOG_DIR/logs/rocketmq-cpp/``.

Optional environment: PEER_BODY_PREFIX, PEER_TAGS, PEER_GROUP (same contract as the other
peers), PEER_LOG_DIR.
"""

import json
import os
import sys
import threading
import time

# Keep the JSON channel clean: our records go to a private dup of fd 1, and fd 1 itself (which
# the native library may write to) now points at stderr.
_OUT = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)
sys.stdout = sys.stderr

if os.environ.get("PEER_LOG_DIR"):
    os.makedirs(os.environ["PEER_LOG_DIR"], exist_ok=True)
    os.environ["HOME"] = os.environ["PEER_LOG_DIR"]

import ctypes  # noqa: E402

from rocketmq.client import Message, Producer, PullConsumer, RecvMessage, SendStatus  # noqa: E402
from rocketmq.ffi import _CMessageQueue, _CPullStatus, dll  # noqa: E402

EXIT_USAGE, EXIT_FAIL, EXIT_STATUS, EXIT_TIMEOUT = 64, 2, 3, 4


def emit(rec):
    _OUT.write(json.dumps(rec, separators=(",", ":")) + "\n")
    _OUT.flush()


def err(msg):
    sys.stderr.write(f"[peer-py] {msg}\n")
    sys.stderr.flush()


def _s(v):
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    return v


def _watchdog(seconds, what):
    """Hard stop: native calls cannot be interrupted from Python."""

    def fire():
        err(f"watchdog: {what} did not finish within {seconds}s")
        _OUT.flush()
        os._exit(EXIT_TIMEOUT)

    t = threading.Timer(seconds, fire)
    t.daemon = True
    t.start()
    return t


def _send(producer, msg, attempts=3):
    """send_sync, again when the C++ client says "No route info" for a topic it has just sent to: while it
    refreshes a route it can drop it for a moment (seen against Apache 4.9 and ours alike)."""
    for attempt in range(attempts):
        try:
            return producer.send_sync(msg)
        except Exception as e:
            if "No route info" not in str(e) or attempt == attempts - 1:
                raise
            err(f"send: {e!r}; trying again")
            time.sleep(0.5)


def produce(namesrv, topic, count):
    prefix = os.environ.get("PEER_BODY_PREFIX") or f"peer-py-{os.getpid()}-{int(time.time() * 1000)}"
    tags = os.environ.get("PEER_TAGS") or "TagA"
    group = os.environ.get("PEER_GROUP") or "PG_PEER_PY"
    _watchdog(30 + 12 * count, "produce")
    producer = Producer(group, timeout=10000)
    producer.set_namesrv_addr(namesrv)
    dll.SetProducerInstanceName(producer._handle, f"peer-py-p-{os.getpid()}-{time.monotonic_ns()}".encode())
    rc = 0
    try:
        producer.start()
        for i in range(count):
            body = f"{prefix}-{i}"
            keys = f"{prefix}-k{i}"
            msg = Message(topic)
            msg.set_keys(keys)
            msg.set_tags(tags)
            msg.set_body(body)
            try:
                res = _send(producer, msg)
            except Exception as e:  # rocketmq.exceptions.ProducerSendSyncFailed etc.
                err(f"send #{i} failed: {e!r}")
                rc = EXIT_FAIL
                break
            # The C API's send result has no queue id / broker name (only status, msgId, offset).
            emit(
                {
                    "msgId": res.msg_id,
                    "queueOffset": res.offset,
                    "queueId": None,
                    "brokerName": None,
                    "status": "SEND_OK" if res.status == SendStatus.OK else res.status.name,
                    "topic": topic,
                    "body": body,
                    "keys": keys,
                    "tags": tags,
                }
            )
            if res.status != SendStatus.OK:
                err(f"send #{i} status {res.status.name}")
                rc = EXIT_STATUS
    except Exception as e:
        err(f"producer failed: {e!r}")
        rc = EXIT_FAIL
    finally:
        try:
            producer.shutdown()
        except Exception as e:
            err(f"producer shutdown: {e!r}")
    return rc


def pull(namesrv, topic, group, count, timeout):
    """Pull every queue of the topic from offset 0 until `count` distinct messages arrived.

    Uses the C API directly (through the package's ctypes bindings): the package's
    PullConsumer.pull() generator retries BROKER_TIMEOUT forever and cannot be bounded.
    The C++ client pulls without the suspend flag, so an empty queue answers at once.
    """
    _watchdog(timeout + 15, "pull")
    deadline = time.monotonic() + timeout
    consumer = PullConsumer(group)
    consumer.set_namesrv_addr(namesrv)
    consumer.start()
    seen = set()
    offsets = {}
    rc = EXIT_TIMEOUT
    try:
        while time.monotonic() < deadline and len(seen) < count:
            mqs = ctypes.POINTER(_CMessageQueue)()
            n = ctypes.c_int()
            st = dll.FetchSubscriptionMessageQueues(
                consumer._handle, topic.encode(), ctypes.pointer(mqs), ctypes.pointer(n)
            )
            if st != 0:
                err(f"no queues for {topic} yet (status {int(st)}); retrying")
                time.sleep(1.0)
                continue
            try:
                for qi in range(n.value):
                    mq = mqs[qi]
                    key = (mq.brokerName, mq.queueId)
                    while len(seen) < count and time.monotonic() < deadline:
                        off = offsets.get(key, 0)
                        res = dll.Pull(consumer._handle, ctypes.pointer(mq), b"*", ctypes.c_longlong(off), 32)
                        try:
                            status = res.pullStatus
                            if status != _CPullStatus.BROKER_TIMEOUT:
                                offsets[key] = res.nextBeginOffset
                            if status == _CPullStatus.FOUND:
                                for j in range(res.size):
                                    m = RecvMessage(res.msgFoundList[j])
                                    mid = m.id
                                    if mid in seen:
                                        continue
                                    seen.add(mid)
                                    emit(
                                        {
                                            "msgId": mid,
                                            "queueId": mq.queueId,
                                            "brokerName": _s(mq.brokerName),
                                            "queueOffset": m.queue_offset,
                                            "topic": m.topic,
                                            "body": _s(m.body),
                                            "keys": _s(m.keys),
                                            "tags": _s(m.tags),
                                            "reconsumeTimes": m.reconsume_times,
                                        }
                                    )
                                    if len(seen) >= count:
                                        break
                                if res.nextBeginOffset >= res.maxOffset:
                                    break
                            elif status in (_CPullStatus.NO_MATCHED_MSG, _CPullStatus.OFFSET_ILLEGAL):
                                if res.nextBeginOffset >= res.maxOffset:
                                    break
                            elif status == _CPullStatus.BROKER_TIMEOUT:
                                time.sleep(0.2)
                                break
                            else:  # NO_NEW_MSG
                                break
                        finally:
                            dll.ReleasePullResult(res)
                    if len(seen) >= count:
                        break
            finally:
                dll.ReleaseSubscriptionMessageQueue(mqs)
            if len(seen) < count:
                time.sleep(0.5)
        if len(seen) >= count:
            rc = 0
        else:
            err(f"timeout after {timeout}s: received {len(seen)} of {count}")
    except Exception as e:
        err(f"pull failed: {e!r}")
        rc = EXIT_FAIL
    finally:
        try:
            consumer.shutdown()
        except Exception as e:
            err(f"consumer shutdown: {e!r}")
    return rc


def main(argv):
    if len(argv) == 4 and argv[0] in ("produce", "produce-auto"):
        return produce(argv[1], argv[2], int(argv[3]))
    if len(argv) == 6 and argv[0] in ("pull", "consume"):
        return pull(argv[1], argv[2], argv[3], int(argv[4]), float(argv[5]))
    err(__doc__)
    return EXIT_USAGE


if __name__ == "__main__":
    code = main(sys.argv[1:])
    _OUT.flush()
    sys.stderr.flush()
    # Skip interpreter teardown: the wrapper's __del__ methods call into the native library
    # after shutdown and can crash or hang.
    os._exit(code)
