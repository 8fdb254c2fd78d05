"""An in-process dev cluster (real name server and brokers on 127.0.0.1), requests built from their declarations
(``call``) and raw ones (``request``, for what no declaration would send)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from mqadmin.admin.client import AdminClient
from mqadmin.model.rpc.messages import PullHeader, SendHeader
from mqadmin.model.rpc.spec import Rpc
from mqadmin.model.rpc.topics import CreateTopicHeader
from mqadmin.model.topic import TopicConfig
from mqadmin.server.dev import DevCluster, start_cluster
from mqadmin.transport.tcp import TcpTransport
from mqadmin.wire.frame import RemotingCommand
from mqadmin.wire.message import encode_properties, new_uniq_key
from tests.conftest import Deadline

H = TypeVar("H")
B = TypeVar("B")


@pytest.fixture
async def make_cluster(tmp_path: Path):
    """``await make_cluster(brokers=1, auto_create=True)``: a started cluster, stopped at the end."""
    clusters: list[DevCluster] = []

    async def factory(**kwargs: Any) -> DevCluster:
        kwargs.setdefault("brokers", 1)
        kwargs.setdefault("data_dir", tmp_path / f"dev{len(clusters)}")
        cluster = await start_cluster(namesrv_port=0, broker_port=0, **kwargs)
        clusters.append(cluster)
        return cluster

    yield factory
    for c in clusters:
        await c.stop()


@pytest.fixture
async def cluster(make_cluster) -> DevCluster:
    return await make_cluster()


@pytest.fixture
async def transport():
    t = TcpTransport(timeout=10)
    yield t
    await t.aclose()


@pytest.fixture
async def admin(cluster: DevCluster, transport: TcpTransport):
    client = AdminClient([cluster.namesrv_addr], transport=transport, timeout=10)
    yield client
    await client.aclose()


async def request(
    transport: TcpTransport, addr: str, code: int, ext: dict[str, str] | None = None, body: bytes = b"", **kw: Any
) -> RemotingCommand:
    return await transport.request(addr, RemotingCommand(code=code, ext=dict(ext or {}), body=body, **kw))


async def call(
    transport: TcpTransport, addr: str, rpc: Rpc[H, B, Any, Any], header: H | None = None, body: B | None = None
) -> RemotingCommand:
    """One request built from its declaration; the answer as it came (``rpc.reply(resp)`` reads it typed)."""
    return await transport.request(addr, rpc.request(header, body))


def topic_ext(cfg: TopicConfig) -> dict[str, str]:
    """UPDATE_AND_CREATE_TOPIC (17) header fields creating ``cfg``, as its declaration encodes them."""
    return CreateTopicHeader.of(cfg).to_ext()


def send_header(
    topic: str, *, queue_id: int = 0, keys: str = "", tags: str = "", default_queues: int = 4
) -> SendHeader:
    """A SEND_MESSAGE (10) header with the values the C++ client sends."""
    props = {"UNIQ_KEY": new_uniq_key(), "WAIT": "true"}
    if keys:
        props["KEYS"] = keys
    if tags:
        props["TAGS"] = tags
    return SendHeader(
        producer_group="PG_TEST", topic=topic, default_topic="TBW102", default_topic_queue_nums=default_queues,
        queue_id=queue_id, sys_flag=0, born_timestamp=int(time.time() * 1000), flag=0,
        properties=encode_properties(props), reconsume_times=0, unit_mode=False, batch=False,
    )  # fmt: skip


def send_ext(topic: str, *, queue_id: int = 0, keys: str = "", tags: str = "", default_queues: int = 4, **extra: str):
    """``send_header``'s fields as the declaration encodes them; ``extra`` replaces or adds raw fields (for what
    no declaration would write)."""
    header = send_header(topic, queue_id=queue_id, keys=keys, tags=tags, default_queues=default_queues)
    return header.to_ext() | extra


def pull_header(topic: str, queue_id: int = 0, offset: int = 0, *, group: str = "CG_TEST", max_msgs: int = 32):
    """A PULL_MESSAGE (11) header reading ``max_msgs`` from ``offset``."""
    return PullHeader(
        consumer_group=group, topic=topic, queue_id=queue_id, queue_offset=offset, max_msg_nums=max_msgs,
        sys_flag=4, commit_offset=0, suspend_timeout_millis=0, subscription="*", sub_version=0,
    )  # fmt: skip


def pull_ext(topic: str, queue_id: int = 0, offset: int = 0, *, group: str = "CG_TEST", **extra: str):
    """``pull_header``'s fields as the declaration encodes them; ``extra`` replaces or adds raw fields."""
    return pull_header(topic, queue_id, offset, group=group).to_ext() | extra


async def until(predicate: Callable[[], Any], timeout: float = 10.0, what: str = "condition") -> Any:
    """Poll ``predicate`` on the event loop until it is truthy (bounded; not a sleep as synchronisation)."""
    deadline = Deadline(timeout, what)
    while not (value := predicate()):
        if deadline.expired():
            raise deadline.fail()
        await asyncio.sleep(0.01)
    return value
