"""profile use: make a profile the current one."""

from __future__ import annotations

from typing import Annotated, TypedDict

from mqadmin.cli.commands.profile import profile_command
from mqadmin.cli.declare import Argument


class ProfileUseDoc(TypedDict):
    current: Annotated[str, "the current profile now"]
    previous: Annotated[str | None, "the one before (null: none was current)"]


@profile_command("use", "mqadmin profile use prod", document=ProfileUseDoc)
def use_profile(name: Annotated[str, Argument(metavar="PROFILE", help="The profile to use from now on.")]) -> None:
    """Make NAME the current profile: commands use it unless --profile or MQADMIN_PROFILE names another."""
    from mqadmin.cli.commands.profile._shared import get, load
    from mqadmin.cli.config import save_config
    from mqadmin.cli.render import json_output, note, print_json

    config = load()
    get(config, name)
    previous = config.current
    if previous != name:
        config.current = name
        save_config(config)
    if json_output():
        doc: ProfileUseDoc = {"current": name, "previous": previous}
        print_json(doc)
    else:
        note(f"current profile: {name}" + (f" (was {previous})" if previous and previous != name else ""))
