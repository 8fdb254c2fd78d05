"""The credentials every request is signed with, in a module of its own: a command without credentials never
creates the class (a frozen dataclass costs about a millisecond to define)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Credentials:
    """What every request is signed with (``repr`` never shows the secret or the token)."""

    access_key: str
    secret_key: str = field(repr=False)
    security_token: str | None = field(default=None, repr=False)
