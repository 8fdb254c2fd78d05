"""profile create: write a named profile from the options given (the global ones included)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mqadmin.cli.commands.profile import profile_command
from mqadmin.cli.commands.profile._docs import ProfileDoc
from mqadmin.cli.declare import Argument, Option
from mqadmin.cli.options import OutputFormat
from mqadmin.cli.params import NamesrvOpt

if TYPE_CHECKING:
    from mqadmin.cli.config import Profile


@profile_command(
    "create",
    "mqadmin profile create prod -n 'ns1:9876;ns2:9876' --access-key admin --secret-command 'pass show rmq/prod' --use",
    "mqadmin profile create stage -n http://nsaddr.stage:8080/rocketmq/nsaddr --tls --tls-ca ca.pem",
    "mqadmin profile create k8s -n 127.0.0.1:9876 --broker-addr-map 10.0.0.5:10911=127.0.0.1:30911",
    "vault kv get -field=sk rmq/prod | mqadmin profile create prod --access-key admin --secret-stdin",
    document=ProfileDoc,
)
def create_profile(
    name: Annotated[str, Argument(metavar="NAME", help="Profile name (letters, digits, '.', '_', '-').")],
    namesrv: NamesrvOpt = None,
    secret_command: Annotated[
        str | None,
        Option("--secret-command", metavar="COMMAND", help="Command printing the secret key (run at each use)."),
    ] = None,
    secret_stdin: Annotated[
        bool, Option("--secret-stdin", help="Read the secret key from stdin and keep it in the file.")
    ] = False,
    default_format: Annotated[
        OutputFormat | None,
        Option("--default-format", help="Output format of commands using the profile [table]."),
    ] = None,
    use: Annotated[bool, Option("--use", help="Make it the current profile.")] = False,
    force: Annotated[bool, Option("--force", help="Replace a profile of that name.")] = False,
) -> None:
    """Write profile NAME to the config file (mode 0600, written atomically) from the options given.

    Every connection option given on this command line is stored: -n (name servers, or an address-server
    URL), --access-key with one secret source (--secret-key-file FILE, kept as a path and read at each use;
    --secret-command; --secret-stdin or --secret-key, kept in the file), --security-token, --tls and the
    --tls-* files (stored as absolute paths), --timeout and --broker-addr-map; --default-format sets the
    profile's output format (--format only formats this command's own output).
    """
    from mqadmin.cli.commands.profile._shared import load, print_profile, profile_json
    from mqadmin.cli.config import check_profile_name, save_config
    from mqadmin.cli.errors import usage_error
    from mqadmin.cli.render import json_output, note, print_json

    if problem := check_profile_name(name):
        raise usage_error(problem)
    config = load()
    if name in config.profiles and not force:
        raise usage_error(f"profile {name!r} exists in {config.path}", "--force replaces it; or: mqadmin profile edit")
    profile = _profile_from_options(namesrv, secret_command, secret_stdin, default_format)
    config.profiles[name] = profile
    if use or config.current is None and len(config.profiles) == 1:
        config.current = name
    save_config(config)
    if json_output():
        print_json(profile_json(config, name))
        return
    print_profile(profile)
    current = " (the current profile)" if config.current == name else f"; use it with: mqadmin profile use {name}"
    note(f"profile {name} written to {config.path}{current}")


def _profile_from_options(
    namesrv: str | None, secret_command: str | None, secret_stdin: bool, default_format: OutputFormat | None
) -> Profile:
    """The profile the command line describes, each value checked as a command would check it."""
    from mqadmin.cli.config import Profile
    from mqadmin.cli.errors import usage_error
    from mqadmin.cli.options import GLOBAL
    from mqadmin.cli.render import warn
    from mqadmin.cli.secret_sources import read_stdin_secret

    g = GLOBAL
    sources = [n for n, v in (("--secret-key", g.secret_key), ("--secret-key-file", g.secret_key_file),
                              ("--secret-command", secret_command), ("--secret-stdin", secret_stdin)) if v]  # fmt: skip
    if len(sources) > 1:
        raise usage_error(f"give one secret source ({', '.join(sources)} were given)")
    if sources and not g.access_key:
        raise usage_error(f"{sources[0]} without --access-key", "give the access key the secret belongs to")
    if g.access_key and not sources:
        raise usage_error(
            "--access-key without a secret", "add --secret-key-file FILE, --secret-command CMD or --secret-stdin"
        )
    secret_key = read_stdin_secret("secret key") if secret_stdin else g.secret_key
    if g.secret_key:
        warn("--secret-key is now in your shell history and in the config file; --secret-command keeps it in neither")
    profile = Profile(
        namesrv=_checked_namesrv(namesrv),
        access_key=g.access_key,
        secret_key=secret_key,
        secret_file=_absolute(g.secret_key_file),
        secret_command=secret_command,
        security_token=g.security_token,
        timeout=g.timeout_flag,
        format=str(default_format) if default_format else None,
        tls=g.tls,
        tls_ca=_absolute(g.tls_ca, "--tls-ca"),
        tls_cert=_absolute(g.tls_cert, "--tls-cert"),
        tls_key=_absolute(g.tls_key, "--tls-key"),
        tls_server_name=g.tls_server_name,
        tls_insecure=g.tls_insecure,
        broker_addr_map=_checked_map(g.broker_addr_map),
    )
    return profile


def _checked_namesrv(value: str | None) -> str | None:
    from mqadmin.admin import BadNameServerAddress
    from mqadmin.admin.namesrv import address_server_url, parse_namesrv_addrs
    from mqadmin.cli.errors import usage_error
    from mqadmin.cli.runner import NAMESRV_FORMAT_HINT

    if value is None or address_server_url(value):
        return value
    try:
        addrs = parse_namesrv_addrs(value)
    except BadNameServerAddress as e:
        raise usage_error(str(e), NAMESRV_FORMAT_HINT) from None
    return ";".join(addrs) or None


def _absolute(path: str | None, option: str | None = None) -> str | None:
    """``path`` made absolute (so the profile works from any directory); a TLS file must be readable now."""
    import os

    from mqadmin.cli.errors import usage_error

    if path is None:
        return None
    full = os.path.abspath(os.path.expanduser(path))
    if option and not os.access(full, os.R_OK):
        raise usage_error(f"{option} {path}: no readable file there", "give the PEM file's path")
    return full


def _checked_map(entries: list[str]) -> dict[str, str]:
    from mqadmin.cli.errors import usage_error
    from mqadmin.transport.addrmap import BadAddressMap, parse_addr_map

    try:
        return parse_addr_map(entries)
    except BadAddressMap as e:
        raise usage_error(
            f"--broker-addr-map: {e}", "map a registered address to a reachable one: A:10911=B:30911"
        ) from None
