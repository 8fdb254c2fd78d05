"""Options and helpers shared by the message commands."""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from mqadmin.cli.errors import CliError, ExitCode, usage_error

if TYPE_CHECKING:
    from mqadmin.admin import AdminClient

T = TypeVar("T")

BrokerNameOpt = Annotated[
    str | None,
    typer.Option(
        "-b", "--brokerName", metavar="NAME", help="Only this broker (by name, e.g. broker-a).", show_default=False
    ),
]
QueueIdOpt = Annotated[
    int | None, typer.Option("-i", "--queueId", min=0, metavar="N", help="Only this queue id.", show_default=False)
]
BODY_PREVIEW = 200


def body_json(body: bytes) -> dict[str, Any]:
    """``{"body": text, "bodyEncoding": "utf-8"}``, or base64 for a body that is not UTF-8 text."""
    try:
        return {"body": body.decode("utf-8"), "bodyEncoding": "utf-8"}
    except UnicodeDecodeError:
        return {"body": base64.b64encode(body).decode(), "bodyEncoding": "base64"}


def body_preview(body: bytes) -> str:
    """The start of a body for a table cell: text (escaped when printed), or a size note for binary data."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return f"<{len(body)} bytes of binary data>"
    return text if len(text) <= BODY_PREVIEW else text[:BODY_PREVIEW] + "…"


def run_messaging(namesrv: str | None, fn: Callable[[AdminClient], Awaitable[T]]) -> T:
    """run_admin, with the message client's own failures as one-line errors."""
    from mqadmin.admin.messaging import NoRoute, NoSuchQueue
    from mqadmin.cli.runner import run_admin

    try:
        return run_admin(namesrv, fn)
    except NoRoute as e:
        raise CliError(
            str(e), "create it first: mqadmin updateTopic -c <cluster> -t <topic>", ExitCode.FAILURE
        ) from None
    except NoSuchQueue as e:
        raise usage_error(str(e), "see the route with: mqadmin topicRoute -t <topic>") from None
