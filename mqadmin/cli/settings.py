"""Every setting resolved the same way: command-line flag > environment variable > profile > default.

| setting          | flag                               | environment                        | profile key      |
|------------------|------------------------------------|------------------------------------|------------------|
| profile          | --profile                          | MQADMIN_PROFILE                    | (current)        |
| name servers     | -n                                 | NAMESRV_ADDR                       | namesrv          |
| timeout          | --timeout                          | MQADMIN_TIMEOUT                    | timeout          |
| output format    | --format                           | MQADMIN_FORMAT                     | format           |
| credentials      | --access-key, --secret-key(-file), | ROCKETMQ_ACCESS_KEY, _SECRET_KEY,  | access_key,      |
|   (one set)      | --security-token                   | _SECURITY_TOKEN (or ROCKETMQ_ACL_*)| secret_*, token  |
| TLS              | --tls/--no-tls, --tls-ca, ...      | MQADMIN_TLS, MQADMIN_TLS_CA, ...   | tls, tls_ca, ... |
| broker addr map  | --broker-addr-map                  | MQADMIN_BROKER_ADDR_MAP            | broker_addr_map  |

Credentials are taken as a whole from the first source that gives any part of them, so a key and a secret
from different places are never mixed; Java's ``$ROCKETMQ_HOME/conf/tools.yml`` is read only when no
source gives any. A profile's secret (file or command) is read only when a command connects.
Values are resolved on first use and kept for the rest of the run (``forget`` starts over).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar

from mqadmin.cli.config_path import config_path
from mqadmin.cli.errors import usage_error
from mqadmin.cli.options import GLOBAL, OutputFormat, parse_timeout

if TYPE_CHECKING:
    from mqadmin.cli.config import Config, Profile

T = TypeVar("T")

ENV: dict[str, tuple[str, ...]] = {
    "profile": ("MQADMIN_PROFILE",),
    "namesrv": ("NAMESRV_ADDR",),
    "timeout": ("MQADMIN_TIMEOUT",),
    "format": ("MQADMIN_FORMAT",),
    "access_key": ("ROCKETMQ_ACCESS_KEY", "ROCKETMQ_ACL_ACCESS_KEY"),
    "secret_key": ("ROCKETMQ_SECRET_KEY", "ROCKETMQ_ACL_SECRET_KEY"),
    "security_token": ("ROCKETMQ_SECURITY_TOKEN", "ROCKETMQ_ACL_SECURITY_TOKEN"),
    "tls": ("MQADMIN_TLS",),
    "tls_ca": ("MQADMIN_TLS_CA",),
    "tls_cert": ("MQADMIN_TLS_CERT",),
    "tls_key": ("MQADMIN_TLS_KEY",),
    "tls_server_name": ("MQADMIN_TLS_SERVER_NAME",),
    "tls_insecure": ("MQADMIN_TLS_INSECURE",),
    "broker_addr_map": ("MQADMIN_BROKER_ADDR_MAP",),
}
"""The environment variables of each setting (the first set one counts)."""

FLAGS = {
    "namesrv": "-n",
    "timeout": "--timeout",
    "format": "--format",
    "tls": "--tls",
    "tls_ca": "--tls-ca",
    "tls_cert": "--tls-cert",
    "tls_key": "--tls-key",
    "tls_server_name": "--tls-server-name",
    "tls_insecure": "--tls-insecure",
    "broker_addr_map": "--broker-addr-map",
}

DEFAULT = "default"
TLS_FIELDS = ("tls_ca", "tls_cert", "tls_key", "tls_server_name", "tls_insecure")
PROFILE_HINT = "list them with: mqadmin profile list; create one with: mqadmin profile create NAME -n HOST:9876"


class Resolved(NamedTuple, Generic[T]):  # not a frozen dataclass: 10x cheaper to define (start-up)
    value: T
    origin: str
    """Where the value came from: ``--flag``, ``$VARIABLE``, ``profile NAME`` or ``default``."""

    @property
    def given(self) -> bool:
        return self.origin != DEFAULT


_cache: dict[str, Any] = {}


def forget() -> None:
    """Resolve everything again (each run starts here; tests run many in one process)."""
    _cache.clear()


def _cached(fn: Callable[[], T]) -> Callable[[], T]:
    def wrapper() -> T:
        if fn.__name__ not in _cache:
            _cache[fn.__name__] = fn()
        return _cache[fn.__name__]

    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    return wrapper


# --- the config file and the selected profile -----------------------------------------------------


@_cached
def config() -> Config | None:
    """The config file, or None when there is none (then what reads one is not even imported)."""
    path = config_path()
    try:
        os.stat(path)
    except FileNotFoundError:
        return None
    except OSError:
        pass  # load_config says what is wrong with it
    from mqadmin.cli.config import ConfigError, load_config

    try:
        return load_config(path)
    except ConfigError as e:
        raise usage_error(str(e), "fix it with: mqadmin profile edit") from None


@_cached
def profile() -> tuple[str | None, Profile | None, str]:
    """(name, profile, origin) of the profile in use: --profile > $MQADMIN_PROFILE > the config's current one."""
    name, origin = GLOBAL.profile, "--profile"
    if name is None and (env := _env("profile")):
        origin, name = env
    cfg = config()
    if name is None:
        if cfg is None or cfg.current is None:
            return None, None, DEFAULT
        return cfg.current, cfg.profiles[cfg.current], f"current in {cfg.path}"
    if cfg is None or name not in cfg.profiles:
        known = ", ".join(sorted(cfg.profiles)) if cfg is not None else ""
        where = cfg.path if cfg is not None else config_path()
        raise usage_error(f"no profile {name!r} (from {origin}) in {where} (profiles: {known or 'none'})", PROFILE_HINT)
    return name, cfg.profiles[name], origin


def _env(setting: str) -> tuple[str, str] | None:
    for var in ENV[setting]:
        value = os.environ.get(var)
        if value:
            return f"${var}", value
    return None


def pick(setting: str, flag: T | None, parse: Callable[[str, str], T], default: T) -> Resolved[T]:
    """flag > environment > profile > default for one setting; ``parse(text, origin)`` reads environment
    values (raising a usage error that names the variable)."""
    if flag is not None:
        return Resolved(flag, FLAGS.get(setting, setting))
    if env := _env(setting):
        origin, text = env
        return Resolved(parse(text, origin), origin)
    name, prof, _ = profile()
    value = getattr(prof, setting, None) if prof is not None else None
    if value is not None and value != {}:
        return Resolved(value, f"profile {name}")
    return Resolved(default, DEFAULT)


def _text(text: str, origin: str) -> str:
    return text


def _bool(text: str, origin: str) -> bool:
    v = text.strip().lower()
    if v in ("1", "true", "yes", "on"):
        return True
    if v in ("0", "false", "no", "off"):
        return False
    raise usage_error(f"{origin}={text!r} is not a boolean", f"set {origin[1:]} to 1 or 0")


def _timeout(text: str, origin: str) -> float:
    try:
        value = parse_timeout(text)
    except ValueError as e:
        raise usage_error(f"{origin}: {e}") from None
    assert value is not None
    return value


def _format(text: str, origin: str) -> OutputFormat:
    try:
        return OutputFormat(text.strip().lower())
    except ValueError:
        raise usage_error(f"{origin}={text!r} is not an output format", f"set {origin[1:]} to table or json") from None


# --- settings --------------------------------------------------------------------------------------


def format_setting() -> Resolved[OutputFormat]:
    found = pick("format", GLOBAL.format_flag, _format, OutputFormat.table)
    return Resolved(OutputFormat(found.value), found.origin)


def timeout_setting() -> Resolved[float]:
    found = pick("timeout", GLOBAL.timeout_flag, _timeout, 5.0)
    return Resolved(float(found.value), found.origin)


@_cached
def output_format() -> OutputFormat:
    return format_setting().value


@_cached
def request_timeout() -> float:
    return timeout_setting().value


def namesrv(option: str | None) -> Resolved[str | None]:
    """The name-server value (a ``;`` list or an address-server URL): -n > $NAMESRV_ADDR > profile."""
    return pick("namesrv", option if option and option.strip() else None, _text, None)


@_cached
def addr_map() -> Resolved[dict[str, str]]:
    from mqadmin.transport.addrmap import BadAddressMap, parse_addr_map

    raw = pick("broker_addr_map", GLOBAL.broker_addr_map or None, lambda text, origin: [text], None)
    if raw.value is None:
        return Resolved({}, DEFAULT)
    entries = [f"{k}={v}" for k, v in raw.value.items()] if isinstance(raw.value, dict) else raw.value
    try:
        return Resolved(parse_addr_map(entries), raw.origin)
    except BadAddressMap as e:
        hint = "map a registered broker address to a reachable one: A:10911=B:30911"
        raise usage_error(f"{raw.origin}: {e}", hint) from None


@_cached
def tls() -> Resolved[Any]:
    """TlsSettings (or None: plain TCP). TLS is on when ``tls`` is true, or when it is not set anywhere and any
    TLS setting (CA, certificate, key, server name, insecure) is."""
    enabled = pick("tls", GLOBAL.tls, _bool, False)
    if GLOBAL.tls is False:
        enabled = Resolved(False, "--no-tls")
    parts = {f: pick(f, getattr(GLOBAL, f), _bool if f == "tls_insecure" else _text, None) for f in TLS_FIELDS}
    on = enabled.value if enabled.given else any(p.given for p in parts.values())
    if not on:
        return Resolved(None, enabled.origin)
    from mqadmin.transport.tls import TlsSettings

    files = {
        f: os.path.expanduser(parts[f].value) if parts[f].value else None for f in ("tls_ca", "tls_cert", "tls_key")
    }
    origin = enabled.origin if enabled.given else next(p.origin for p in parts.values() if p.given)
    settings = TlsSettings(
        ca_file=files["tls_ca"],
        cert_file=files["tls_cert"],
        key_file=files["tls_key"],
        server_name=parts["tls_server_name"].value,
        insecure=bool(parts["tls_insecure"].value),
    )
    return Resolved(settings, origin)


def validate() -> None:
    """Resolve every setting a command that connects uses, so a bad value is a usage error before anything is
    sent (and not, say, an output format found bad after a topic was created)."""
    output_format()
    request_timeout()
    tls()
    addr_map()
    credentials()


class CredentialSource(NamedTuple):  # not a frozen dataclass: 10x cheaper to define (start-up)
    """Where the credentials come from, without reading a secret file or running a command yet."""

    origin: str
    access_key: str | None
    secret: Callable[[], str | None]
    security_token: str | None
    secret_from: str
    """How the secret is given (``--secret-key``, ``$ROCKETMQ_SECRET_KEY``, ``secret_command``, …), for messages."""


def credential_source() -> CredentialSource | None:
    """The first of: flags, environment, profile, tools.yml that gives any credential."""
    from mqadmin.cli.secret_sources import read_secret_file, read_tools_yml, run_secret_command

    g = GLOBAL
    if g.access_key or g.secret_key or g.secret_key_file or g.security_token:
        if g.secret_key_file:
            path = g.secret_key_file
            return CredentialSource(
                "command line", g.access_key, lambda: read_secret_file(path), g.security_token, "--secret-key-file"
            )
        sk = g.secret_key
        return CredentialSource("command line", g.access_key, lambda: sk, g.security_token, "--secret-key")
    env = {s: _env(s) for s in ("access_key", "secret_key", "security_token")}
    if any(env.values()):
        ak, sk, token = ((v[1] if v else None) for v in env.values())
        origin = next(v[0] for v in env.values() if v)
        return CredentialSource(f"environment ({origin})", ak, lambda: sk, token, "$" + ENV["secret_key"][0])
    name, prof, _ = profile()
    if prof is not None and (prof.access_key or prof.secret_key or prof.secret_file or prof.secret_command):
        p: Profile = prof
        if p.secret_file:
            path = p.secret_file
            return CredentialSource(
                f"profile {name}", p.access_key, lambda: read_secret_file(path), p.security_token, "secret_file"
            )
        if p.secret_command:
            cmd = p.secret_command
            return CredentialSource(
                f"profile {name}", p.access_key, lambda: run_secret_command(cmd), p.security_token, "secret_command"
            )
        sk = p.secret_key
        return CredentialSource(f"profile {name}", p.access_key, lambda: sk, p.security_token, "secret_key")
    home = os.environ.get("ROCKETMQ_HOME")
    pair = read_tools_yml(home) if home else None
    if pair:
        ak, sk = pair
        return CredentialSource(f"{home}/conf/tools.yml", ak, lambda: sk, None, "tools.yml secretKey")
    return None


@_cached
def credentials() -> Any:
    """The Credentials every request is signed with, or None; usage error when the source lacks a part."""
    src = credential_source()
    if src is None:
        return None
    from mqadmin.transport.credentials import Credentials

    if not src.access_key:
        raise usage_error(
            f"credentials from {src.origin} have no access key",
            "give the access key too: --access-key, $ROCKETMQ_ACCESS_KEY or access_key in the profile",
        )
    secret = src.secret()
    if not secret:
        raise usage_error(
            f"credentials from {src.origin} have an access key but no secret key",
            "give the secret with --secret-key-file FILE, $ROCKETMQ_SECRET_KEY, or secret_file / secret_command "
            "in the profile",
        )
    _warn_inline_secret_readable(src)
    return Credentials(src.access_key, secret, src.security_token or None)


def _warn_inline_secret_readable(src: CredentialSource) -> None:
    cfg = config()
    if src.secret_from == "secret_key" and cfg is not None and cfg.readable_by_others():
        from mqadmin.cli.safe_text import warn

        warn(f"{cfg.path} holds a secret and is readable by other users; chmod 600 {cfg.path}")
