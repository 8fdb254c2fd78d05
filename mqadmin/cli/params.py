"""Options shared by many commands, with mqadmin's letters and long names, plus value parsers.

Commands annotate parameters with these (``namesrv: NamesrvOpt = None``) so every command spells
``-n``, ``-t``, ``-c`` and ``-b`` the same way.
"""

from __future__ import annotations

from typing import Annotated

import typer

from mqadmin.cli.errors import usage_error

NamesrvOpt = Annotated[
    str | None,
    typer.Option(
        "-n",
        "--namesrvAddr",
        metavar="HOST:PORT[;HOST:PORT]",
        help="Name server address(es); default: $NAMESRV_ADDR. Quote a list: -n 'a:9876;b:9876'.",
    ),
]
TopicOpt = Annotated[str, typer.Option("-t", "--topic", metavar="TOPIC", help="Topic name.")]
ClusterOpt = Annotated[str | None, typer.Option("-c", "--clusterName", metavar="CLUSTER", help="Cluster name.")]
BrokerAddrOpt = Annotated[
    str | None, typer.Option("-b", "--brokerAddr", metavar="HOST:PORT", help="Address of one broker.")
]

_TRUE = {"true", "yes", "y", "1", "on"}
_FALSE = {"false", "no", "n", "0", "off"}


def parse_bool(value: str | None, option: str) -> bool:
    """mqadmin-style boolean values (``-o true``), any case; anything else is a usage error."""
    if value is None:
        return False
    v = value.strip().lower()
    if v in _TRUE:
        return True
    if v in _FALSE:
        return False
    raise usage_error(f"{option} takes true or false, not {value!r}", f"for example: {option} true")


def exactly_one(b: str | None, c: str | None) -> None:
    """mqadmin's ``-b addr`` or ``-c cluster``: exactly one of them."""
    if b and c:
        raise usage_error("give either -b (one broker) or -c (every master of a cluster), not both")
    if not b and not c:
        raise usage_error("give -b HOST:PORT (one broker) or -c CLUSTER (every master of a cluster)")
