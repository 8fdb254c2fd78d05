"""The fleet file: which name servers make up the fleet.

.. code-block:: toml

    [clusters.prod-a]
    namesrv = ["10.0.0.1:9876", "10.0.0.2:9876"]

    [clusters.prod-b]
    namesrv = "10.1.0.1:9876;10.1.0.2:9876"   # mqadmin -n form works too

Each ``[clusters.<name>]`` entry is one *source*: a set of name servers, which may serve one or more
RocketMQ clusters. The entry's name labels every exported row (column ``source``).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from mqadmin.admin.errors import BadNameServerAddress
from mqadmin.admin.namesrv import parse_namesrv_addrs

_KEYS = {"namesrv"}


class FleetFileError(ValueError):
    """A fleet file that cannot be used; the message names the file and the bad entry."""


@dataclass(frozen=True, slots=True)
class Source:
    name: str
    namesrv: tuple[str, ...]

    @property
    def namesrv_arg(self) -> str:
        """The ``-n`` value for mqadmin commands."""
        return ";".join(self.namesrv)


def source_from_option(value: str) -> Source:
    """A ``-n 'a:9876;b:9876'`` value: one source named by its normalised address list."""
    addrs = tuple(parse_namesrv_addrs(value))
    if not addrs:
        raise BadNameServerAddress(value, "no address given")
    return Source(";".join(addrs), addrs)


def load_fleet_file(path: Path) -> list[Source]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FleetFileError(f"fleet file {path} does not exist") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise FleetFileError(f"fleet file {path} is not valid TOML: {e}") from None
    unknown = sorted(set(data) - {"clusters"})
    if unknown:
        raise FleetFileError(
            f"fleet file {path}: unknown top-level key(s) {', '.join(unknown)}; expected [clusters.<name>]"
        )
    clusters = data.get("clusters")
    if not isinstance(clusters, dict) or not clusters:
        raise FleetFileError(f"fleet file {path} names no clusters; add [clusters.<name>] with namesrv = [...]")
    return [_source(path, name, entry) for name, entry in clusters.items()]


def _source(path: Path, name: str, entry: object) -> Source:
    where = f"fleet file {path}, [clusters.{name}]"
    if not isinstance(entry, dict):
        raise FleetFileError(f"{where} must be a table with namesrv = [...]")
    unknown = sorted(set(entry) - _KEYS)
    if unknown:
        raise FleetFileError(f"{where}: unknown key(s) {', '.join(unknown)}; only namesrv is read")
    value = entry.get("namesrv")
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise FleetFileError(f"{where}: namesrv must be a non-empty list of host:port strings")
    addrs: list[str] = []
    try:
        for v in value:
            addrs.extend(a for a in parse_namesrv_addrs(v) if a not in addrs)
    except BadNameServerAddress as e:
        raise FleetFileError(f"{where}: {e}") from None
    if not addrs:
        raise FleetFileError(f"{where}: namesrv lists no address")
    return Source(name, tuple(addrs))
