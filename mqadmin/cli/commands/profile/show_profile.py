"""profile show: a profile's settings, or the settings a command would use now and where each comes from."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from mqadmin.cli.commands.profile import profile_command
from mqadmin.cli.commands.profile._docs import ProfileDoc
from mqadmin.cli.declare import Argument, Option

ResolvedSettingDoc = TypedDict(
    "ResolvedSettingDoc",
    {
        "value": Annotated[str | None, "as text; secrets as *** (null: not set anywhere)"],
        "from": Annotated[str, "--flag, $VARIABLE, profile NAME, .../conf/tools.yml or default"],
    },
)


class ResolvedProfileDoc(TypedDict):
    """profile show --resolved: what a command would use now."""

    profile: Annotated[str | None, "the profile in use (null: none)"]
    resolved: Annotated[dict[str, ResolvedSettingDoc], "setting -> its value and where it comes from"]


@profile_command(
    "show",
    "mqadmin profile show",
    "mqadmin profile show prod",
    "mqadmin --profile prod profile show --resolved",
    document=ProfileDoc | ResolvedProfileDoc,
)
def show_profile(
    name: Annotated[
        str | None, Argument(metavar="[PROFILE]", help="The profile [the one in use].", show_default=False)
    ] = None,
    resolved: Annotated[
        bool, Option("--resolved", help="Show what a command would use now: flag > env > profile > default.")
    ] = False,
) -> None:
    """Show a profile's settings (the one in use: --profile, MQADMIN_PROFILE or the current one). Secrets are
    shown as ***; a secret_command is shown but not run.

    With --resolved: every setting a command would use now, with where it comes from (a flag, an
    environment variable, the profile, tools.yml or the default).
    """
    from mqadmin.cli.commands.profile._shared import get, load, print_profile, profile_json
    from mqadmin.cli.errors import usage_error
    from mqadmin.cli.options import GLOBAL
    from mqadmin.cli.render import Column, json_output, print_json, print_table

    if resolved:
        if name is not None:
            GLOBAL.profile = name
        rows = resolved_settings()
        if json_output():
            resolved_doc: ResolvedProfileDoc = {
                "profile": _profile_in_use(),
                "resolved": {_camel(k): {"value": v, "from": o} for k, v, o in rows},
            }
            print_json(resolved_doc)
        else:
            print_table([Column("SETTING"), Column("VALUE"), Column("FROM")], [(k, v or "", o) for k, v, o in rows])
        return
    config = load()
    if name is None:
        name = _profile_in_use()
        if name is None:
            raise usage_error("no profile in use and none named", "name one: mqadmin profile show NAME")
    profile = get(config, name)
    if json_output():
        print_json(profile_json(config, name))
    else:
        print_profile(profile)


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(w.capitalize() for w in rest)


def _profile_in_use() -> str | None:
    from mqadmin.cli import settings

    return settings.profile()[0]


def resolved_settings() -> list[tuple[str, str | None, str]]:
    """(setting, value as shown, origin) of everything a command would use; no secret is read or shown."""
    from mqadmin.cli import settings

    name, _, origin = settings.profile()
    ns = settings.namesrv(None)
    fmt = settings.format_setting()
    timeout = settings.timeout_setting()
    src = settings.credential_source()
    tls = settings.tls()
    amap = settings.addr_map()
    rows: list[tuple[str, Any, str]] = [
        ("profile", name, origin),
        ("namesrv", ns.value, ns.origin),
        ("timeout", f"{float(timeout.value):g}", timeout.origin),
        ("format", str(fmt.value), fmt.origin),
        ("access_key", src.access_key if src else None, src.origin if src else settings.DEFAULT),
        ("secret_key", f"*** ({src.secret_from})" if src else None, src.origin if src else settings.DEFAULT),
        ("security_token", "***", src.origin) if src and src.security_token else ("security_token", None, "default"),
        ("tls", _describe_tls(tls.value), tls.origin),
        ("broker_addr_map", ", ".join(f"{k}={v}" for k, v in amap.value.items()) or None, amap.origin),
    ]
    return [(k, None if v is None else str(v), o) for k, v, o in rows]


def _describe_tls(tls: Any) -> str:
    if tls is None:
        return "off"
    parts = ["on"]
    parts += [f"ca={tls.ca_file}"] if tls.ca_file else ["ca=system"]
    parts += [f"cert={tls.cert_file}"] if tls.cert_file else []
    parts += [f"key={tls.key_file}"] if tls.key_file else []
    parts += [f"server_name={tls.server_name}"] if tls.server_name else []
    parts += ["insecure"] if tls.insecure else []
    return " ".join(parts)
