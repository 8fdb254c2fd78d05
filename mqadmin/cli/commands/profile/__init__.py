"""``mqadmin profile``: named connection profiles in the config file (docs/profiles.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mqadmin.cli.command import APPS
from mqadmin.cli.options import with_global_options
from mqadmin.cli.typer_app import examples_epilog, new_app, typer_callback

app = new_app(
    name="profile",
    help="Named connection profiles (name servers, credentials, TLS, ...) in the config file.",
    no_args_is_help=True,
)
APPS["profile"] = app


def profile_command(name: str, *examples: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A ``profile`` subcommand, with the global options like every command."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        app.command(name, epilog=examples_epilog(examples))(typer_callback(with_global_options(fn)))
        return fn

    return register


from mqadmin.cli.commands.profile import (  # noqa: E402  (each module registers its subcommand on ``app``)
    create_profile,
    delete_profile,
    edit_profile,
    list_profiles,
    show_profile,
    use_profile,
)

__all__ = ["app", "create_profile", "delete_profile", "edit_profile", "list_profiles", "show_profile", "use_profile"]
