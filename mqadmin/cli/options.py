"""Global options (set by the root callback) shared by every command."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class OutputFormat(StrEnum):
    table = "table"
    json = "json"


@dataclass
class GlobalOptions:
    format: OutputFormat = OutputFormat.table
    timeout: float = 5.0
    debug: bool = False


GLOBAL = GlobalOptions()
