"""profile delete: remove a profile from the config file."""

from __future__ import annotations

from typing import Annotated, TypedDict

from mqadmin.cli.commands.profile import profile_command
from mqadmin.cli.commands.profile._docs import ProfileSettingsDoc
from mqadmin.cli.declare import Argument, Option


class ProfileDeletedDoc(TypedDict):
    profile: str
    wasCurrent: Annotated[bool, "it was the current profile (no profile is current now)"]
    dryRun: Annotated[bool, "--dry-run: nothing was deleted"]
    settings: Annotated[ProfileSettingsDoc, "what the profile held"]


@profile_command(
    "delete", "mqadmin profile delete staging", "mqadmin profile delete staging --dry-run", document=ProfileDeletedDoc
)
def delete_profile(
    name: Annotated[str, Argument(metavar="PROFILE", help="The profile to delete.")],
    dry_run: Annotated[bool, Option("--dry-run", help="Show what would be deleted; change nothing.")] = False,
) -> None:
    """Delete a profile (when it is the current one, no profile is current afterwards)."""
    from mqadmin.cli.commands.profile._shared import get, load, print_profile, settings_json
    from mqadmin.cli.config import save_config
    from mqadmin.cli.render import json_output, note, print_json

    config = load()
    profile = get(config, name)
    was_current = config.current == name
    if not dry_run:
        del config.profiles[name]
        if was_current:
            config.current = None
        save_config(config)
    if json_output():
        doc: ProfileDeletedDoc = {
            "profile": name,
            "wasCurrent": was_current,
            "dryRun": dry_run,
            "settings": settings_json(profile),
        }
        print_json(doc)
        return
    print_profile(profile)
    verb = "would delete" if dry_run else "deleted"
    note(f"{verb} profile {name} from {config.path}" + (" (it was the current one)" if was_current else ""))
