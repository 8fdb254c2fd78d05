"""topicList: every topic the name server knows, one per line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqadmin.cli.command import command
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient


@command("topicList", "mqadmin topicList", "mqadmin topicList | wc -l")
def topic_list(namesrv: NamesrvOpt = None) -> None:
    """List every topic the name server knows, one per line, sorted (nothing at all when there are none)."""
    from mqadmin.cli.render import json_output, print_json, print_lines
    from mqadmin.cli.runner import run_admin

    async def go(admin: AdminClient) -> list[str]:
        return await admin.topic_list()

    topics = sorted(run_admin(namesrv, go))
    if json_output():
        print_json({"topics": topics})
    else:
        print_lines(topics)
