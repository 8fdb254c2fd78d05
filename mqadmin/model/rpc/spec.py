"""Declaring a remoting request once: its code, typed header fields with their wire names, body
and response types. The admin client encodes from a declaration, the servers decode and validate
from it, and the test fake answers from it (the pattern of aiokafka's ``protocol/api.py``).

A header is a frozen, keyword-only dataclass deriving from ``Header`` whose fields carry their wire name
(``wire("topic")``) and, optionally, a check run when a server decodes it (names go through the
shared validator, so no handler can forget it). Field types are ``str``, ``int``, ``bool`` or
those ``| None``; a field without a default is required, as Java's ``@CFNotNull``.

``Rpc`` ties a request code to its header and body types and the response's. Building one
registers it in ``REGISTRY``, from which the request table in docs/protocol.md is generated.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from dataclasses import MISSING, dataclass
from typing import Any, Generic, Protocol, TypeVar

from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand

Check = Callable[[str], "Refusal | None"]
"""A field check: None when the value is acceptable, else the refusal a server answers with."""


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a server refuses a request: Apache's response code and remark."""

    code: int
    remark: str


class RequestRefused(ValueError):
    """A request that cannot be decoded or is not acceptable; the server answers ``code``/``remark``."""

    def __init__(self, remark: str, code: int = ResponseCode.SYSTEM_ERROR) -> None:
        super().__init__(remark)
        self.code = int(code)
        self.remark = remark

    @classmethod
    def of(cls, refusal: Refusal) -> RequestRefused:
        return cls(refusal.remark, refusal.code)


def wire(name: str, default: Any = MISSING, *, check: Check | None = None) -> Any:
    """A header field sent as ext field ``name``; ``check`` runs when a server decodes it."""
    return dataclasses.field(default=default, metadata={"wire": name, "check": check})


@dataclass(frozen=True, slots=True)
class _Field:
    attr: str
    wire: str
    kind: type
    required: bool
    default: Any
    check: Check | None


class Header:
    """Base of typed request/response headers; subclasses are ``@dataclass(frozen=True, slots=True, kw_only=True)``."""

    @classmethod
    def wire_fields(cls) -> tuple[_Field, ...]:
        found = cls.__dict__.get("_spec_fields")
        if found is None:
            found = _build_fields(cls)
            cls._spec_fields = found  # type: ignore[attr-defined]
        return found

    def to_ext(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for f in self.wire_fields():
            value = getattr(self, f.attr)
            if value is None:
                continue
            out[f.wire] = ("true" if value else "false") if f.kind is bool else str(value)
        return out

    @classmethod
    def from_ext(cls, ext: dict[str, str], *, validate: bool = True) -> Any:
        """Decode ext fields like Java's ``decodeCommandCustomHeader``; ``RequestRefused`` names a bad field.

        With ``validate`` (servers) each field's check runs; clients reading responses skip them.
        """
        values: dict[str, Any] = {}
        for f in cls.wire_fields():
            raw = ext.get(f.wire)
            if raw is None or (raw == "" and f.kind is not str):
                if f.required:
                    raise RequestRefused(f"the custom field <{f.wire}> is null")
                values[f.attr] = f.default
                continue
            values[f.attr] = _convert(f, raw)
            if validate and f.check is not None and (refusal := f.check(raw)) is not None:
                raise RequestRefused.of(refusal)
        return cls(**values)


def _convert(f: _Field, raw: str) -> Any:
    if f.kind is str:
        return raw
    if f.kind is bool:
        return raw.strip().lower() == "true"  # Java's Boolean.parseBoolean
    try:
        return f.kind(raw)
    except ValueError:
        raise RequestRefused(f"the custom field <{f.wire}> is not a number: {raw!r}") from None


def _build_fields(cls: type) -> tuple[_Field, ...]:
    hints = typing.get_type_hints(cls)
    out = []
    for dc_field in dataclasses.fields(cls):  # type: ignore[arg-type]
        name = dc_field.metadata.get("wire")
        if name is None:
            raise TypeError(f"{cls.__name__}.{dc_field.name} has no wire name (declare it with wire(...))")
        kind = _base_type(hints[dc_field.name], cls, dc_field.name)
        required = dc_field.default is MISSING and dc_field.default_factory is MISSING
        out.append(_Field(dc_field.name, name, kind, required, dc_field.default, dc_field.metadata.get("check")))
    return tuple(out)


def _base_type(hint: Any, cls: type, attr: str) -> type:
    args = typing.get_args(hint) if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union else ()
    if args:
        hint = next(a for a in args if a is not type(None))
    if hint not in (str, int, bool, float):
        raise TypeError(f"{cls.__name__}.{attr}: header fields are str, int, bool or float, not {hint!r}")
    return hint


# --- bodies --------------------------------------------------------------------------------------

B = TypeVar("B")
B_co = TypeVar("B_co", covariant=True)


class BodyCodec(Protocol[B]):
    """How a body travels: ``encode`` for the sender, ``decode`` (raising ValueError) for the reader."""

    name: str

    def encode(self, value: B) -> bytes: ...

    def decode(self, data: bytes) -> B: ...


# --- requests ------------------------------------------------------------------------------------

H = TypeVar("H", bound=Header)
RH = TypeVar("RH", bound=Header)
RB = TypeVar("RB")

REGISTRY: dict[int, Rpc[Any, Any, Any, Any]] = {}
"""Every declared request by code."""


@dataclass(frozen=True, slots=True)
class Reply(Generic[RH, RB]):
    """A decoded response: its code and remark, typed header and body, and the server's version."""

    code: int
    remark: str | None
    header: RH | None
    body: RB | None
    version: int
    raw: RemotingCommand


@dataclass(frozen=True, slots=True)
class Decoded(Generic[H, B]):
    """A request as a server sees it after decoding and validation."""

    cmd: RemotingCommand
    header: H
    body: B


@dataclass(frozen=True)
class Rpc(Generic[H, B, RH, RB]):
    """One request: code, header and body types, and the response's.

    ``ok`` lists the response codes that are answers rather than errors for this request
    (e.g. QUERY_NOT_FOUND for a KV read).
    """

    code: int
    name: str
    header: type[H] | None = None
    body: BodyCodec[B] | None = None
    response_header: type[RH] | None = None
    response_body: BodyCodec[RB] | None = None
    ok: frozenset[int] = frozenset({ResponseCode.SUCCESS})
    summary: str = ""

    def __post_init__(self) -> None:
        previous = REGISTRY.get(self.code)
        if previous is not None and previous.name != self.name:
            raise ValueError(f"request code {self.code} declared twice ({previous.name}, {self.name})")
        REGISTRY[self.code] = self
        # Header fields are read (and a malformed declaration found) on first use, not here: resolving every
        # header's type hints at import costs start-up. tests/cli/test_startup_imports.py checks them all.

    # --- client side ----------------------------------------------------------------------

    def request(self, header: H | None = None, body: B | None = None) -> RemotingCommand:
        ext = header.to_ext() if header is not None else {}
        data = b""
        if body is not None:
            if self.body is None:
                raise TypeError(f"{self.name} takes no body")
            data = self.body.encode(body)
        return RemotingCommand(code=self.code, ext=ext, body=data)

    def reply(self, resp: RemotingCommand) -> Reply[RH, RB]:
        """Decode a response whose code is in ``ok`` (its header fields, and its body when it has one)."""
        header = self.response_header.from_ext(resp.ext, validate=False) if self.response_header else None
        body = self.response_body.decode(resp.body) if self.response_body is not None and resp.body else None
        return Reply(resp.code, resp.remark, header, body, resp.version, resp)

    # --- server side ----------------------------------------------------------------------

    def decode(self, cmd: RemotingCommand) -> Decoded[H, B]:
        """Decode and validate a request; ``RequestRefused`` carries the code and remark to answer."""
        header = self.header.from_ext(cmd.ext) if self.header is not None else None
        body = None
        if self.body is not None and cmd.body:
            try:
                body = self.body.decode(cmd.body)
            except (ValueError, UnicodeDecodeError, RecursionError) as e:
                raise RequestRefused(f"bad {self.body.name} body: {e}") from None
        return Decoded(cmd, header, body)  # type: ignore[arg-type]

    def answer(
        self,
        req: RemotingCommand,
        header: RH | None = None,
        body: RB | None = None,
        *,
        code: int = ResponseCode.SUCCESS,
        remark: str | None = None,
    ) -> RemotingCommand:
        ext = header.to_ext() if header is not None else None
        data = self.response_body.encode(body) if body is not None and self.response_body is not None else b""
        return req.response(code, remark, ext, data)
