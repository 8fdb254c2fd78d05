"""Name-server addresses: -n / NAMESRV_ADDR parsing, random start, fail-over to the next."""

from __future__ import annotations

import random

import pytest

from mqadmin.admin import (
    BadNameServerAddress,
    NameServerSet,
    NameServerUnreachable,
    NoNameServer,
    ResponseError,
    parse_namesrv_addrs,
    resolve_namesrv_addrs,
)
from mqadmin.transport.errors import ConnectionRefused, RequestTimeout


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("127.0.0.1:9876", ["127.0.0.1:9876"]),
        ("a:9876;b:9876", ["a:9876", "b:9876"]),
        (" a:9876 ; b:9876 ;", ["a:9876", "b:9876"]),
        ("a:9876;a:9876", ["a:9876"]),
        ("http://ns.example/nsaddr/10.0.0.1:9876", ["10.0.0.1:9876"]),
        ("https://ns/10.0.0.1:9876;10.0.0.2:9876", ["10.0.0.1:9876", "10.0.0.2:9876"]),
    ],
)
def test_parse(value: str, expected: list[str]) -> None:
    assert parse_namesrv_addrs(value) == expected


@pytest.mark.parametrize("value", ["localhost", "a:98x6", "a:9876;b", ":9876"])
def test_parse_rejects_addresses_without_a_port(value: str) -> None:
    with pytest.raises(BadNameServerAddress):
        parse_namesrv_addrs(value)


def test_option_wins_over_the_environment() -> None:
    assert resolve_namesrv_addrs("a:1", {"NAMESRV_ADDR": "b:2"}) == ["a:1"]
    assert resolve_namesrv_addrs(None, {"NAMESRV_ADDR": "b:2;c:3"}) == ["b:2", "c:3"]
    assert resolve_namesrv_addrs("  ", {"NAMESRV_ADDR": "b:2"}) == ["b:2"]


@pytest.mark.parametrize("env", [{}, {"NAMESRV_ADDR": ""}, {"NAMESRV_ADDR": " ; "}])
def test_no_address_anywhere(env: dict[str, str]) -> None:
    with pytest.raises(NoNameServer):
        resolve_namesrv_addrs(None, env)


def test_the_first_name_server_is_picked_at_random() -> None:
    addrs = [f"ns{i}:9876" for i in range(4)]
    starts = {NameServerSet(addrs, random.Random(seed)).current for seed in range(40)}
    assert starts == set(addrs)


async def test_fail_over_to_the_next_and_stay_there() -> None:
    addrs = ["a:1", "b:2", "c:3"]
    ns = NameServerSet(addrs, random.Random(0))
    start = addrs.index(ns.current)
    dead = {addrs[start]}
    tried: list[str] = []

    async def fn(addr: str) -> str:
        tried.append(addr)
        if addr in dead:
            raise ConnectionRefused(addr)
        return addr

    assert await ns.call(fn) == addrs[(start + 1) % 3]
    assert tried == [addrs[start], addrs[(start + 1) % 3]]
    tried.clear()
    assert await ns.call(fn) == addrs[(start + 1) % 3]
    assert tried == [addrs[(start + 1) % 3]]  # the working one is kept


async def test_every_name_server_failing_names_all_of_them() -> None:
    ns = NameServerSet(["a:1", "b:2"])

    async def fn(addr: str) -> None:
        raise RequestTimeout(addr, 106, 1.0) if addr == "a:1" else ConnectionRefused(addr)

    with pytest.raises(NameServerUnreachable) as e:
        await ns.call(fn)
    assert set(e.value.errors) == {"a:1", "b:2"}
    assert "a:1" in str(e.value) and "b:2" in str(e.value)


async def test_an_error_answer_is_not_a_reason_to_fail_over() -> None:
    ns = NameServerSet(["a:1", "b:2"])
    tried: list[str] = []

    async def fn(addr: str) -> None:
        tried.append(addr)
        raise ResponseError(17, "No topic route info", addr)

    with pytest.raises(ResponseError):
        await ns.call(fn)
    assert len(tried) == 1
