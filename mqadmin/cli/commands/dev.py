"""``mqadmin dev``: an embedded RocketMQ-compatible cluster on 127.0.0.1 (no Java, no Docker).

``dev up`` runs a name server and brokers in one process; ``dev namesrv`` and ``dev broker`` run
one server each (so a test can kill one); ``dev demo`` shows the two ways topics come to exist.
The servers are imported inside the commands so ``mqadmin --help`` stays fast.
"""

from __future__ import annotations

import errno
import os
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypedDict

from mqadmin.cli.command import APPS
from mqadmin.cli.declare import Option
from mqadmin.cli.errors import CliError, ExitCode, usage_error
from mqadmin.cli.options import GLOBAL, OutputFormat
from mqadmin.cli.typer_app import new_app, subcommand
from mqadmin.cli.views.route import RouteDoc

if TYPE_CHECKING:
    from mqadmin.server.dev import DevCluster
    from mqadmin.server.tls import TlsMode

dev_app = new_app(
    name="dev",
    help="Run an embedded RocketMQ-compatible name server and brokers on 127.0.0.1 (for development and tests).",
    no_args_is_help=True,
)

DataDirOpt = Annotated[
    Path | None,
    Option("--data-dir", help="Where the servers keep their files; default: a temporary directory deleted at exit."),
]
AutoCreateOpt = Annotated[
    bool,
    Option(
        "--auto-create/--no-auto-create",
        help="autoCreateTopicEnable: a send to an unknown topic creates it through TBW102 (default on).",
    ),
]


ResetMetadataOpt = Annotated[
    bool,
    Option(
        "--reset-unreadable-metadata",
        help="Start with empty tables when a metadata file (topics, groups, offsets, KV config) and its "
        ".bak cannot be read, instead of refusing to start; the unreadable files are kept as *.unreadable-<time>.",
    ),
]

AuthOpt = Annotated[
    Path | None,
    Option(
        "--auth",
        metavar="FILE",
        help="Secure the brokers with ACL 2.0 (authenticationEnabled + authorizationEnabled): a TOML file of "
        "users and ACLs, with at least one Super user. Every request to a broker must then be signed "
        "(--access-key/--secret-key); the name server, as Apache's, checks nothing. See docs/dev-cluster.md.",
    ),
]


IdleTimeoutOpt = Annotated[
    float,
    Option(
        "--idle-timeout",
        min=0.1,
        metavar="SECONDS",
        help="Seconds a client connection may stay idle (nothing sent, no request in progress) before it is "
        "closed, as Java's serverChannelMaxIdleTimeSeconds.",
    ),
]
FrameTimeoutOpt = Annotated[
    float,
    Option("--frame-timeout", min=0.1, metavar="SECONDS", help="Seconds a request frame may take to arrive whole."),
]
FrameMemoryOpt = Annotated[
    int,
    Option(
        "--partial-frame-memory",
        min=1,
        metavar="MIB",
        help="MiB that frames larger than 64 KiB may hold, all connections together, while they arrive.",
    ),
]


class TlsModeChoice(StrEnum):
    enforcing = "enforcing"
    permissive = "permissive"


APPS["dev"] = dev_app


class DevBrokerEntryDoc(TypedDict):
    name: str
    addr: Annotated[str, "127.0.0.1:PORT"]
    id: Annotated[int, "0: master"]


class DevUpDoc(TypedDict):
    """dev up's ready line: one JSON object on one line of stdout, printed once every broker has registered. The
    process goes on serving in the foreground until SIGINT or SIGTERM, then exits 0 (1: it could not start)."""

    pid: Annotated[int, "the process serving the cluster: SIGTERM or SIGINT stops it cleanly"]
    namesrvAddr: Annotated[str, "-n / NAMESRV_ADDR for clients"]
    cluster: str
    brokers: list[DevBrokerEntryDoc]
    nsaddrUrl: Annotated[str, "the address server (-n URL, Java's -Drocketmq.namesrv.domain)"]
    tlsCa: Annotated[str | None, "the CA certificate clients pass to --tls-ca (null without TLS)"]
    tlsMode: Annotated[Literal["enforcing", "permissive"] | None, "null without TLS"]
    dataDir: str
    temporaryDataDir: Annotated[bool, "the data directory is deleted at exit"]
    autoCreateTopicEnable: bool
    authEnabled: Annotated[bool, "--auth: every request to a broker must be signed"]
    readySeconds: Annotated[float, "from the start to every broker registered"]


class DevNamesrvDoc(TypedDict):
    """dev namesrv's ready line (one line of stdout once it listens; it serves until SIGINT or SIGTERM)."""

    pid: Annotated[int, "the process: SIGTERM or SIGINT stops it cleanly"]
    namesrvAddr: str
    dataDir: str


class DevBrokerDoc(TypedDict):
    """dev broker's ready line (one line of stdout once it listens; it serves until SIGINT or SIGTERM)."""

    pid: Annotated[int, "the process: SIGTERM or SIGINT stops it cleanly"]
    brokerName: str
    brokerAddr: str
    cluster: str
    dataDir: str
    registered: Annotated[bool, "a name server took its registration (false: it keeps trying)"]


class DemoAutoCreatedDoc(RouteDoc):
    sentTo: Annotated[str, "the broker the send reached, which created the topic"]


class DemoSendFailedDoc(TypedDict):
    error: Annotated[str, "why the send failed (exit 1)"]


class DevDemoDoc(TypedDict):
    namesrvAddr: Annotated[str, "the throw-away cluster's (stopped and removed before this is printed)"]
    cluster: str
    precreated: Annotated[RouteDoc, "DemoPrecreated, made with updateTopic -c: on every master"]
    autoCreated: Annotated[
        DemoAutoCreatedDoc | DemoSendFailedDoc, "DemoAutoCreated, made by a send through TBW102: on one broker"
    ]


def dev_command(name: str, *examples: str, document: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A ``dev`` subcommand (``mqadmin.cli.typer_app.subcommand``): ``document``, its --format json document."""
    return subcommand(dev_app, "dev", name, examples, document)


@dev_command(
    "up",
    "mqadmin dev up",
    "mqadmin dev up --brokers 3 --data-dir ./rmq-data",
    "mqadmin --format json dev up --namesrv-port 0 --broker-port 0    # free ports, read from the ready line",
    document=DevUpDoc,
)
def up(
    data_dir: DataDirOpt = None,
    brokers: Annotated[int, Option("--brokers", min=1, max=26, metavar="N", help="Number of brokers (masters).")] = 2,
    namesrv_port: Annotated[
        int,
        Option("--namesrv-port", min=0, max=65535, metavar="PORT", help="Name-server port; 0 picks a free one."),
    ] = 9876,
    broker_port: Annotated[
        int,
        Option(
            "--broker-port",
            min=0,
            max=65535,
            help="First broker's port; the next ones are +10 each; 0 picks free ones.",
        ),
    ] = 10911,
    nsaddr_port: Annotated[
        int,
        Option(
            "--nsaddr-port",
            min=0,
            max=65535,
            metavar="PORT",
            help="Port of the address server (http://127.0.0.1:PORT/rocketmq/nsaddr); 0 picks a free one.",
        ),
    ] = 0,
    cluster: Annotated[str, Option("--cluster", metavar="NAME", help="Cluster name.")] = "DefaultCluster",
    auto_create: AutoCreateOpt = True,
    reset_unreadable_metadata: ResetMetadataOpt = False,
    idle_timeout: IdleTimeoutOpt = 120.0,
    frame_timeout: FrameTimeoutOpt = 30.0,
    partial_frame_memory: FrameMemoryOpt = 256,
    tls_: Annotated[
        bool,
        Option(
            "--tls",
            help="Serve TLS only, on every port, with a certificate for 127.0.0.1 / localhost made at start "
            "under <data-dir>/tls (needs the openssl command); its CA's path is printed on stderr.",
        ),
    ] = False,
    tls_mode: Annotated[
        TlsModeChoice | None,
        Option(
            "--tls-mode",
            help="enforcing (what --tls does): TLS only; permissive: TLS and plain TCP on the same ports, told "
            "apart by the first byte (Apache's tls.server.mode). Implies --tls.",
            show_default=False,
        ),
    ] = None,
    auth: AuthOpt = None,
) -> None:
    """Run a name server and brokers (broker-a, broker-b, …) in the foreground until Ctrl-C.

    Prints NAMESRV_ADDR=…, the address-server URL (for -n URL, or Java's -Drocketmq.namesrv.domain) and a
    ready line once every broker has registered. With --tls, clients pass --tls --tls-ca <the CA printed>.
    With --auth FILE every request to a broker must be signed by a user of FILE (or one created since with
    createUser).
    """
    from mqadmin.server.dev import BROKER_PORT_STEP, run_until_signalled, start_cluster
    from mqadmin.server.tls import CertificateError

    if broker_port and broker_port + BROKER_PORT_STEP * (brokers - 1) + 1 > 65535:
        raise usage_error(f"--broker-port {broker_port} leaves no room for {brokers} brokers", "use a lower port")
    _check_data_dir(data_dir)
    tls: TlsMode | None = None
    if tls_mode is TlsModeChoice.permissive:
        tls = "permissive"
    elif tls_mode or tls_ or GLOBAL.tls is True:  # also `--tls dev up`
        tls = "enforcing"
    auth_settings = _auth_settings(auth)

    async def main() -> None:
        t0 = time.perf_counter()
        cluster_ = await _starting(
            start_cluster(
                data_dir=data_dir,
                brokers=brokers,
                namesrv_port=namesrv_port,
                broker_port=broker_port,
                auto_create=auto_create,
                cluster=cluster,
                reset_unreadable_metadata=reset_unreadable_metadata,
                limits=_limits(idle_timeout, frame_timeout, partial_frame_memory),
                tls=tls,
                nsaddr_port=nsaddr_port,
                auth=auth_settings,
            ),
            "--namesrv-port / --broker-port / --nsaddr-port",
        )
        info = _up_document(cluster_, round(time.perf_counter() - t0, 3))

        def ready() -> None:
            if cluster_.tls:
                ca = cluster_.tls.ca_file
                plain = "accepted too" if cluster_.tls.permissive else "refused"
                sys.stderr.write(
                    f"mqadmin: TLS on every port, plain TCP {plain}; CA certificate: {ca} "
                    f"(clients: --tls --tls-ca {ca})\n"
                )
            if _json():
                _print_json_line(info)
                return
            lines = [f"NAMESRV_ADDR={cluster_.namesrv_addr}"]
            lines += [f"{b['name']}  {b['addr']}  {cluster}" for b in info["brokers"]]
            lines.append(f"address server  {cluster_.address_server.url}")
            kept = "deleted at exit" if cluster_.temporary else "kept"
            lines.append(
                f"ready in {info['readySeconds']:.3f} s: {brokers} broker(s) registered; "
                f"data in {cluster_.data_dir} ({kept}); Ctrl-C stops"
            )
            _print_lines(lines)

        await run_until_signalled(cluster_.stop, ready)

    try:
        _run(main)
    except CertificateError as e:
        raise CliError(f"cannot start with --tls: {e}", "install openssl, or start without --tls") from None


@dev_command("namesrv", "mqadmin dev namesrv --port 9876", document=DevNamesrvDoc)
def namesrv(
    port: Annotated[int, Option("--port", min=0, max=65535, metavar="PORT", help="Port; 0 picks a free one.")] = 9876,
    data_dir: DataDirOpt = None,
    scan_interval: Annotated[
        float,
        Option("--scan-interval", min=0.01, metavar="SECONDS", help="Seconds between scans for silent brokers."),
    ] = 10.0,
    broker_expire: Annotated[
        float,
        Option(
            "--broker-expire", min=0.01, metavar="SECONDS", help="Seconds of silence after which a broker is dropped."
        ),
    ] = 120.0,
    reset_unreadable_metadata: ResetMetadataOpt = False,
    idle_timeout: IdleTimeoutOpt = 120.0,
    frame_timeout: FrameTimeoutOpt = 30.0,
    partial_frame_memory: FrameMemoryOpt = 256,
) -> None:
    """Run one name server in the foreground until Ctrl-C or SIGTERM."""
    from mqadmin.server.dev import HOST
    from mqadmin.server.namesrv.config import NamesrvConfig
    from mqadmin.server.namesrv.server import NameServer

    _check_data_dir(data_dir)

    def build(root: Path) -> NameServer:
        cfg = NamesrvConfig(
            listen_host=HOST,
            listen_port=port,
            data_dir=root,
            scan_interval=scan_interval,
            broker_expire=broker_expire,
            reset_unreadable_metadata=reset_unreadable_metadata,
            limits=_limits(idle_timeout, frame_timeout, partial_frame_memory),
        )
        return NameServer(cfg)

    def describe(server: NameServer, root: Path) -> tuple[Mapping[str, Any], list[str]]:
        info: DevNamesrvDoc = {"pid": os.getpid(), "namesrvAddr": server.addr, "dataDir": str(root)}
        return info, [f"NAMESRV_ADDR={server.addr}"]

    _serve_one(data_dir, build, describe)


@dev_command(
    "broker", "mqadmin dev broker -n 127.0.0.1:9876 --broker-name broker-c --port 10951", document=DevBrokerDoc
)
def broker(
    namesrv_addr: Annotated[
        str,
        Option(
            "--namesrv-addr",
            "-n",
            metavar="HOST:PORT[;HOST:PORT]",
            help="Name server(s) to register with: 'host:port[;host:port]'.",
        ),
    ] = "127.0.0.1:9876",
    broker_name: Annotated[str, Option("--broker-name", metavar="NAME", help="Broker name.")] = "broker-a",
    cluster: Annotated[str, Option("--cluster", metavar="NAME", help="Cluster name.")] = "DefaultCluster",
    port: Annotated[int, Option("--port", min=0, max=65535, metavar="PORT", help="Port; 0 picks a free one.")] = 10911,
    data_dir: DataDirOpt = None,
    auto_create: AutoCreateOpt = True,
    broker_id: Annotated[int, Option("--broker-id", min=0, metavar="ID", help="0 = master, >0 = slave.")] = 0,
    register_interval: Annotated[
        float,
        Option("--register-interval", min=0.05, metavar="SECONDS", help="Seconds between full registrations."),
    ] = 30.0,
    reset_unreadable_metadata: ResetMetadataOpt = False,
    idle_timeout: IdleTimeoutOpt = 120.0,
    frame_timeout: FrameTimeoutOpt = 30.0,
    partial_frame_memory: FrameMemoryOpt = 256,
) -> None:
    """Run one broker in the foreground until Ctrl-C or SIGTERM."""
    from mqadmin.admin import BadNameServerAddress, parse_namesrv_addrs
    from mqadmin.server.broker.broker import Broker
    from mqadmin.server.broker.config import BrokerConfig
    from mqadmin.server.dev import HOST

    try:
        addrs = parse_namesrv_addrs(namesrv_addr)
    except BadNameServerAddress as e:
        raise usage_error(str(e), "--namesrv-addr takes 'host:port' or 'host:port;host:port'") from None
    _check_data_dir(data_dir)

    def build(root: Path) -> Broker:
        cfg = BrokerConfig(
            broker_name=broker_name,
            cluster_name=cluster,
            broker_id=broker_id,
            listen_host=HOST,
            listen_port=port,
            namesrv_addrs=addrs,
            data_dir=root,
            auto_create_topic_enable=auto_create,
            register_interval=register_interval,
            reset_unreadable_metadata=reset_unreadable_metadata,
            limits=_limits(idle_timeout, frame_timeout, partial_frame_memory),
        )
        return Broker(cfg)

    def describe(server: Broker, root: Path) -> tuple[Mapping[str, Any], list[str]]:
        registered = server.registrar.registrations > 0
        if not registered:
            sys.stderr.write(f"mqadmin: warning: no name server at {namesrv_addr} took the registration yet\n")
        addr = server.config.addr
        info: DevBrokerDoc = {"pid": os.getpid(), "brokerName": broker_name, "brokerAddr": addr, "cluster": cluster,
                              "dataDir": str(root), "registered": registered}  # fmt: skip
        return info, [f"BROKER_ADDR={addr}"]

    _serve_one(data_dir, build, describe)


@dev_command("demo", "mqadmin dev demo", document=DevDemoDoc)
def demo() -> None:
    """Show both ways a topic comes to exist, on a throw-away cluster (free ports, temporary data).

    1. Pre-created with updateTopic -c: on every master of the cluster.

    2. Auto-created by a send to an unknown topic through TBW102: only on the broker that the send reached (the
    trap of autoCreateTopicEnable).
    """
    from mqadmin.server.dev import start_cluster

    async def main() -> None:
        from mqadmin.admin import AdminClient
        from mqadmin.admin.messaging import send_message
        from mqadmin.admin.topics import TopicChange
        from mqadmin.cli.settings import request_timeout

        cluster = await start_cluster(namesrv_port=0, broker_port=0)
        try:
            async with AdminClient([cluster.namesrv_addr], timeout=request_timeout()) as admin:
                report: dict[str, Any] = {"namesrvAddr": cluster.namesrv_addr, "cluster": cluster.cluster}
                targets = await admin.targets(None, cluster.cluster)
                await admin.update_topic_on(targets, TopicChange("DemoPrecreated"))
                report["precreated"] = {"route": await admin.topic_route("DemoPrecreated")}
                try:
                    # An unknown topic: the producer takes TBW102's route and one broker creates it.
                    sent = await send_message(admin, "DemoAutoCreated", b"hello from mqadmin dev demo")
                except Exception as e:  # the message path may refuse; report it instead of a traceback
                    report["autoCreated"] = {"error": f"the send failed: {e}"}
                else:
                    route = await admin.topic_route("DemoAutoCreated")
                    report["autoCreated"] = {"sentTo": sent.broker_name, "route": route}
        finally:
            await cluster.stop()
        _print_demo(report)
        if "error" in report["autoCreated"]:
            raise CliError(
                "the auto-creation half of the demo failed",
                "it needs the broker's message path (SEND_MESSAGE_V2); see the line above",
            )

    _run(main)


def _up_document(cluster: DevCluster, ready_seconds: float) -> DevUpDoc:
    tls = cluster.tls
    return {
        "pid": os.getpid(),
        "namesrvAddr": cluster.namesrv_addr,
        "cluster": cluster.cluster,
        "brokers": [
            {"name": b.config.broker_name, "addr": b.config.addr, "id": b.config.broker_id} for b in cluster.brokers
        ],
        "nsaddrUrl": cluster.address_server.url,
        "tlsCa": str(tls.ca_file) if tls else None,
        "tlsMode": None if tls is None else "permissive" if tls.permissive else "enforcing",
        "dataDir": str(cluster.data_dir),
        "temporaryDataDir": cluster.temporary,
        "autoCreateTopicEnable": all(b.config.auto_create_topic_enable for b in cluster.brokers),
        "authEnabled": any(b.config.auth is not None for b in cluster.brokers),
        "readySeconds": ready_seconds,
    }


def _print_demo(report: dict[str, Any]) -> None:
    from mqadmin.cli.views.route import print_route, route_json

    pre, auto = report["precreated"], report["autoCreated"]
    if _json():
        auto_doc: DemoAutoCreatedDoc | DemoSendFailedDoc = (
            {**route_json("DemoAutoCreated", auto["route"]), "sentTo": auto["sentTo"]}
            if "route" in auto
            else {"error": auto["error"]}
        )
        doc: DevDemoDoc = {
            "namesrvAddr": report["namesrvAddr"],
            "cluster": report["cluster"],
            "precreated": route_json("DemoPrecreated", pre["route"]),
            "autoCreated": auto_doc,
        }
        _print_json_line(doc)
        return
    ns, cluster = report["namesrvAddr"], report["cluster"]
    pre_brokers = sorted(q.broker_name for q in pre["route"].queue_datas)
    _print_lines(
        [
            f"Embedded cluster {cluster} started: name server {ns}, brokers {', '.join(pre_brokers)}.",
            "",
            f"1. Pre-created: mqadmin updateTopic -n {ns} -c {cluster} -t DemoPrecreated",
            f"   The topic is on every master ({', '.join(pre_brokers)}):",
            "",
        ]
    )
    print_route("DemoPrecreated", pre["route"])
    if "error" in auto:
        _print_lines(["", f"2. Auto-creation through TBW102 could not be shown: {auto['error']}"])
        return
    auto_brokers = sorted(q.broker_name for q in auto["route"].queue_datas)
    _print_lines(
        [
            "",
            f"2. Auto-created: mqadmin sendMessage -n {ns} -t DemoAutoCreated -p hello  (the topic did not exist)",
            f"   The producer used TBW102's route; the send reached {auto['sentTo']}, which created the topic from",
            f"   TBW102 and registered it. It is on {', '.join(auto_brokers)} only:",
            "",
        ]
    )
    print_route("DemoAutoCreated", auto["route"])
    _print_lines(
        [
            "",
            "Every later send follows that route, so one broker carries the whole topic (the auto-create trap).",
            "Create topics with updateTopic -c, and run brokers with --no-auto-create in production.",
            "The cluster is stopped and its data removed.",
        ]
    )


# --- helpers ------------------------------------------------------------------------------------


def _json() -> bool:
    from mqadmin.cli.settings import output_format

    return output_format() == OutputFormat.json


def _print_lines(lines: list[str]) -> None:
    sys.stdout.write("".join(line + "\n" for line in lines))
    sys.stdout.flush()


def _print_json_line(obj: Mapping[str, Any]) -> None:
    import json

    _print_lines([json.dumps(obj, ensure_ascii=False)])


def _ready(info: Mapping[str, Any], lines: list[str]) -> None:
    if _json():
        _print_json_line(info)
    else:
        _print_lines([*lines, "ready; Ctrl-C stops"])


def _auth_settings(path: Path | None) -> Any:
    """The checked --auth file, or None; a file that cannot be used is a usage error naming the entry."""
    if path is None:
        return None
    from mqadmin.server.auth.config import AuthFileError, load_auth_file

    try:
        return load_auth_file(path)
    except AuthFileError as e:
        raise usage_error(f"--auth {e}", "see the sample file in docs/dev-cluster.md (ACL 2.0)") from None


def _limits(idle_timeout: float, frame_timeout: float, partial_frame_memory_mib: int) -> Any:
    from mqadmin.server.remoting import ConnectionLimits

    return ConnectionLimits(idle_timeout, frame_timeout, partial_frame_memory_mib * 1024 * 1024)


def _check_data_dir(data_dir: Path | None) -> None:
    if data_dir is not None and data_dir.exists() and not data_dir.is_dir():
        raise usage_error(f"--data-dir {data_dir} exists and is not a directory", "pass a directory path")


class _DataRoot:
    """The given data directory, or a temporary one removed on exit."""

    def __init__(self, data_dir: Path | None) -> None:
        self._given = data_dir
        self._tmp: Any = None

    def __enter__(self) -> Path:
        if self._given is not None:
            self._given.mkdir(parents=True, exist_ok=True)
            return self._given
        import tempfile

        self._tmp = tempfile.TemporaryDirectory(prefix="mqadmin-dev-")
        return Path(self._tmp.name)

    def __exit__(self, *exc: object) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()


def _serve_one(
    data_dir: Path | None,
    build: Callable[[Path], Any],
    describe: Callable[[Any, Path], tuple[Mapping[str, Any], list[str]]],
) -> None:
    """Run one server (built for its data directory) in the foreground until a signal."""
    from mqadmin.server.dev import run_until_signalled

    async def main() -> None:
        with _DataRoot(data_dir) as root:
            server = build(root)
            await _starting(server.start(), "--port")
            info, lines = describe(server, root)
            await run_until_signalled(server.stop, lambda: _ready(info, lines))

    _run(main)


async def _starting(coro: Awaitable[Any], port_option: str) -> Any:
    """Await a server start, turning 'address in use' and unreadable metadata into one-line errors."""
    from mqadmin.server.persist import MetadataError

    try:
        return await coro
    except MetadataError as e:
        raise CliError(
            f"cannot start: {e}",
            "restore the file from a copy, or pass --reset-unreadable-metadata to start with it empty",
            ExitCode.FAILURE,
        ) from None
    except OSError as e:
        if e.errno == errno.EADDRINUSE:
            raise CliError(
                f"a port is already in use on 127.0.0.1 ({e.strerror})",
                f"stop the other server, or pass {port_option} 0 to pick free ports",
                ExitCode.FAILURE,
            ) from None
        raise


def _run(main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    import logging

    from mqadmin.server.loop import run

    logging.basicConfig(
        level=logging.DEBUG if GLOBAL.debug else logging.WARNING,
        format="%(asctime)s %(levelname)s %(message)s",
        stream=sys.stderr,
    )
    run(main)
