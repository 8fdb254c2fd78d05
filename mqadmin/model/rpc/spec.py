"""Declaring a remoting request once: its code, typed header fields with their wire names, body
and response types. The admin client encodes from a declaration, the servers decode and validate
from it, and the test fake answers from it (the pattern of aiokafka's ``protocol/api.py``).

A header is a frozen, keyword-only dataclass deriving from ``Header`` whose fields carry their wire name
(``wire("topic")``) and, optionally, a check run when a server decodes it (names go through the
shared validator, so no handler can forget it). Field types are ``str``, ``int``, ``bool`` or
those ``| None``; a field without a default is required, as Java's ``@CFNotNull``.

``Rpc`` ties a request code to its header and body types and the response's. Building one
registers it in ``REGISTRY``, from which docs/protocol-requests.md is generated
(``python -m mqadmin.cli.generate``).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from dataclasses import MISSING, dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, NamedTuple, Protocol, TypeVar, cast

from mqadmin.model.names import Refusal, shown
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand

if TYPE_CHECKING:
    from mqadmin.model.access import Access  # only the requests that declare a rule import it

Decoder = Callable[[dict[str, str], bool], "Header"]
"""A header class's generated decoder: ext fields and whether to validate, to an instance."""
Encoder = Callable[["Header"], dict[str, str]]
"""A header class's generated encoder."""
Check = Callable[[str], Refusal | None]
"""A field check: None when the value is acceptable, else the refusal a server answers with."""


class RequestRefused(ValueError):
    """A request that cannot be decoded or is not acceptable; the server answers ``code``/``remark``."""

    def __init__(self, remark: str, code: int = ResponseCode.SYSTEM_ERROR) -> None:
        super().__init__(remark)
        self.code = int(code)
        self.remark = remark

    @classmethod
    def of(cls, refusal: Refusal) -> RequestRefused:
        return cls(refusal.remark, refusal.code)


def wire(name: str, default: Any = MISSING, *, check: Check | None = None, blank_ok: bool = False) -> Any:
    """A header field sent as ext field ``name``; ``check`` runs when a server decodes it, on any value
    that is present, except an empty one when the field is optional or ``blank_ok`` (a required field
    that may be empty, like a send's producer group)."""
    return dataclasses.field(default=default, metadata={"wire": name, "check": check, "blank_ok": blank_ok})


class WireField(NamedTuple):  # not a frozen dataclass: 10x cheaper to define (start-up)
    """One header field as declared: attribute, wire name, type, whether required, default, check."""

    attr: str
    wire: str
    kind: type
    required: bool
    default: Any
    check: Check | None
    blank_ok: bool


HeaderT = TypeVar("HeaderT", bound="Header")


class Header:
    """Base of typed request/response headers; subclasses are ``@dataclass(frozen=True, slots=True, kw_only=True)``.

    ``to_ext`` and ``from_ext`` are generated per class at first use (as ``dataclasses`` generates
    ``__init__``): straight-line code with no loop over the fields, so decoding a send header costs
    what a hand-written parser does.
    """

    _wire_fields: ClassVar[tuple[WireField, ...]]  # each class's own, built at first use
    _decode: ClassVar[Decoder]  # generated at first use by _compile
    _encode: ClassVar[Encoder]

    @classmethod
    def wire_fields(cls) -> tuple[WireField, ...]:
        found: tuple[WireField, ...] | None = cls.__dict__.get("_wire_fields")
        if found is None:
            found = _build_fields(cls)
            cls._wire_fields = found
        return found

    def to_ext(self) -> dict[str, str]:
        encode: Encoder = type(self).__dict__.get("_encode") or _compile(type(self))[1]
        return encode(self)

    @classmethod
    def from_ext(cls: type[HeaderT], ext: dict[str, str], *, validate: bool = True) -> HeaderT:
        """Decode ext fields like Java's ``decodeCommandCustomHeader``; ``RequestRefused`` names a bad field.

        With ``validate`` (servers) each field's check runs first, on the fields present, then the
        required fields and the types are checked; clients reading responses skip the checks.
        """
        decode: Decoder = cls.__dict__.get("_decode") or _compile(cls)[0]
        return cast("HeaderT", decode(ext, validate))  # _compile(cls) builds instances of cls


def _null(name: str) -> RequestRefused:
    return RequestRefused(f"the custom field <{name}> is null")


def _not_a_number(name: str, raw: str) -> RequestRefused:
    return RequestRefused(f"the custom field <{name}> is not a number: {shown(raw)}")


def _compile(cls: type[Header]) -> tuple[Decoder, Encoder]:
    """Generate ``cls``'s decoder and encoder (see ``Header``) and keep them on the class."""
    fields = cls.wire_fields()
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: a header has no __post_init__ (decoding does not call __init__)")
    env: dict[str, Any] = {
        "cls": cls, "new": object.__new__, "null": _null, "nan": _not_a_number, "refused": RequestRefused.of,
    }  # fmt: skip
    dec = ["def decode(ext, validate):", "    get = ext.get"]
    dec += [f"    v{i} = get({f.wire!r})" for i, f in enumerate(fields)]
    checks = [(i, f) for i, f in enumerate(fields) if f.check is not None]
    if checks:
        dec.append("    if validate:")
        for i, f in checks:
            env[f"c{i}"] = f.check
            present = f"v{i}" if f.blank_ok or not f.required else f"v{i} is not None"
            dec.append(f"        if {present} and (r := c{i}(v{i})) is not None: raise refused(r)")
    for i, f in enumerate(fields):
        env[f"d{i}"] = f.default
        v = f"v{i}"
        if f.kind is str:
            dec.append(f"    if {v} is None: " + (f"raise null({f.wire!r})" if f.required else f"{v} = d{i}"))
            continue
        if f.required:  # an empty number or flag counts as missing
            dec.append(f"    if not {v}: raise null({f.wire!r})")
            pad = "    "
        else:
            dec += [f"    if not {v}: {v} = d{i}", "    else:"]
            pad = "        "
        if f.kind is bool:
            dec.append(f"{pad}{v} = {v}.strip().lower() == 'true'")  # Java's Boolean.parseBoolean
        else:
            env[f"k{i}"] = f.kind
            dec.append(f"{pad}try: {v} = k{i}({v})")
            dec.append(f"{pad}except ValueError: raise nan({f.wire!r}, {v}) from None")
    # A frozen dataclass's __init__ sets each field through object.__setattr__; setting the slots
    # directly builds the same object in a third of the time (headers have no __post_init__).
    dec.append("    o = new(cls)")
    for i, f in enumerate(fields):
        env[f"s{i}"] = _slot(cls, f.attr).__set__
        dec.append(f"    s{i}(o, v{i})")
    dec.append("    return o")
    enc = ["def encode(self):", "    out = {}"]
    for f in fields:
        enc.append(f"    v = self.{f.attr}")
        value = "v" if f.kind is str else "('true' if v else 'false')" if f.kind is bool else "str(v)"
        enc.append(f"    if v is not None: out[{f.wire!r}] = {value}")
    enc.append("    return out")
    exec("\n".join(dec) + "\n\n" + "\n".join(enc), env)  # our own identifiers; wire names are repr()-quoted
    cls._decode, cls._encode = env["decode"], env["encode"]
    return env["decode"], env["encode"]


def _slot(cls: type, attr: str) -> Any:
    """The slot descriptor of ``attr`` (declared on ``cls`` or a base); for a header declared without
    ``slots=True``, something with the same ``__set__``."""
    found = next((k.__dict__[attr] for k in cls.__mro__ if attr in k.__dict__), None)
    if hasattr(found, "__set__"):
        return found
    return _Setter(attr)


class _Setter:
    __slots__ = ("attr",)

    def __init__(self, attr: str) -> None:
        self.attr = attr

    def __set__(self, obj: Any, value: Any) -> None:
        object.__setattr__(obj, self.attr, value)


def _build_fields(cls: type) -> tuple[WireField, ...]:
    hints = typing.get_type_hints(cls)
    out = []
    for dc_field in dataclasses.fields(cls):
        meta = dc_field.metadata
        name = meta.get("wire")
        if name is None:
            raise TypeError(f"{cls.__name__}.{dc_field.name} has no wire name (declare it with wire(...))")
        kind = _base_type(hints[dc_field.name], cls, dc_field.name)
        required = dc_field.default is MISSING and dc_field.default_factory is MISSING
        out.append(
            WireField(dc_field.name, name, kind, required, dc_field.default, meta.get("check"), meta["blank_ok"])
        )
    return tuple(out)


def _base_type(hint: Any, cls: type, attr: str) -> type:
    args = typing.get_args(hint) if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union else ()
    if args:
        hint = next(a for a in args if a is not type(None))
    if hint not in (str, int, bool, float):
        raise TypeError(f"{cls.__name__}.{attr}: header fields are str, int, bool or float, not {hint!r}")
    return cast(type, hint)


# --- bodies --------------------------------------------------------------------------------------

C = TypeVar("C")  # a codec's value


class BodyCodec(Protocol[C]):
    """How a body travels: ``encode`` for the sender, ``decode`` (raising ValueError) for the reader.
    ``json``: the body is JSON text (servers check such bodies for invalid Unicode before decoding)."""

    name: str
    json: bool

    def encode(self, value: C) -> bytes: ...

    def decode(self, data: bytes) -> C: ...


# --- requests ------------------------------------------------------------------------------------

if TYPE_CHECKING:  # a declaration without a header or a body is typed None there (PEP 696 defaults, Python 3.13)
    from typing_extensions import TypeVar as DefaultTypeVar

    H = DefaultTypeVar("H", bound=Header | None, default=None)
    B = DefaultTypeVar("B", default=None)
    RH = DefaultTypeVar("RH", bound=Header | None, default=None)
    RB = DefaultTypeVar("RB", default=None)
else:  # typing_extensions costs start-up; the defaults matter only to the type checker
    H = TypeVar("H")
    B = TypeVar("B")
    RH = TypeVar("RH")
    RB = TypeVar("RB")

REGISTRY: dict[int, Rpc[Any, Any, Any, Any]] = {}
"""Every declared request by code."""


class Reply(NamedTuple, Generic[RH, RB]):  # not a frozen dataclass: 10x cheaper to define (start-up)
    """A decoded response: its code and remark, typed header and body, and the server's version."""

    code: int
    remark: str | None
    header: RH  # None exactly when the request declares no response header
    body: RB | None  # None when the response came without a body
    version: int
    raw: RemotingCommand


class Decoded(NamedTuple, Generic[H, B]):
    """A request as a server sees it after decoding and validation (a tuple: cheap to build per send)."""

    cmd: RemotingCommand
    header: H
    body: B


@dataclass(frozen=True)
class Rpc(Generic[H, B, RH, RB]):
    """One request: code, header and body types, and the response's.

    ``ok`` lists the response codes that are answers rather than errors for this request
    (e.g. QUERY_NOT_FOUND for a KV read). ``body_check`` runs on the decoded body when a server
    validates (names inside bodies); ``raw_check`` runs on the header and the body's bytes before
    the body is decoded (a checksum). ``access``: what the request touches, for ACL 2.0 authorization
    (``mqadmin.model.access``). ``since``: the first broker version that has the request (ordinals from
    ``mqadmin.model.version``; 0: every version), and ``fallback``: the request that does its work on brokers
    before that, one item each (``mqadmin.admin.batch`` sends by them).
    """

    code: int
    name: str
    header: type[H] | None = None
    body: BodyCodec[B] | None = None
    response_header: type[RH] | None = None
    response_body: BodyCodec[RB] | None = None
    ok: frozenset[int] = frozenset({ResponseCode.SUCCESS})
    summary: str = ""
    body_check: Callable[[B], Refusal | None] | None = None
    raw_check: Callable[[H, bytes], Refusal | None] | None = None
    access: Access | None = None
    since: int = 0
    fallback: Rpc[Any, Any, Any, Any] | None = None

    def exists_on(self, version: int) -> bool:
        """Whether a broker of ``version`` has this request (one whose version is unknown, 0, counts as new)."""
        from mqadmin.model.version import at_least  # here: every command loads this module, few ask this

        return at_least(version, self.since)

    def __post_init__(self) -> None:
        previous = REGISTRY.get(self.code)
        if previous is not None:  # one declaration per request, shared by every side
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
        rh = cast("type[Header] | None", self.response_header)  # RH is None exactly when there is none
        header = cast("RH", rh.from_ext(resp.ext, validate=False) if rh is not None else None)
        body = self.response_body.decode(resp.body) if self.response_body is not None and resp.body else None
        return Reply(resp.code, resp.remark, header, body, resp.version, resp)

    # --- server side ----------------------------------------------------------------------

    def decode(self, cmd: RemotingCommand, validate: bool = True) -> Decoded[H, B]:
        """Decode a request: header fields, ``raw_check``, the body; ``RequestRefused`` carries the code
        and remark to answer. With ``validate`` the declared rules run too (each field's check before
        the header is decoded, ``body_check`` after the body is); without, only the types, the
        required fields and ``raw_check`` (tests of the layers below switch it off)."""
        h = cast("type[Header] | None", self.header)  # H is None exactly when there is none
        decoded = (h.__dict__.get("_decode") or _compile(h)[0])(cmd.ext, validate) if h is not None else None
        header = cast("H", decoded)
        if self.raw_check is not None and (refusal := self.raw_check(header, cmd.body)) is not None:
            raise RequestRefused.of(refusal)
        body: B | None = None
        if self.body is not None and cmd.body:
            try:
                body = self.body.decode(cmd.body)
            except (ValueError, UnicodeDecodeError, RecursionError, OverflowError) as e:
                raise RequestRefused(f"bad {self.body.name} body: {e}") from None
            if validate and self.body_check is not None and (refusal := self.body_check(body)) is not None:
                raise RequestRefused.of(refusal)
        return Decoded(cmd, header, cast("B", body))  # None when a request that takes a body came without one

    def answer(
        self,
        req: RemotingCommand,
        header: RH | None = None,
        body: RB | None = None,
        *,
        code: int = ResponseCode.SUCCESS,
        remark: str | None = None,
    ) -> RemotingCommand:
        """The response to ``req``: ``header`` and ``body`` encoded by the declaration."""
        ext = header.to_ext() if header is not None else None
        data = self.response_body.encode(body) if body is not None and self.response_body is not None else b""
        return req.response(code, remark, ext, data)
