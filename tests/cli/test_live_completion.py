"""Shell completion: the request each shell's script makes (``mqadmin`` with ``_MQADMIN_COMPLETE`` set) against
an embedded cluster on a free port, what ``mqadmin --install-completion SHELL`` installs, and every command's
options."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mqadmin.cli import complete, registry
from mqadmin.cli.declare import VALUE_TYPES
from tests.devprocs import EmbeddedCluster

BIN = Path(sys.executable).parent
TOPIC = "Payments"
GROUP = "PayGroup"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedCluster]:
    with EmbeddedCluster(tmp_path_factory.mktemp("completion")) as c:
        ns = ["-n", c.namesrv_addr]
        for args in (["updateTopic", "-c", c.cluster, "-t", TOPIC], ["updateSubGroup", "-c", c.cluster, "-g", GROUP]):
            done = subprocess.run([sys.executable, "-m", "mqadmin", *args, *ns], capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
        yield c


def shell_env(home: Path, **extra: str) -> dict[str, str]:
    drop = ("NAMESRV_ADDR", "MQADMIN_PROFILE", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "ZDOTDIR")
    out = {k: v for k, v in os.environ.items() if k not in drop}
    out.update(HOME=str(home), PATH=f"{BIN}{os.pathsep}{out.get('PATH', '')}", TERM="xterm", **extra)
    return out


# --- the completion request, without a shell --------------------------------------------------------------


def ask(shell: str, words: list[str], home: Path, **extra: str) -> list[str]:
    env = shell_env(home, _MQADMIN_COMPLETE=shell, **extra)
    argv = [str(BIN / "mqadmin")]
    if shell == "bash":
        env.update(_MQADMIN_LINE=" ".join(["mqadmin", *words]), _MQADMIN_CUR=re.split("[:=]", words[-1])[-1])
    else:
        argv += words
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert done.stderr == "", done.stderr
    return done.stdout.splitlines()


def test_names_come_from_the_cluster_the_line_selects_and_are_cached(cluster: EmbeddedCluster, tmp_path: Path) -> None:
    ns = cluster.namesrv_addr
    assert ask("zsh", ["resetOffsetByTime", "-t", "Pay"], tmp_path, NAMESRV_ADDR=ns) == [TOPIC]
    assert ask("fish", ["deleteTopic", "-n", ns, "-c", ""], tmp_path) == [cluster.cluster]
    assert ask("bash", ["--timeout", "3", "statsAll", "-n", ns, "-t", "Pay"], tmp_path) == [TOPIC]
    cache = tmp_path / ".cache" / "mqadmin" / "completion"
    assert any(TOPIC in p.read_text() for p in cache.glob("*.json"))
    # bash replaces only what follows the last ':' of its word: the rest of the address
    addr = cluster.broker_addrs["broker-b"]
    assert ask("bash", ["updateTopic", "-n", ns, "-b", addr[:-1]], tmp_path) == [addr.rpartition(":")[2]]
    other = f"127.0.0.1:1;{ns}"  # a list of name servers, the first down
    assert ask("zsh", ["consumerStatus", "-n", other, "-g", "PayG"], tmp_path) == [GROUP]


def test_nothing_and_no_noise_when_the_cluster_cannot_be_asked(tmp_path: Path) -> None:
    assert ask("bash", ["topicRoute", "-n", "127.0.0.1:1", "-t", "Any"], tmp_path) == []
    assert ask("zsh", ["topicRoute", "-t", "Any"], tmp_path) == []  # no name server at all
    assert ask("fish", ["topicRoute", "-t", "Any"], tmp_path, MQADMIN_PROFILE="missing") == []


def test_profiles_and_name_servers_from_the_config_file(tmp_path: Path) -> None:
    env = shell_env(tmp_path)
    for name, ns in (("prod", "10.0.0.1:9876;10.0.0.2:9876"), ("test", "http://127.0.0.1:8080/rocketmq/nsaddr")):
        done = subprocess.run([str(BIN / "mqadmin"), "profile", "create", name, "-n", ns], env=env, text=True)
        assert done.returncode == 0
    assert ask("zsh", ["topicList", "--profile", ""], tmp_path) == ["prod", "test"]
    assert ask("fish", ["profile", "use", "pr"], tmp_path) == ["prod"]
    assert ask("zsh", ["topicList", "-n", "10.0.0.1:9876;10"], tmp_path) == ["10.0.0.1:9876;10.0.0.2:9876"]
    assert ask("bash", ["topicList", "-n", "http://127"], tmp_path) == ["//127.0.0.1:8080/rocketmq/nsaddr"]


NAME_OPTIONS = (
    (re.compile(r"--(topic|topicName|traceTopic|parentTopic|lmqParentTopic)$"), "topic"),
    (re.compile(r"--\w*[gG]roup(Name)?$"), "group"),
    (re.compile(r"--cluster(Name|s)?$"), "cluster"),
    (re.compile(r"--(brokerName|brokers)$"), "broker"),
    (re.compile(r"--(brokerAddr|broker|fromBroker|toBroker|broker-addr-map)$"), "addr"),
    (re.compile(r"--usernames?$"), "user"),
    (re.compile(r"--subjects?$"), "subject"),
    (re.compile(r"--namesrvAddr$"), "namesrv"),
    (re.compile(r"--profile$"), "profile"),
)
"""An option's long name -> what it names, so must complete."""
NOT_NAMES = {
    ("listAcl", "--subject"),
    ("top", "--topic"),
    ("top", "--group"),
    ("dev up", "--cluster"),
    ("dev broker", "--cluster"),
}
"""Options naming a kind of thing but taking no existing name: a filter (a part of a name), a new cluster."""


def every_command() -> Iterator[tuple[str, complete.Options]]:
    for entry in registry.COMMANDS:
        options, positional = complete.command_options(entry)
        yield entry.name, options
        if positional[:1] == [complete.SUBCOMMAND]:
            for sub, function in complete.subcommands(entry.name).items():
                yield f"{entry.name} {sub}", complete._signature_options(function)[0]


def test_every_name_option_of_every_command_completes_names() -> None:
    missing, checked = [], 0
    for command, options in every_command():
        for name, (decl, kind) in options.items():
            expected = next((what for pattern, what in NAME_OPTIONS if pattern.match(name)), None)
            if expected is None or kind not in (str,) or (command, name) in NOT_NAMES:
                continue
            checked += 1
            if VALUE_TYPES.get(decl.metavar or "", ("",))[0] != expected:
                missing.append(f"{command} {name} (metavar {decl.metavar!r}): should complete {expected} names")
    assert not missing, "\n".join(missing)
    assert checked > 300  # the walk saw the commands' options (and the global ones each command takes)


def test_only_file_and_directory_options_offer_files() -> None:
    offering = set()
    for _, options in every_command():
        for decl, kind in options.values():
            if kind is not bool and complete.shell_paths(decl, kind):
                offering.add(decl.metavar)
    assert offering <= {"FILE", "DIR", "PLAN", None}, offering
    assert {"FILE", "DIR"} <= offering


def test_the_committed_scripts_are_what_install_completion_installs(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    installed = {
        "bash": ".bash_completions/mqadmin.sh",
        "zsh": ".zfunc/_mqadmin",
        "fish": ".config/fish/completions/mqadmin.fish",
    }
    for shell in complete.SHELLS:
        committed = (root / "completions" / f"mqadmin.{shell}").read_text()
        assert committed == complete.script(shell)
        done = subprocess.run([str(BIN / "mqadmin"), "--install-completion", shell], env=shell_env(tmp_path))
        assert done.returncode == 0
        assert (tmp_path / installed[shell]).read_text().strip() == committed.strip()
    assert "-o default" not in complete.script("bash")


def test_a_tab_loads_no_typer_click_or_asyncio(tmp_path: Path) -> None:
    code = (
        "import sys; from mqadmin.cli.complete import main; sys.argv = ['mqadmin', *sys.argv[1:]]; main(); "
        "print(sorted(m for m in ('typer', 'click', 'asyncio') if m in sys.modules))"
    )
    for words in (["topicR"], ["consumerProgress", "--n"], ["dev", ""]):
        env = shell_env(tmp_path, _MQADMIN_COMPLETE="zsh")
        done = subprocess.run([sys.executable, "-c", code, *words], env=env, capture_output=True, text=True)
        *answer, loaded = done.stdout.splitlines()
        assert answer and loaded == ("['typer']" if words[0] == "dev" else "[]"), done.stdout + done.stderr


def test_candidates_follow_the_declarations() -> None:
    assert complete.candidates(["topicRou"]) == ["topicRoute"]
    assert complete.candidates(["topicRoute", "--format", "j"]) == ["json"]
    assert complete.candidates(["topicRoute", "--format=t"]) == ["--format=table"]
    assert complete.candidates(["dev", "u"]) == ["up"]
    assert "--namesrvAddr" in complete.candidates(["consumerProgress", "--n"])
