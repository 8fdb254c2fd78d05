"""Topic configs in an UPDATE_AND_CREATE_TOPIC_LIST (18) body.

Each TopicConfig of the list carries attribute *operations*, not values: ``{"+message.type": "FIFO"}``
sets a key and ``{"-key": ""}`` removes one (Java's broker feeds the map to AttributeUtil, as it does the
``attributes`` header of a single create). A plain key is refused by a Java broker.
"""

from __future__ import annotations

from mqadmin.model.topic import TopicConfig


def attribute_changes(current: dict[str, str], wanted: dict[str, str]) -> dict[str, str | None]:
    """The operations that turn ``current`` into ``wanted``: a value to set, or None to remove the key
    (only keys that exist are removed: a Java broker fails the whole request on a missing one)."""
    ops: dict[str, str | None] = {k: v for k, v in wanted.items() if current.get(k) != v}
    ops.update({k: None for k in current if k not in wanted})
    return ops


def ops_to_map(ops: dict[str, str | None]) -> dict[str, str]:
    """``{"k": "v", "gone": None}`` → ``{"+k": "v", "-gone": ""}``."""
    return {(f"+{k}" if v is not None else f"-{k}"): (v or "") for k, v in sorted(ops.items())}


def ops_from_map(attributes: dict[str, str]) -> dict[str, str | None]:
    """The reverse of ``ops_to_map``; a key without a sign sets the value (ValueError for an empty key)."""
    ops: dict[str, str | None] = {}
    for key, value in attributes.items():
        name = key[1:] if key[:1] in "+-" else key
        if not name:
            raise ValueError(f"attribute key {key!r} has no name")
        ops[name] = None if key.startswith("-") else value
    return ops


def list_entry(wanted: TopicConfig, current: TopicConfig | None) -> TopicConfig:
    """The TopicConfig to put in a code-18 body: ``wanted`` with its attributes as the operations from
    ``current`` (every attribute set, for a new topic)."""
    ops = attribute_changes(current.attributes if current else {}, wanted.attributes)
    return wanted.with_(attributes=ops_to_map(ops))
