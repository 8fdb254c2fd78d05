"""The ``--format json`` documents of the profile commands (``mqadmin.cli.documents``)."""

from __future__ import annotations

from typing import Annotated, TypedDict


class ProfileSettingsDoc(TypedDict):
    """Every setting a profile can hold, null when it does not set it; secrets are never shown."""

    namesrv: Annotated[str | None, "host:port;host:port, or an address-server URL"]
    accessKey: str | None
    secretKey: Annotated[str | None, '"***" when the file holds one']
    secretFile: Annotated[str | None, "a file the secret key is read from at each use"]
    secretCommand: Annotated[str | None, "a command printing the secret key, run at each use (shown, not run)"]
    securityToken: Annotated[str | None, '"***" when the file holds one']
    timeout: Annotated[float | None, "per-request timeout in seconds"]
    format: Annotated[str | None, "the output format of commands using the profile: table or json"]
    tls: bool | None
    tlsCa: str | None
    tlsCert: str | None
    tlsKey: str | None
    tlsServerName: str | None
    tlsInsecure: bool | None
    brokerAddrMap: Annotated[dict[str, str] | None, "registered broker address -> the address dialled"]


class ProfileDoc(TypedDict):
    """profile create, profile show: one profile."""

    profile: str
    current: Annotated[bool, "it is the current profile"]
    path: Annotated[str, "the config file"]
    settings: ProfileSettingsDoc
