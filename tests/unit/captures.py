"""Readers for the recorded traffic in tests/data/captures (see its README for who spoke and how).

Each reader rebuilds the exact frame bytes that crossed the wire, so the tests can decode them with
our decoder and compare with what the log says the peer sent.
"""

from __future__ import annotations

import ast
import json
import re
import struct
from dataclasses import dataclass
from pathlib import Path

CAPTURES = Path(__file__).resolve().parent.parent / "data" / "captures"

_SNIFF = re.compile(r"^\S+ (?P<dir>C>S|S>C) st=(?P<st>\d+) hlen=(?P<hlen>\d+) blen=(?P<blen>\d+) HEADER (?P<h>.*)$")
_SNIFF_BODY = re.compile(r"^\S+ (?:C>S|S>C)\s+BODY (?P<b>b'.*')$")
_CAP_FRAME = re.compile(r"FRAME #\d+ .*total=(?P<total>\d+) serializeType=(?P<st>\d+) headerLen=(?P<hlen>\d+)")


@dataclass
class RecordedFrame:
    source: str
    direction: str  # "C>S" or "S>C"
    header: bytes  # exactly the counted header bytes
    body: bytes | None  # None when the log truncated it
    body_len: int

    @property
    def header_json(self) -> dict:
        return json.loads(self.header)

    def frame_bytes(self) -> bytes:
        """The frame as sent, without its leading length field (what decode_frame takes)."""
        assert self.body is not None, "the log truncated this body"
        return struct.pack(">i", len(self.header)) + self.header + self.body


def sniff_frames(name: str) -> list[RecordedFrame]:
    """Frames of a ``sniff_*.log`` (both directions, header text and, when complete, the body)."""
    frames: list[RecordedFrame] = []
    for line in (CAPTURES / name).read_text().splitlines():
        m = _SNIFF.match(line)
        if m:
            header = m["h"].encode()
            assert len(header) == int(m["hlen"]), f"{name}: header length mismatch in {line!r}"
            frames.append(RecordedFrame(name, m["dir"], header, b"" if m["blen"] == "0" else None, int(m["blen"])))
            continue
        m = _SNIFF_BODY.match(line)
        if m:
            body = ast.literal_eval(m["b"])
            last = frames[-1]
            if len(body) == last.body_len:  # the logger cut long bodies short
                last.body = body
    return frames


def cap_frames(name: str) -> list[RecordedFrame]:
    """Frames of a ``cap_*.log``: RAW HEADER text (a header may end with a newline, logged as an empty line)."""
    lines = (CAPTURES / name).read_text().split("\n")
    frames: list[RecordedFrame] = []
    for i, line in enumerate(lines):
        m = _CAP_FRAME.search(line)
        if not m:
            continue
        raw = lines[i + 1].split("RAW HEADER: ", 1)[1]
        hlen = int(m["hlen"])
        header = raw.encode()
        if len(header) == hlen - 1 and lines[i + 2] == "":
            header += b"\n"
        assert len(header) == hlen, f"{name}: header length mismatch at line {i + 2}"
        assert int(m["total"]) == 4 + hlen
        frames.append(RecordedFrame(name, "C>S", header, b"", 0))
    return frames


def raw_stream(name: str) -> bytes:
    """The hex line of a ``raw_*.log``: the first bytes the client wrote, frames back to back."""
    return bytes.fromhex((CAPTURES / name).read_text().splitlines()[0].strip())


_STUB_FRAME = re.compile(r"FRAME #\d+ \d+ serializeType=(?P<st>\d+) .*trailingNL=(?P<nl>True|False)")


def stub_headers(name: str) -> list[bytes]:
    """Headers of a ``stub_*.log``. The recorder re-serialised them (spaces after ``:``), so they are not
    byte-exact, but the values and their JSON types (numbers, booleans) are what the peer sent."""
    lines = (CAPTURES / name).read_text().splitlines()
    out: list[bytes] = []
    for i, line in enumerate(lines):
        m = _STUB_FRAME.search(line)
        if m:
            text = lines[i + 1].split("HEADER: ", 1)[1]
            out.append(text.encode() + (b"\n" if m["nl"] == "True" else b""))
    return out
