"""A small reader of Java class files (JVM spec, chapter 4): the class's name, its super class, its fields and the
runtime-visible annotations of the class and of each field, and a method's bytecode. Enough to read Apache's
``@RocketMQAction`` / ``@RocketMQResource`` request-header annotations and the ``lookupswitch`` of its
authorization-context builder without a JVM (``tests.realrmq.acl_table``)."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any, NamedTuple

_MAGIC = 0xCAFEBABE


class ClassFormatError(ValueError):
    """Not a class file, or one cut short."""


class Enum(NamedTuple):
    """An enum constant in an annotation: ``type`` is its descriptor (``Lorg/.../Action;``), ``name`` the constant."""

    type: str
    name: str


@dataclass(frozen=True)
class Annotation:
    type: str
    """The annotation's descriptor, e.g. ``Lorg/apache/rocketmq/common/action/RocketMQAction;``."""
    values: dict[str, Any]
    """Element name -> int, str, float, bool, ``Enum``, nested ``Annotation`` or a list of those."""

    @property
    def simple_name(self) -> str:
        return self.type.rsplit("/", 1)[-1].rstrip(";")


@dataclass(frozen=True)
class Member:
    name: str
    descriptor: str
    annotations: tuple[Annotation, ...]
    code: bytes | None = None
    """A method's bytecode (its Code attribute's code array); None for fields and abstract methods."""
    default: Any = None
    """An annotation element's default value (its AnnotationDefault attribute), if any."""


@dataclass(frozen=True)
class ClassFile:
    name: str
    """Internal name, e.g. ``org/apache/rocketmq/remoting/protocol/header/ResetOffsetRequestHeader``."""
    super_name: str | None
    annotations: tuple[Annotation, ...]
    fields: tuple[Member, ...] = field(default=())
    methods: tuple[Member, ...] = field(default=())

    def annotation(self, simple_name: str) -> Annotation | None:
        return next((a for a in self.annotations if a.simple_name == simple_name), None)


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, fmt: str) -> Any:
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.data):
            raise ClassFormatError(f"truncated class file at byte {self.pos}")
        (value,) = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return value

    def u1(self) -> int:
        return int(self.take(">B"))

    def u2(self) -> int:
        return int(self.take(">H"))

    def u4(self) -> int:
        return int(self.take(">I"))

    def raw(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise ClassFormatError(f"truncated class file at byte {self.pos}")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out


def _constant_pool(r: _Reader) -> list[Any]:
    """Index -> the constant (UTF-8 text, a number, or a tuple of indexes for the reference kinds)."""
    count = r.u2()
    pool: list[Any] = [None] * count
    i = 1
    while i < count:
        tag = r.u1()
        if tag == 1:  # Utf8 (modified UTF-8; header names are ASCII)
            pool[i] = r.raw(r.u2()).decode("utf-8", "surrogateescape")
        elif tag == 3:
            pool[i] = r.take(">i")
        elif tag == 4:
            pool[i] = r.take(">f")
        elif tag == 5 or tag == 6:
            pool[i] = r.take(">q" if tag == 5 else ">d")
            i += 1  # longs and doubles take two slots
        elif tag in (7, 8, 16, 19, 20):  # Class, String, MethodType, Module, Package
            pool[i] = ("ref", r.u2())
        elif tag in (9, 10, 11, 12, 17, 18):  # member refs, NameAndType, (Invoke)Dynamic
            pool[i] = ("pair", r.u2(), r.u2())
        elif tag == 15:  # MethodHandle
            pool[i] = ("handle", r.u1(), r.u2())
        else:
            raise ClassFormatError(f"unknown constant-pool tag {tag} at entry {i}")
        i += 1
    return pool


def _utf8(pool: list[Any], index: int) -> str:
    value = pool[index]
    if not isinstance(value, str):
        raise ClassFormatError(f"constant {index} is not text")
    return value


def _class_name(pool: list[Any], index: int) -> str:
    ref = pool[index]
    if not (isinstance(ref, tuple) and ref[0] == "ref"):
        raise ClassFormatError(f"constant {index} is not a class")
    return _utf8(pool, ref[1])


def _element_value(r: _Reader, pool: list[Any]) -> Any:
    tag = chr(r.u1())
    if tag in "BCIS":
        return int(pool[r.u2()])
    if tag == "Z":
        return bool(pool[r.u2()])
    if tag in "JFD":
        return pool[r.u2()]
    if tag == "s":
        return _utf8(pool, r.u2())
    if tag == "e":
        return Enum(_utf8(pool, r.u2()), _utf8(pool, r.u2()))
    if tag == "c":
        return _utf8(pool, r.u2())
    if tag == "@":
        return _annotation(r, pool)
    if tag == "[":
        return [_element_value(r, pool) for _ in range(r.u2())]
    raise ClassFormatError(f"unknown annotation element tag {tag!r}")


def _annotation(r: _Reader, pool: list[Any]) -> Annotation:
    type_ = _utf8(pool, r.u2())
    values = {}
    for _ in range(r.u2()):
        name = _utf8(pool, r.u2())
        values[name] = _element_value(r, pool)
    return Annotation(type_, values)


def _attributes(r: _Reader, pool: list[Any]) -> tuple[tuple[Annotation, ...], bytes | None, Any]:
    """The runtime-visible annotations, the Code array and the AnnotationDefault value among a class's, field's or
    method's attributes."""
    annotations: list[Annotation] = []
    code = default = None
    for _ in range(r.u2()):
        name = _utf8(pool, r.u2())
        body = _Reader(r.raw(r.u4()))
        if name == "RuntimeVisibleAnnotations":
            annotations += [_annotation(body, pool) for _ in range(body.u2())]
        elif name == "Code":
            body.u2(), body.u2()  # max_stack, max_locals
            code = body.raw(body.u4())
        elif name == "AnnotationDefault":
            default = _element_value(body, pool)
    return tuple(annotations), code, default


def _members(r: _Reader, pool: list[Any]) -> tuple[Member, ...]:
    out = []
    for _ in range(r.u2()):
        r.u2()  # access flags
        name, descriptor = _utf8(pool, r.u2()), _utf8(pool, r.u2())
        annotations, code, default = _attributes(r, pool)
        out.append(Member(name, descriptor, annotations, code, default))
    return tuple(out)


def parse(data: bytes) -> ClassFile:
    """A class file's name, super class, annotations, fields and methods; ``ClassFormatError`` if it is not one."""
    r = _Reader(data)
    if r.u4() != _MAGIC:
        raise ClassFormatError("not a class file (bad magic number)")
    r.u2(), r.u2()  # minor, major version
    pool = _constant_pool(r)
    r.u2()  # access flags
    name = _class_name(pool, r.u2())
    super_index = r.u2()
    super_name = _class_name(pool, super_index) if super_index else None
    for _ in range(r.u2()):
        r.u2()  # interfaces
    fields = _members(r, pool)
    methods = _members(r, pool)
    annotations, _, _ = _attributes(r, pool)
    return ClassFile(name, super_name, annotations, fields, methods)


def lookupswitch_keys(code: bytes) -> list[int]:
    """The case values of the first ``lookupswitch`` in ``code`` whose layout is consistent (zero padding, sorted
    keys, every jump inside the method). A ``switch`` over request codes compiles to one."""
    for at in range(len(code)):
        if code[at] != 0xAB:
            continue
        start = (at + 4) & ~3
        if any(code[at + 1 : start]) or start + 8 > len(code):
            continue
        default, npairs = struct.unpack_from(">iI", code, start)
        end = start + 8 + 8 * npairs
        if not 0 < npairs <= 1024 or end > len(code) or not 0 <= at + default < len(code):
            continue
        pairs = [struct.unpack_from(">ii", code, start + 8 + 8 * k) for k in range(npairs)]
        keys = [k for k, _ in pairs]
        if keys == sorted(set(keys)) and all(0 <= at + off < len(code) for _, off in pairs):
            return keys
    return []
