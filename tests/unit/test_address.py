"""Server addresses parsed in one place (mqadmin.wire.address): host:port, ;-lists, the stored BORNHOST."""

from __future__ import annotations

import pytest

from mqadmin.wire.address import BadAddress, ipv4_or_loopback, split_addr, split_addr_list


def test_split_addr_reads_ipv4_names_and_bracketed_ipv6() -> None:
    assert split_addr("10.0.0.1:9876") == ("10.0.0.1", 9876)
    assert split_addr("ns.example:9876") == ("ns.example", 9876)
    assert split_addr("[::1]:10911") == ("::1", 10911)


@pytest.mark.parametrize(
    ("addr", "problem"),
    [
        ("a:1,b:2", "separated by ';'"),
        ("host", "no port"),
        ("h:x", "not a number"),
        ("h:0", "outside"),
        ("a b:1", "spaces"),
    ],
)
def test_split_addr_says_what_is_wrong(addr: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        split_addr(addr)


def test_a_list_is_trimmed_deduplicated_and_names_its_bad_entry() -> None:
    assert split_addr_list(" a:1 ; b:2;;a:1 ") == ["a:1", "b:2"]
    with pytest.raises(BadAddress) as e:
        split_addr_list("a:1;b")
    assert (e.value.addr, e.value.problem) == ("b", "expected host:port (no port given)")


def test_a_peer_is_stored_as_ipv4_or_as_loopback() -> None:
    assert ipv4_or_loopback("192.168.1.7:40123") == ("192.168.1.7", 40123)
    assert ipv4_or_loopback("[::1]:40123") == ("127.0.0.1", 40123)
    assert ipv4_or_loopback("1.2.3.256:5") == ("127.0.0.1", 5)
    assert ipv4_or_loopback("?:x") == ("127.0.0.1", 0)
