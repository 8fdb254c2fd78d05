"""Options shared by many commands, with mqadmin's letters and long names, plus value checks.

Commands annotate parameters with these (``namesrv: NamesrvOpt = None``) so every command spells
``-n``, ``-t``, ``-c``, ``-b`` and ``-g`` the same way.
"""

from __future__ import annotations

from typing import Annotated

from mqadmin.cli.declare import Option
from mqadmin.cli.errors import usage_error

NamesrvOpt = Annotated[
    str | None,
    Option(
        "-n",
        "--namesrvAddr",
        metavar="HOST:PORT[;HOST:PORT]",
        help="Name server address(es) [default: $NAMESRV_ADDR]. Quote a list: -n 'a:9876;b:9876'.",
        show_default=False,
    ),
]
TopicOpt = Annotated[str, Option("-t", "--topic", metavar="TOPIC", help="Topic name.")]
GroupOpt = Annotated[
    str,
    Option("-g", "--groupName", metavar="GROUP", help="Consumer group name."),
]
ClusterOpt = Annotated[
    str | None,
    Option(
        "-c",
        "--clusterName",
        metavar="CLUSTER",
        help="Cluster name.",
        show_default=False,
    ),
]
BrokerAddrOpt = Annotated[
    str | None,
    Option(
        "-b",
        "--brokerAddr",
        metavar="HOST:PORT",
        help="Address of one broker.",
        show_default=False,
    ),
]

_TRUE = {"true", "yes", "y", "1", "on"}
_FALSE = {"false", "no", "n", "0", "off"}


def parse_bool(value: str | None, option: str) -> bool | None:
    """mqadmin-style boolean values (``-o true``), any case; None when not given; usage error otherwise."""
    if value is None:
        return None
    v = value.strip().lower()
    if v in _TRUE:
        return True
    if v in _FALSE:
        return False
    raise usage_error(f"{option} takes true or false, not {value!r}", f"for example: {option} true")


def exactly_one(b: str | None, c: str | None) -> None:
    """mqadmin's ``-b addr`` or ``-c cluster``: exactly one of them (and -b a host:port)."""
    from mqadmin.cli.runner import check_broker_addr

    if b and c:
        raise usage_error("give either -b (one broker) or -c (every master of a cluster), not both")
    if not b and not c:
        raise usage_error("give -b HOST:PORT (one broker) or -c CLUSTER (every master of a cluster)")
    check_broker_addr(b)


def check_topic(topic: str, *, allow_system: bool = True) -> None:
    """A usage error for a name the brokers would refuse (or a system topic, unless allowed)."""
    from mqadmin.model.names import is_system_topic, topic_problem

    problem = topic_problem(topic)
    if problem:
        raise usage_error(problem, "use letters, digits, '-', '_', '|' or '%', at most 127 characters")
    if not allow_system and is_system_topic(topic):
        raise usage_error(f"{topic!r} is a RocketMQ system topic", "system topics are managed by the brokers")
