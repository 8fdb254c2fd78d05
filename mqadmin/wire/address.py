"""Server addresses as RocketMQ writes them: ``host:port`` (``[v6]:port`` too) and lists of them
separated by ``;`` (``namesrvAddr``, ``-n``, ``NAMESRV_ADDR``)."""

from __future__ import annotations


def split_addr(addr: str) -> tuple[str, int]:
    """``host:port`` into its parts; ValueError says what is wrong with it."""
    host, sep, port = addr.rpartition(":")
    if "," in addr:
        raise ValueError("a list of addresses is separated by ';', not ','")
    if not sep or not host:
        raise ValueError("expected host:port (no port given)")
    if not port.isascii() or not port.isdigit():
        raise ValueError(f"the port {port!r} is not a number")
    if not 0 < int(port) < 65536:
        raise ValueError(f"the port {port} is outside 1..65535")
    if any(c.isspace() for c in host):
        raise ValueError("the host contains spaces")
    return host.strip("[]"), int(port)


class BadAddress(ValueError):
    """One address of a list that is not ``host:port``."""

    def __init__(self, addr: str, problem: str) -> None:
        super().__init__(f"{addr!r}: {problem}")
        self.addr = addr
        self.problem = problem


def split_addr_list(text: str) -> list[str]:
    """``'a:9876; b:9876'`` into ``["a:9876", "b:9876"]`` (trimmed, blanks and repeats dropped);
    BadAddress names the first entry that is not ``host:port``."""
    addrs: list[str] = []
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        try:
            split_addr(part)
        except ValueError as e:
            raise BadAddress(part, str(e)) from None
        if part not in addrs:
            addrs.append(part)
    return addrs


def ipv4_or_loopback(addr: str) -> tuple[str, int]:
    """(host, port) of a peer address when the host is IPv4; any other peer (IPv6, a name) as
    127.0.0.1 (stored messages hold IPv4 hosts), and an unreadable port as 0."""
    try:
        host, port = split_addr(addr)
    except ValueError:
        host, _, tail = addr.rpartition(":")
        port = int(tail) if tail.isascii() and tail.isdigit() else 0
    parts = host.split(".")
    if len(parts) != 4 or not all(p.isascii() and p.isdigit() and int(p) < 256 for p in parts):
        host = "127.0.0.1"
    return host, port
