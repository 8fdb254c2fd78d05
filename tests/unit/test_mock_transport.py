"""The declaration-driven mock transport: requests and answers pass its declarations both ways, as on the wire, so
a test cannot script a request or an answer a real peer would refuse."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mqadmin.admin import AdminClient, ResponseError
from mqadmin.model.rpc import brokers, namesrv_admin, topics
from mqadmin.model.rpc.spec import Decoded
from mqadmin.model.static_topic import StaticTopicConfig
from mqadmin.model.topic import TopicConfig
from mqadmin.transport.errors import ConnectionRefused, RequestTimeout
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand
from tests.mock_transport import Answer, MockTransport, ok, routes

A = "127.0.0.1:10911"


async def test_the_handler_gets_the_request_decoded_by_its_declaration() -> None:
    seen: list[Decoded[Any, Any]] = []

    def handler(req: Decoded[Any, Any], addr: str) -> Answer:
        seen.append(req)
        return ok(StaticTopicConfig(TopicConfig("Orders", 4, 4)))

    t = MockTransport(routes({topics.GET_TOPIC_CONFIG: handler}), version=409)
    cfg, version = await AdminClient(["127.0.0.1:9876"], transport=t).read_topic_config(A, "Orders")
    assert (cfg, version) == (TopicConfig("Orders", 4, 4), 409)
    assert seen[0].header == topics.GetTopicConfigHeader(topic="Orders", lo=True)


async def test_a_request_its_declaration_refuses_never_reaches_the_handler() -> None:
    called = []
    t = MockTransport(lambda req, addr: called.append(req) or ok())
    bad = topics.UPDATE_AND_CREATE_TOPIC.request(topics.CreateTopicHeader.of(TopicConfig("bad name!", 1, 1)))
    resp = await t.request(A, bad)
    assert resp.code == ResponseCode.INVALID_PARAMETER
    assert resp.remark == "The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"
    missing = await t.request(A, RemotingCommand(code=topics.GET_TOPIC_CONFIG.code))
    assert missing.code == ResponseCode.SYSTEM_ERROR and missing.remark == "the custom field <topic> is null"
    assert not called


async def test_an_undeclared_or_unrouted_request_is_not_supported() -> None:
    t = MockTransport(routes({}))
    for code in (999_999, brokers.GET_BROKER_RUNTIME_INFO.code):
        resp = await t.request(A, RemotingCommand(code=code))
        assert resp.code == ResponseCode.REQUEST_CODE_NOT_SUPPORTED
        assert resp.remark == f" request type {code} not supported"
    with pytest.raises(ResponseError) as e:
        await AdminClient(["127.0.0.1:9876"], transport=t).broker_runtime_info(A)
    assert e.value.code_name == "REQUEST_CODE_NOT_SUPPORTED"


async def test_an_answer_its_declaration_cannot_carry_is_a_test_error() -> None:
    wrong_header = MockTransport(routes({namesrv_admin.GET_KV_CONFIG: ok(header=topics.TopicHeader(topic="T"))}))
    with pytest.raises(TypeError, match="KvValueHeader"):
        await AdminClient(["127.0.0.1:9876"], transport=wrong_header).get_kv_config("ns", "k")
    body_on_no_body = MockTransport(routes({topics.DELETE_TOPIC_IN_BROKER: ok({"x": 1})}))
    with pytest.raises(TypeError, match="no response body"):
        await body_on_no_body.request(A, topics.DELETE_TOPIC_IN_BROKER.request(topics.TopicHeader(topic="T")))
    not_an_answer = MockTransport(lambda req, addr: RemotingCommand(code=0))
    with pytest.raises(TypeError, match="not an Answer"):
        await not_an_answer.request(A, RemotingCommand(code=brokers.GET_BROKER_RUNTIME_INFO.code))


async def test_a_down_server_refuses_and_a_hung_one_times_out() -> None:
    async def hang(req: Decoded[Any, Any], addr: str) -> Answer:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    t = MockTransport(hang, down={A})
    cmd = brokers.GET_BROKER_RUNTIME_INFO.request()
    with pytest.raises(ConnectionRefused):
        await t.request(A, cmd)
    with pytest.raises(RequestTimeout):
        await t.request("127.0.0.1:10921", brokers.GET_BROKER_RUNTIME_INFO.request(), timeout=0.05)
    assert [a for a, _ in t.sent] == [A, "127.0.0.1:10921"]
