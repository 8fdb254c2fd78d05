"""Index of message keys and unique ids, for QUERY_MESSAGE.

Each message is indexed under ``topic#key`` for every key in its KEYS property and under
``topic#uniqKey``. The map lives in memory; it is appended to ``<data_dir>/index/keys.idx``
(records ``phys i64 | keyLen u16 | key``, in commit-log order) by the store's flush and loaded at
start. Lookups return candidates only: the caller reads each message and checks the key, so a
stale or colliding entry can never produce a wrong answer.
"""

from __future__ import annotations

import logging
import struct
from pathlib import Path

log = logging.getLogger(__name__)

_REC = struct.Struct(">qH")


class KeyIndex:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._table: dict[bytes, int | list[int]] = {}
        self._tail = bytearray()
        self.max_offset = -1
        """The largest commit-log offset indexed so far (recovery re-indexes only past it)."""
        self.file_size = 0

    def add(self, topic: str, key: str, phys: int) -> None:
        self.add_all(topic, [(key.encode(), phys)])

    def add_all(self, topic: str, keys: list[tuple[bytes, int]]) -> None:
        """Index each (UTF-8 key, commit-log offset) of ``topic``; the offsets ascend. The table's keys are
        ``topic#key`` as the file holds them (bytes: a batch's keys are never decoded)."""
        self._index(f"{topic}#".encode(), keys, self._tail)

    def _index(self, prefix: bytes, keys: list[tuple[bytes, int]], tail: bytearray | None) -> None:
        """Index ``prefix + key`` at each offset (a message's key twice: once), and append the records to
        ``tail`` unless it is None (loading)."""
        table, pack = self._table, _REC.pack
        insert = table.setdefault  # one lookup for a new key
        for key, phys in keys:
            k = (prefix + key)[:0xFFFF]
            old = insert(k, phys)
            if old != phys:
                if isinstance(old, list):
                    if old[-1] != phys:
                        old.append(phys)
                else:
                    table[k] = [old, phys]
            if tail is not None:
                tail += pack(phys, len(k))
                tail += k
        if keys and keys[-1][1] > self.max_offset:
            self.max_offset = keys[-1][1]

    def lookup(self, topic: str, key: str) -> list[int]:
        """Commit-log offsets indexed under the key, newest first."""
        v = self._table.get(f"{topic}#{key}".encode()[:0xFFFF])
        if v is None:
            return []
        return [v] if isinstance(v, int) else v[::-1]

    def load(self, log_end: int) -> None:
        """Read the file; cut a torn record and records at or past ``log_end``."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            data = b""
        pos = 0
        while pos + _REC.size <= len(data):
            phys, klen = _REC.unpack_from(data, pos)
            end = pos + _REC.size + klen
            if end > len(data) or phys >= log_end:
                break
            key = data[pos + _REC.size : end]
            try:
                key.decode()
            except UnicodeDecodeError:
                break
            self._index(b"", [(key, phys)], None)
            pos = end
        self.file_size = pos
        if pos != len(data):
            log.info("key index: cutting %d bytes past the recovered log", len(data) - pos)
            with open(self.path, "r+b") as f:
                f.truncate(pos)

    def unflushed(self) -> tuple[int, bytes]:
        return self.file_size, bytes(self._tail)

    def mark_flushed(self, nbytes: int) -> None:
        del self._tail[:nbytes]
        self.file_size += nbytes
