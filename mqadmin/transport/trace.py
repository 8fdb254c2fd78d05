"""One line per request and per answer, for ``--debug``: what was sent where, and what came back."""

from __future__ import annotations

from mqadmin.wire.codes import request_name, response_name
from mqadmin.wire.frame import RemotingCommand

HIDDEN = frozenset({"Signature", "SecurityToken"})
"""Ext fields whose values are not shown (bodies, which carry user passwords, are shown only by size)."""


def _request_name(code: int) -> str:
    name = request_name(code)
    return f"{name}({code})" if name else f"request {code}"


def describe_request(addr: str, cmd: RemotingCommand) -> str:
    fields = " ".join(f"{k}={'***' if k in HIDDEN else v}" for k, v in sorted(cmd.ext.items()))
    body = f" body={len(cmd.body)}B" if cmd.body else ""
    return f"> {addr} #{cmd.opaque} {_request_name(cmd.code)} {fields}{body}".rstrip()


def describe_response(addr: str, req: RemotingCommand, resp: RemotingCommand, seconds: float) -> str:
    remark = f" remark={resp.remark!r}" if resp.remark else ""
    return (
        f"< {addr} #{req.opaque} {response_name(resp.code)}({resp.code}) body={len(resp.body)}B"
        f" in {seconds * 1000:.1f} ms{remark}"
    )
