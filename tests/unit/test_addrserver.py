"""Name servers from an address server: a real HTTP server on loopback answering as scripted (bodies, errors,
hangs), fetched with httpx: retries, timeouts, bad bodies, the cache and its stale fallback, https verified
with our CA, and the CLI using the list it gives."""

from __future__ import annotations

import http.server
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from mqadmin.admin.addrserver import AddressServerError, fetch_namesrv_list
from mqadmin.admin.namesrv import address_server_url, parse_namesrv_addrs
from mqadmin.cli import runner
from mqadmin.model.rpc import namesrv
from tests.mock_transport import MockTransport, ok, routes
from tests.unit.cli_helpers import assert_one_line_error
from tests.unit.test_settings import run, write_config


class AddressServer:
    """Answers GET with the next scripted (status, body); ``"hang"`` holds the request until stop."""

    def __init__(self, script: list[tuple[int, str] | str], tls: ssl.SSLContext | None = None) -> None:
        self.script = list(script)
        self.hits = 0
        self.release = threading.Event()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                outer.hits += 1
                step = outer.script.pop(0) if len(outer.script) > 1 else outer.script[0]
                if step == "hang":
                    outer.release.wait(30)
                    return
                status, body = step
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        if tls is not None:
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
        scheme = "https" if tls else "http"
        self.url = f"{scheme}://127.0.0.1:{self.httpd.server_address[1]}/rocketmq/nsaddr"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@contextmanager
def address_server(*script: tuple[int, str] | str, tls: ssl.SSLContext | None = None) -> Iterator[AddressServer]:
    srv = AddressServer(list(script), tls)
    try:
        yield srv
    finally:
        srv.stop()


def fetch(url: str, **kw: object) -> list[str]:
    return fetch_namesrv_list(url, parse=parse_namesrv_addrs, **kw)  # type: ignore[arg-type]


def test_which_values_are_address_servers() -> None:
    assert address_server_url("http://ns.example:8080/rocketmq/nsaddr") == "http://ns.example:8080/rocketmq/nsaddr"
    assert address_server_url("https://ns.example/") == "https://ns.example/"
    assert address_server_url("http://10.0.0.1:9876") is None  # RocketMQ 5.x's endpoint form: the name server
    assert address_server_url("http://x/10.0.0.1:9876;10.0.0.2:9876") is None
    assert address_server_url("10.0.0.1:9876") is None


def test_the_first_line_is_the_list() -> None:
    with address_server((200, " 127.0.0.1:9876;127.0.0.2:9876 \nignored\n")) as srv:
        assert fetch(srv.url) == ["127.0.0.1:9876", "127.0.0.2:9876"]


def test_server_errors_are_retried_client_errors_are_not() -> None:
    with address_server((503, "busy"), (500, "oops"), (200, "127.0.0.1:9876")) as srv:
        assert fetch(srv.url) == ["127.0.0.1:9876"] and srv.hits == 3
    with address_server((503, "busy")) as srv:
        with pytest.raises(AddressServerError, match=r"HTTP 503 \(3 attempts\)"):
            fetch(srv.url)
        assert srv.hits == 3
    with address_server((404, "not here")) as srv:
        with pytest.raises(AddressServerError, match="answered HTTP 404"):
            fetch(srv.url)
        assert srv.hits == 1


def test_a_server_that_does_not_answer_times_out() -> None:
    with (
        address_server("hang") as srv,
        pytest.raises(AddressServerError, match=r"no answer within 0.2s \(2 attempts\)"),
    ):
        fetch(srv.url, timeout=0.2, attempts=2)


def test_nothing_listening() -> None:
    with address_server((200, "")) as srv:
        url = srv.url
    with pytest.raises(AddressServerError, match="cannot connect"):
        fetch(url, attempts=1)


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ("", "answered an empty body"),
        ("<html><body>Welcome</body></html>", "not a name-server list"),
        ("127.0.0.1:9876;127.0.0.1:99999", "not a name-server list"),
        (";;", "lists no name server"),
    ],
)
def test_bad_bodies_are_named(body: str, fragment: str) -> None:
    with address_server((200, body)) as srv, pytest.raises(AddressServerError) as e:
        fetch(srv.url)
    assert fragment in str(e.value) and srv.url in str(e.value)


def test_cached_briefly_and_used_stale_when_the_server_is_gone() -> None:
    warnings: list[str] = []
    with address_server((200, "127.0.0.1:9876")) as srv:
        assert fetch(srv.url) == ["127.0.0.1:9876"]
        assert fetch(srv.url) == ["127.0.0.1:9876"]
        assert srv.hits == 1
        url = srv.url
    assert fetch(url, ttl=0, attempts=1, warn=warnings.append) == ["127.0.0.1:9876"]
    assert len(warnings) == 1 and "using the list it gave" in warnings[0]


def test_https_is_verified(tmp_path, monkeypatch, capsys) -> None:
    from tests.tlscerts import make_certs, skip_reason

    if skip_reason():
        pytest.skip(skip_reason())
    certs = make_certs(tmp_path / "certs")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(str(certs.server_cert), str(certs.server_key))
    with address_server((200, "127.0.0.1:9876"), tls=ctx) as srv:
        with pytest.raises(AddressServerError, match="certificate was not accepted"):
            fetch(srv.url, attempts=1)
        transport = MockTransport(routes({namesrv.GET_ALL_TOPIC_LIST_FROM_NAMESERVER: ok([])}))
        monkeypatch.setattr(runner, "transport_factory", lambda: transport)
        refused = run(monkeypatch, capsys, "topicList", "-n", srv.url, "--tls-ca", str(certs.other_ca))
        assert refused.code == 4 and "certificate was not accepted" in refused.err
        assert run(monkeypatch, capsys, "topicList", "-n", srv.url, "--tls-ca", str(certs.ca)).code == 0
        assert fetch(srv.url, verify=ssl.create_default_context(cafile=str(certs.ca)), ttl=0) == ["127.0.0.1:9876"]


def test_cli_uses_the_listed_name_servers(monkeypatch, capsys) -> None:
    transport = MockTransport(routes({namesrv.GET_ALL_TOPIC_LIST_FROM_NAMESERVER: ok([])}))
    monkeypatch.setattr(runner, "transport_factory", lambda: transport)
    with address_server((200, "127.0.0.7:9876;127.0.0.8:9876")) as srv:
        r = run(monkeypatch, capsys, "topicList", "-n", srv.url, "--debug")
        assert r.code == 0, r.err
        assert f"name servers from the address server {srv.url}" in r.err
        assert {addr for addr, _ in transport.sent} <= {"127.0.0.7:9876", "127.0.0.8:9876"}
        write_config(f'current = "p"\n[profiles.p]\nnamesrv = "{srv.url}"\n')
        assert run(monkeypatch, capsys, "topicList").code == 0
    with address_server((404, "")) as srv:
        r = run(monkeypatch, capsys, "topicList", "-n", srv.url)
    assert r.code == 4
    assert_one_line_error(r, f"address server {srv.url}: answered HTTP 404", "give the name servers with -n")
