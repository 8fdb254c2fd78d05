"""profile list: the profiles of the config file."""

from __future__ import annotations

from typing import Annotated, TypedDict

from mqadmin.cli.commands.profile import profile_command


class ProfileRowDoc(TypedDict):
    name: str
    current: Annotated[bool, "it is the current profile"]
    namesrv: str | None
    accessKey: str | None
    tls: Annotated[bool, "it connects with TLS (tls or a tls-* setting)"]


class ProfileListDoc(TypedDict):
    path: Annotated[str, "the config file"]
    current: Annotated[str | None, "the current profile (null: none)"]
    profiles: Annotated[list[ProfileRowDoc], "by name"]


@profile_command("list", "mqadmin profile list", document=ProfileListDoc)
def list_profiles() -> None:
    """List the profiles: name, whether it is the current one, name servers, access key, TLS."""
    from mqadmin.cli.commands.profile._shared import load
    from mqadmin.cli.render import Column, json_output, print_json, print_table

    config = load()
    rows: list[ProfileRowDoc] = [
        {
            "name": name,
            "current": name == config.current,
            "namesrv": p.namesrv,
            "accessKey": p.access_key,
            "tls": bool(p.tls) or any((p.tls_ca, p.tls_cert, p.tls_insecure, p.tls_server_name)),
        }
        for name, p in sorted(config.profiles.items())
    ]
    if json_output():
        doc: ProfileListDoc = {"path": str(config.path), "current": config.current, "profiles": rows}
        print_json(doc)
        return
    columns = [Column("CURRENT"), Column("NAME"), Column("NAMESRV"), Column("ACCESS KEY"), Column("TLS")]
    table = [
        ("*" if r["current"] else "", r["name"], r["namesrv"] or "", r["accessKey"] or "", "on" if r["tls"] else "")
        for r in rows
    ]
    print_table(columns, table)
