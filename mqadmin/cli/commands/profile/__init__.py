"""``mqadmin profile``: named connection profiles in the config file (docs/profiles.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mqadmin.cli.command import APPS
from mqadmin.cli.typer_app import new_app, subcommand

app = new_app(
    name="profile",
    help="Named connection profiles (name servers, credentials, TLS, ...) in the config file.",
    no_args_is_help=True,
)
APPS["profile"] = app


def profile_command(
    name: str, *examples: str, document: Any = None
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A ``profile`` subcommand (``mqadmin.cli.typer_app.subcommand``): ``document``, its --format json document."""
    return subcommand(app, "profile", name, examples, document)


from mqadmin.cli.commands.profile import (  # noqa: E402  (each module registers its subcommand on ``app``)
    create_profile,
    delete_profile,
    edit_profile,
    list_profiles,
    show_profile,
    use_profile,
)

__all__ = ["app", "create_profile", "delete_profile", "edit_profile", "list_profiles", "show_profile", "use_profile"]
