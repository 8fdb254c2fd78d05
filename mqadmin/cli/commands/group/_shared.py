"""What several group commands share: the name check, option values, a config as JSON and as rows."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

from mqadmin.cli.doc_types import TargetResultDoc
from mqadmin.cli.errors import usage_error

if TYPE_CHECKING:
    from mqadmin.admin import TargetResult
    from mqadmin.admin.groups import GroupChange
    from mqadmin.model.group import GroupRetryPolicy, SubscriptionGroupConfig

NAME_HINT = "use letters, digits, '-', '_', '|' or '%'"
EXPONENTIAL_EXAMPLE = '{"type":"EXPONENTIAL","exponentialRetryPolicy":{"initial":5000,"max":7200000,"multiplier":2}}'
POLICY_EXAMPLE = f"for example: -p '{EXPONENTIAL_EXAMPLE}'"

GroupConfigDoc = Annotated[
    dict[str, Any],
    "the broker's SubscriptionGroupConfig as it sends it, without groupName: consumeEnable, retryQueueNums, "
    "retryMaxTimes, groupRetryPolicy, attributes, ... and any key the broker adds (null: failed)",
]


class GroupResultDoc(TargetResultDoc):
    config: GroupConfigDoc | None


def check_group(group: str, *, creating: bool) -> None:
    """A usage error for a name the brokers would refuse: at most 120 characters when creating (5.5 brokers'
    limit), 255 otherwise (Java clients' limit, so groups older brokers hold can still be read and deleted)."""
    from mqadmin.model.names import GROUP_MAX_LENGTH, group_problem

    problem = group_problem(group, creating=creating)
    if problem:
        raise usage_error(problem, f"{NAME_HINT}, at most {GROUP_MAX_LENGTH} characters")


def parse_policy(text: str, where: str) -> GroupRetryPolicy:
    """A retry policy in Java's JSON form; usage error naming the problem."""
    from mqadmin.model.group import GroupRetryPolicy

    try:
        return GroupRetryPolicy.from_json(json.loads(text))
    except ValueError as e:  # json.JSONDecodeError is a ValueError
        raise usage_error(f"{where}: bad retry policy: {e}", POLICY_EXAMPLE) from None


def parse_attributes(text: str, where: str) -> dict[str, str | None]:
    """``+key=value,-key`` operations, known group attributes' values checked; usage error otherwise."""
    from mqadmin.model.group import attribute_value_problem
    from mqadmin.model.topic import parse_attribute_ops

    try:
        ops = parse_attribute_ops(text)
    except ValueError as e:
        raise usage_error(
            f"{where}: {e}", "for example: --attributes +priority.factor=10 (or -key to remove)"
        ) from None
    for key, value in ops.items():
        if value is not None and (problem := attribute_value_problem(key, value)):
            raise usage_error(f"{where}: {problem}")
    return ops


def format_value(value: Any) -> str:
    """A setting's value in a table cell: true/false, numbers, compact JSON for objects."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    return str(value)


def group_config_json(cfg: SubscriptionGroupConfig) -> dict[str, Any]:
    """The config for JSON output: the bean form without the group name (any key the broker sent that
    mqadmin does not model, such as subscriptionDataSet, included)."""
    doc = cfg.to_json()
    del doc["groupName"]
    return doc


def warn_not_kept(results: list[TargetResult], change: GroupChange) -> None:
    """Warn about each broker that does not keep a setting the command asked for (older versions)."""
    from mqadmin.admin.groups import not_kept
    from mqadmin.cli.render import warn

    for r in results:
        if r.ok and r.data is not None and (lost := not_kept(change, r.data)):
            warn(f"{r.name or r.addr} does not keep {', '.join(lost)} (an older broker version); not set there")
