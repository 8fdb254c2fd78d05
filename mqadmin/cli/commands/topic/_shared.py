"""What several topic commands print: a topic config as JSON, permission letters."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mqadmin.model.topic import TopicConfig

PERMS = {2: "write-only", 4: "read-only", 6: "read-write"}
PERM_HINT = "use 2 (write-only), 4 (read-only) or 6 (read-write)"


def topic_config_json(cfg: TopicConfig) -> dict[str, Any]:
    from mqadmin.model.topic import perm_to_string

    return {
        "readQueueNums": cfg.read_queue_nums,
        "writeQueueNums": cfg.write_queue_nums,
        "perm": cfg.perm,
        "permString": perm_to_string(cfg.perm),
        "order": cfg.order,
        "topicSysFlag": cfg.topic_sys_flag,
        "topicFilterType": cfg.topic_filter_type,
        "attributes": dict(cfg.attributes),
    }
