"""The one rule for writing many items to a broker (``mqadmin.admin.batch.write_many``), used by updateTopicList,
updateSubGroupList and apply: list requests where the broker has them, a refused list sent again item by item,
a list not answered not sent again. The broker here is a function that answers like Apache's does (checked against
Apache in tests/conformance/test_batch_parity.py)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mqadmin.admin.batch import NotSent, write_many
from mqadmin.admin.errors import ResponseError
from mqadmin.model.rpc import groups
from mqadmin.model.version import V5_3_0, V5_3_1
from mqadmin.transport.errors import RequestTimeout
from mqadmin.wire.codes import ResponseCode

LIST, ONE = groups.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST, groups.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP
ADDR = "127.0.0.1:10911"


class Broker:
    """Items are names; a name starting with ``bad`` is refused (alone, or the whole list that holds it);
    ``has_list`` False answers the list request as 4.9.8 does; ``hang`` names a request code never answered."""

    def __init__(self, *, has_list: bool = True, hang: int | None = None) -> None:
        self.has_list, self.hang = has_list, hang
        self.sent: list[tuple[int, Any]] = []
        self.lacking: set[tuple[str, int]] = set()  # the admin client's memory of requests a broker lacks

    async def send(self, rpc: Any, header: Any = None, body: Any = None) -> None:
        self.sent.append((rpc.code, body))
        if rpc.code == self.hang:
            raise RequestTimeout(ADDR, rpc.code, 3.0)
        if rpc is LIST and not self.has_list:
            raise ResponseError(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, "request type 225 not supported", ADDR)
        names = body if rpc is LIST else [body]
        if bad := [n for n in names if n.startswith("bad")]:
            raise ResponseError(ResponseCode.SYSTEM_ERROR, f"unsupported key: {bad[0]}", ADDR)

    def write(self, items: list[str], version: int = V5_3_1, chunk: int = 10) -> list[str | None]:
        done = asyncio.run(
            write_many(
                self, ADDR, version, LIST, items,  # type: ignore[arg-type]
                entry=lambda n: n, alone=lambda n: (None, n), chunk=chunk, send=self.send,
            )
        )  # fmt: skip
        return [None if e is None else str(e) for e in done]

    def codes(self) -> list[int]:
        return [code for code, _ in self.sent]


def test_a_broker_with_the_list_request_gets_the_items_in_chunks() -> None:
    broker = Broker()
    assert broker.write(["a", "b", "c"], chunk=2) == [None, None, None]
    assert broker.sent == [(LIST.code, ["a", "b"]), (LIST.code, ["c"])]


def test_a_broker_older_than_the_declaration_gets_one_request_per_item() -> None:
    broker = Broker()
    assert broker.write(["a", "b"], version=V5_3_0) == [None, None]  # 225 is 5.3.1+
    assert broker.codes() == [ONE.code, ONE.code]


def test_a_broker_answering_not_supported_gets_singles_and_is_remembered() -> None:
    broker = Broker(has_list=False)
    assert broker.write(["a", "b"]) == [None, None]
    assert broker.codes() == [LIST.code, ONE.code, ONE.code]
    broker.sent.clear()
    assert broker.write(["c"]) == [None]
    assert broker.codes() == [ONE.code]  # not asked again


def test_a_refused_list_is_sent_again_item_by_item_so_each_gets_its_own_answer() -> None:
    broker = Broker()
    out = broker.write(["a", "bad.key", "b"])
    assert out[0] is None and out[2] is None
    assert "unsupported key: bad.key" in (out[1] or "")
    assert broker.codes() == [LIST.code, ONE.code, ONE.code, ONE.code]
    assert (LIST.code, ["a", "bad.key", "b"]) in broker.sent


def test_only_the_refused_chunk_is_sent_again() -> None:
    broker = Broker()
    out = broker.write(["a", "b", "bad", "c"], chunk=2)
    assert [o is None for o in out] == [True, True, False, True]
    assert broker.sent[:2] == [(LIST.code, ["a", "b"]), (LIST.code, ["bad", "c"])]
    assert sorted(body for code, body in broker.sent if code == ONE.code) == ["bad", "c"]


def test_a_list_not_answered_is_not_sent_again_and_stops_the_rest() -> None:
    broker = Broker(hang=LIST.code)
    out = broker.write(["a", "b", "c"], chunk=2)
    assert [(o or "").startswith("request 225") for o in out] == [True, True, False]
    assert (out[2] or "").startswith("not sent: the broker did not answer")
    assert broker.codes() == [LIST.code]  # neither the items again nor the next chunk


def test_singles_stop_after_one_is_not_answered() -> None:
    broker = Broker(hang=ONE.code)
    out = broker.write(["a", "b", "c"], version=V5_3_0)
    assert (out[0] or "").startswith("request 200")
    assert all((o or "").startswith("not sent: the broker did not answer") for o in out[1:])
    assert broker.codes() == [ONE.code]


def test_a_list_request_without_a_fallback_is_a_programming_error() -> None:
    broker = Broker()
    with pytest.raises(TypeError, match="declares no fallback"):
        asyncio.run(write_many(broker, ADDR, 0, ONE, ["a"], entry=str, alone=lambda n: (None, n), chunk=1))  # type: ignore[arg-type]


def test_not_sent_names_why() -> None:
    assert str(NotSent("timed out")) == "not sent: the broker did not answer an earlier request (timed out)"
