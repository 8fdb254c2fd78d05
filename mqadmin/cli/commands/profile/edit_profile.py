"""profile edit: open the config file in $VISUAL / $EDITOR and keep the result only if it is valid."""

from __future__ import annotations

from mqadmin.cli.commands.profile import profile_command

SKELETON = """\
# mqadmin profiles (docs/profiles.md). Commands use the current profile unless --profile or
# MQADMIN_PROFILE names another; flags and environment variables override a profile's settings.
#
# current = "prod"
#
# [profiles.prod]
# namesrv = "10.0.0.1:9876;10.0.0.2:9876"      # or an address server: "http://nsaddr:8080/rocketmq/nsaddr"
# access_key = "admin"
# secret_command = "pass show rocketmq/prod"   # or secret_file = "/path", or secret_key = "..."
# tls = true
# tls_ca = "/etc/rocketmq/ca.pem"
# timeout = 10
#
# [profiles.prod.broker_addr_map]
# "10.0.0.5:10911" = "127.0.0.1:30911"
"""


@profile_command("edit", "mqadmin profile edit", "EDITOR=nano mqadmin profile edit")
def edit_profile() -> None:
    """Edit the config file in $VISUAL or $EDITOR (vi if neither is set). The edited text replaces the file only
    when it is valid; otherwise the error is shown and, on a terminal, the editor opens again."""
    import os
    import sys
    import tempfile
    from pathlib import Path

    import typer

    from mqadmin.cli.config import ConfigError, config_path, parse_config, write_private
    from mqadmin.cli.errors import usage_error
    from mqadmin.cli.render import note

    path = Path(config_path())
    try:
        original = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        original = SKELETON
    except (OSError, UnicodeDecodeError) as e:
        raise usage_error(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
    text = original
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=".config.edit.", suffix=".toml")
    tmp = Path(tmp_name)
    try:
        os.close(fd)
        while True:
            write_private(tmp, text)
            _run_editor(tmp)
            text = tmp.read_text(encoding="utf-8")
            try:
                parse_config(text, path)
                break
            except ConfigError as e:
                note(f"mqadmin: error: {e}")
                if not (sys.stdin.isatty() and typer.confirm("Edit again?", default=True, err=True)):
                    raise usage_error(f"{path} left as it was", "run mqadmin profile edit again") from None
    finally:
        tmp.unlink(missing_ok=True)
    if text == original:
        note(f"{path}: no changes")
        return
    write_private(path, text)
    note(f"{path} saved")


def _run_editor(path: object) -> None:
    import os
    import shlex
    import subprocess

    from mqadmin.cli.errors import usage_error

    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    argv = [*shlex.split(editor), str(path)]
    try:
        done = subprocess.run(argv, check=False)
    except FileNotFoundError:
        raise usage_error(f"editor {argv[0]!r} not found", "set VISUAL or EDITOR to your editor") from None
    if done.returncode != 0:
        raise usage_error(f"the editor exited with {done.returncode}; nothing was saved")
