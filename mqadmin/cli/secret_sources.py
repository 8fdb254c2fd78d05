"""Where secrets come from, so none has to sit in shell history: a file, a command (``pass show …``), a
prompt without echo, or stdin; and Java mqadmin's ``$ROCKETMQ_HOME/conf/tools.yml``.

Errors name the source (the file, the command) but never include what it printed.
"""

from __future__ import annotations

import os
import stat
import sys

from mqadmin.cli.errors import CliError, ExitCode, usage_error

COMMAND_TIMEOUT = 60.0


def first_line(text: str) -> str:
    """The secret in a file or a command's output: its first line, without the line break."""
    return text.splitlines()[0] if text else ""


def read_secret_file(path: str, what: str = "secret key") -> str:
    p = os.path.expanduser(path)
    try:
        with open(p, encoding="utf-8") as file:
            text = file.read()
        mode = stat.S_IMODE(os.stat(p).st_mode)
    except (OSError, UnicodeDecodeError) as e:
        raise usage_error(
            f"cannot read the {what} from {path}: {getattr(e, 'strerror', None) or type(e).__name__}",
            "give a readable file holding the secret on its first line",
        ) from None
    secret = first_line(text)
    if not secret:
        raise usage_error(f"the {what} file {path} is empty", "put the secret on its first line")
    if mode & (stat.S_IRWXG | stat.S_IRWXO) and os.path.isfile(p):
        import shlex

        from mqadmin.cli.safe_text import warn

        warn(f"{path} is readable by other users (mode {mode:04o}); chmod 600 {shlex.quote(str(path))}")
    return secret


def run_secret_command(command: str, what: str = "secret key") -> str:
    """The first line of what ``command`` prints (run without a shell; its stderr and stdin stay the
    terminal's, so a password manager can prompt)."""
    import shlex
    import subprocess  # with signal, threading, selectors and locale: only for a profile's secret_command

    try:
        argv = shlex.split(command)
    except ValueError as e:
        raise usage_error(f"cannot parse secret_command {command!r}: {e}", "check its quoting") from None
    if not argv:
        raise usage_error("secret_command is empty", 'for example: secret_command = "pass show rocketmq/prod"')
    try:
        done = subprocess.run(argv, stdout=subprocess.PIPE, timeout=COMMAND_TIMEOUT, check=False)
    except FileNotFoundError:
        raise usage_error(f"secret_command: {argv[0]} not found", "check the command in the profile") from None
    except subprocess.TimeoutExpired:
        raise CliError(
            f"secret_command {argv[0]} did not finish within {COMMAND_TIMEOUT:g}s", "run it by hand to see why"
        ) from None
    if done.returncode != 0:
        raise CliError(
            f"secret_command {argv[0]} failed (exit {done.returncode})",
            f"run it by hand to see why: {command}",
            ExitCode.USAGE,
        )
    secret = first_line(done.stdout.decode("utf-8", "replace"))
    if not secret:
        raise usage_error(f"secret_command {argv[0]} printed nothing", f"it must print the {what} on its first line")
    return secret


def read_stdin_secret(what: str) -> str:
    secret = first_line(sys.stdin.read())
    if not secret:
        raise usage_error(f"no {what} on stdin", f"pipe the {what} in, e.g. from a file or a password manager")
    return secret


def prompt_secret(what: str, *, confirm: bool) -> str:
    """Ask on the terminal without echo (twice with ``confirm``); usage error when there is no terminal."""
    import getpass

    if not sys.stdin.isatty():
        raise usage_error(
            f"no {what} given and stdin is not a terminal to ask on",
            f"give the {what} with a --password-file FILE or --password-stdin",
        )
    try:
        first = getpass.getpass(f"{what.capitalize()}: ")
        if not first:
            raise usage_error(f"empty {what}")
        if confirm and getpass.getpass(f"{what.capitalize()} again: ") != first:
            raise usage_error(f"the two {what}s differ", "type the same one twice")
    except EOFError:
        raise usage_error(f"no {what} given") from None
    return first


def read_tools_yml(rocketmq_home: str) -> tuple[str, str] | None:
    """``(accessKey, secretKey)`` from ``$ROCKETMQ_HOME/conf/tools.yml``, as Java mqadmin reads them; None when
    the file is missing or lacks either key."""
    path = os.path.join(rocketmq_home, "conf", "tools.yml")
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except (OSError, UnicodeDecodeError):
        return None
    values: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#") or ":" not in line:
            continue
        key, _, value = line.partition(":")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        values[key.strip()] = value
    ak, sk = values.get("accessKey"), values.get("secretKey")
    return (ak, sk) if ak and sk else None


def env_first(names: tuple[str, ...], env: os._Environ[str] | dict[str, str]) -> tuple[str, str] | None:
    """The first of ``names`` set (non-empty) in ``env``: (name, value)."""
    for name in names:
        value = env.get(name)
        if value:
            return name, value
    return None
