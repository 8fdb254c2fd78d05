"""TLS: the client context built from TlsSettings (files checked and named), and real handshakes on loopback
against servers with our test CA: verification by CA and by name, the server-name override, --tls-insecure,
mutual TLS, and the errors (and hints) for each way it fails, with the asyncio and the blocking transport."""

from __future__ import annotations

import ssl
from collections.abc import Callable

import pytest

from mqadmin.transport.blocking import BlockingTransport
from mqadmin.transport.errors import ConnectionClosed, TlsHandshakeFailed, TransportError
from mqadmin.transport.gather import run_to_end
from mqadmin.transport.tcp import TcpTransport
from mqadmin.transport.tls import TlsConfigError, TlsSettings
from mqadmin.wire.codes import RequestCode
from mqadmin.wire.frame import RemotingCommand
from tests.tlscerts import Certs, make_certs, skip_reason
from tests.unit.cli_helpers import assert_one_line_error
from tests.unit.recording_server import recording_server, server_tls
from tests.unit.test_settings import run  # at collection: see test_cli_tls_options_profile_and_errors

pytestmark = pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    return make_certs(tmp_path_factory.mktemp("certs"))


Ask = Callable[[str, "TlsSettings | None"], RemotingCommand]


@pytest.fixture(params=["asyncio", "blocking"])
def ask(request: pytest.FixtureRequest) -> Ask:
    """GET_ALL_TOPIC_LIST_FROM_NAMESERVER over TcpTransport (asyncio) or BlockingTransport (as the CLI runs it)."""

    def one(addr: str, tls: TlsSettings | None) -> RemotingCommand:
        import asyncio

        cmd = RemotingCommand(code=RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER)
        transport = (TcpTransport if request.param == "asyncio" else BlockingTransport)(timeout=5, tls=tls)

        async def go() -> RemotingCommand:
            try:
                return await transport.request(addr, cmd)
            finally:
                await transport.aclose()

        return asyncio.run(go()) if request.param == "asyncio" else run_to_end(go())

    return one


def test_unusable_files_are_named(certs: Certs, tmp_path) -> None:
    with pytest.raises(TlsConfigError, match="cannot read the CA file /nonexistent/ca.pem"):
        TlsSettings(ca_file="/nonexistent/ca.pem").context()
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate\n")
    with pytest.raises(TlsConfigError, match=f"the CA file {junk} holds no usable PEM"):
        TlsSettings(ca_file=str(junk)).context()
    with pytest.raises(TlsConfigError, match="client key was given without a client certificate"):
        TlsSettings(key_file=str(certs.client_key)).context()
    with pytest.raises(TlsConfigError, match="cannot load the client certificate and key"):
        TlsSettings(cert_file=str(certs.client_cert), key_file=str(certs.server_key)).context()


def test_server_verified_by_ca_and_by_name(certs: Certs, ask: Ask) -> None:
    with recording_server(server_tls(str(certs.server_cert), str(certs.server_key))) as srv:
        assert ask(srv.addr, TlsSettings(ca_file=str(certs.ca))).code == 0
        assert ask(srv.addr, TlsSettings(ca_file=str(certs.ca), server_name="rocketmq.test")).code == 0
        with pytest.raises(TlsHandshakeFailed) as wrong_name:
            ask(srv.addr, TlsSettings(ca_file=str(certs.ca), server_name="other.test"))
        assert wrong_name.value.verify and "other.test" in str(wrong_name.value)
        with pytest.raises(TlsHandshakeFailed) as other_ca:
            ask(srv.addr, TlsSettings(ca_file=str(certs.other_ca)))
        assert other_ca.value.verify
        with pytest.raises(TlsHandshakeFailed):  # our CA is not among the system's
            ask(srv.addr, TlsSettings())
        assert ask(srv.addr, TlsSettings(insecure=True)).code == 0
        with pytest.raises(ConnectionClosed):  # plaintext to a TLS-only server: dropped
            ask(srv.addr, None)


def test_mutual_tls(certs: Certs, ask: Ask) -> None:
    ctx = server_tls(str(certs.server_cert), str(certs.server_key), client_ca=str(certs.ca))
    with recording_server(ctx) as srv:
        with_cert = TlsSettings(ca_file=str(certs.ca), cert_file=str(certs.client_cert), key_file=str(certs.client_key))
        assert ask(srv.addr, with_cert).code == 0
        with pytest.raises(TransportError):
            ask(srv.addr, TlsSettings(ca_file=str(certs.ca)))


def test_tls_to_a_plaintext_server_says_so(ask: Ask) -> None:
    with recording_server() as srv, pytest.raises(TlsHandshakeFailed, match="is TLS enabled on that server"):
        ask(srv.addr, TlsSettings(insecure=True))


def test_cli_tls_options_profile_and_errors(certs: Certs, monkeypatch, capsys, tmp_path) -> None:
    # ``run`` is imported with the module: importing it here made pytest parse test_settings.py after the tests
    # above had left event loops and sockets to the collector, and Python 3.11's parser fails ("AST constructor
    # recursion depth mismatch") when their finalizers run during the parse.
    with recording_server(server_tls(str(certs.server_cert), str(certs.server_key))) as srv:
        ok = run(monkeypatch, capsys, "topicList", "-n", srv.addr, "--tls-ca", str(certs.ca))
        assert ok.code == 0 and ok.out == "Orders\n", ok.err
        insecure = run(monkeypatch, capsys, "topicList", "-n", srv.addr, "--tls-insecure")
        assert insecure.code == 0 and "without verifying server certificates" in insecure.err
        refused = run(monkeypatch, capsys, "topicList", "-n", srv.addr, "--tls-ca", str(certs.other_ca))
        assert refused.code == 4
        assert_one_line_error(refused, "certificate was not accepted", "--tls-ca FILE")
        plain = run(monkeypatch, capsys, "topicList", "-n", srv.addr)
        assert plain.code == 4 and "if it enforces TLS (tls.server.mode=enforcing), pass --tls" in plain.err
        monkeypatch.setenv("MQADMIN_TLS_CA", str(certs.ca))
        assert run(monkeypatch, capsys, "topicList", "-n", srv.addr).code == 0  # env turns TLS on
        off = run(monkeypatch, capsys, "topicList", "-n", srv.addr, "--no-tls")
        assert off.code == 4
    missing = run(monkeypatch, capsys, "topicList", "-n", "127.0.0.1:1", "--tls-ca", str(tmp_path / "none.pem"))
    assert missing.code == 2
    assert_one_line_error(missing, f"cannot read the CA file {tmp_path / 'none.pem'}")


@pytest.mark.timeout(60)  # without the fix, closing waits for the whole (raised) shutdown timeout
def test_closing_does_not_wait_for_the_servers_close_notify(certs: Certs, monkeypatch) -> None:
    """Apache RocketMQ's Netty servers never answer our close_notify; asyncio would wait for it (30 s by
    default, after every TLS CLI call). The server here never answers either, and that wait is made endless."""
    import asyncio
    import contextlib
    import socket
    import threading

    from mqadmin.transport.tcp import Connection

    monkeypatch.setattr(asyncio.constants, "SSL_SHUTDOWN_TIMEOUT", 3600.0)
    ctx = server_tls(str(certs.server_cert), str(certs.server_key))
    accepted: list[ssl.SSLSocket] = []
    seen: list[bytes] = []
    with socket.create_server(("127.0.0.1", 0)) as listener:

        def serve_without_answering() -> None:
            tls = ctx.wrap_socket(listener.accept()[0], server_side=True)
            accepted.append(tls)
            seen.append(tls.recv(1))  # b"": our close_notify, which unwrap() would answer; it is never called

        server = threading.Thread(target=serve_without_answering, daemon=True)
        server.start()

        async def open_and_close() -> None:
            tls = TlsSettings(ca_file=str(certs.ca)).context()
            conn = await Connection.open(f"127.0.0.1:{listener.getsockname()[1]}", timeout=5, ssl=tls)
            await conn.close()

        try:
            asyncio.run(open_and_close())
            server.join()
        finally:
            for s in accepted:  # unblocks the server when the client hung
                with contextlib.suppress(OSError):
                    socket.socket.shutdown(s, socket.SHUT_RDWR)
                s.close()
    assert seen == [b""]
