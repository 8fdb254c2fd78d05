"""Live shell completion: ``-t``, ``-g``, ``-c`` and ``-b`` complete the names the cluster holds.

The shell runs ``mqadmin`` with ``_MQADMIN_COMPLETE`` set at each Tab; the option's ``autocompletion`` callback
asks the cluster of ``-n`` (when already on the command line), NAMESRV_ADDR or the current profile, with a short
timeout, and keeps the answer a few seconds in the user's cache directory (a burst of Tabs asks once). Any failure
(no name server, a timeout, a bad profile, an unwritable cache) completes nothing and prints nothing.
"""

from __future__ import annotations

from collections.abc import Callable

import typer


def completer(kind: str) -> Callable[[typer.Context, str], list[str]]:
    # Typer reads the callback's annotations at run time to know what to pass: typer.Context must be importable.
    """The ``autocompletion`` callback of an option completing ``kind``: topic, group, cluster, broker or addr."""

    def complete(ctx: typer.Context, incomplete: str) -> list[str]:
        try:
            from mqadmin.cli.live_names import live_names  # asyncio and the admin client: only at a Tab

            names = live_names(kind, ctx.params.get("namesrv"))
        except Exception:  # noqa: BLE001 - completion never fails loudly
            return []
        return [n for n in names if n.startswith(incomplete)]

    return complete
