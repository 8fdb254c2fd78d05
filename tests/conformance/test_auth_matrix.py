"""The authorization matrix, proven against Apache RocketMQ 5.5.0 with ACL 2.0: the same users and policies on a
secured Apache 5.5.0 cluster and on ``mqadmin dev up --auth``, then every request code both serve, sent to the
broker (broker codes) and to the name server (name-server codes) by each of:

* ``root``, the Super user: never refused (a code Apache answers REQUEST_CODE_NOT_SUPPORTED is not served);
* ``alice``, a Normal user allowed only ``Pub`` on ``Topic:Orders`` (issue 26's probe);
* ``bob``, a Normal user allowed everything on exactly the topic, group and cluster the requests name;
* nobody: the request unsigned;

and the broker codes once more by alice and bob with every topic field naming ``%RETRY%G`` (``RETRY``).

Refused means the answer is NO_PERMISSION (16); anything else (an answer, a handler's error, no answer in time)
means it got past authorization. Both sides must refuse exactly the same (code, user) pairs, except the
deliberate differences listed in ``DIFFERENCES``. One cluster per backend; each user's requests go out together.

Every ext field any Apache 5.5.0 request header declares is sent with a harmless value (read from the
rocketmq-remoting jar): Apache decodes the header before it authorizes, and a header it cannot decode is refused
with 16 even for a Super user. Names point nowhere that matters: broker ``nosuchBroker`` at ``127.0.0.1:1``, user
``victim``, client ``nosuchClient``.
"""

from __future__ import annotations

import asyncio
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from mqadmin.model.auth import AclInfo, Policy, PolicyEntry, UserInfo
from mqadmin.model.clients import ConsumerData, HeartbeatData, LockBatchBody
from mqadmin.model.queue import MessageQueue
from mqadmin.model.rpc import auth as auth_rpc
from mqadmin.model.rpc import clients, topics
from mqadmin.model.tags import SubscriptionData
from mqadmin.model.topic import TopicConfig
from mqadmin.transport.credentials import Credentials
from mqadmin.transport.errors import TransportError
from mqadmin.transport.tcp import TcpTransport
from mqadmin.wire.codes import RequestCode, ResponseCode, request_name
from mqadmin.wire.frame import RemotingCommand
from tests.conformance.secured import SUPER_USER, secured_cluster, secured_dev_up, version_skip_reason
from tests.conftest import wait_until
from tests.realrmq.classfile import parse

pytestmark = [pytest.mark.conformance, pytest.mark.timeout(1200)]

VERSION = "5.5.0"
TOPIC, GROUP = "T", "G"
USERS = {"alice": "alice-secret-1", "bob": "bob-secret-2"}
WHO = ("root", "alice", "bob", None)
"""The senders: the Super user, the narrow and the matching Normal user, and an unsigned request."""

RETRY, RETRY_TOPIC = "broker, topics %RETRY%G", f"%RETRY%{GROUP}"
RETRY_WHO = ("alice", "bob")
"""The broker codes are sent a second time by the Normal users, every topic field naming the retry topic of group
G: Apache takes it for Group:G (bob is allowed it without any policy on Topic:%RETRY%G)."""

DIFFERENCES: dict[tuple[int, str | None], str] = {
    (RequestCode.UPDATE_AND_CREATE_TOPIC_LIST, "alice"): (
        "deliberate: Apache 5.5.0 names no resource for UPDATE_AND_CREATE_TOPIC_LIST, so any user can create any "
        "topic through it; the embedded broker needs Create on each topic of the body (mqadmin.model.access)"
    ),
}
"""(code, user) pairs where the embedded cluster refuses and Apache does not, or the reverse, and why."""


@dataclass
class Backend:
    namesrv: str
    broker: str
    cluster: str


NUMBERS = {"perm": "6", "readQueueNums": "1", "writeQueueNums": "1"}
"""Numbers other than 0: a topic root creates stays readable and writable."""


def _string_value(name: str, cluster: str) -> str:
    lowered = name.lower()
    fixed = {
        "b": TOPIC, "a": GROUP, "c": "TBW102", "clustername": cluster, "brokername": "nosuchBroker",
        "brokeraddr": "127.0.0.1:1", "username": "victim", "subject": "User:victim", "clientid": "nosuchClient",
        "statsname": "TOPIC_PUT_NUMS", "statskey": TOPIC, "topiclist": TOPIC, "namespace": "mqadminMatrix",
        "key": "k", "msgid": "0A0000010000000000000000", "uniqkey": "0A0000010000000000000000",
        "topicfiltertype": "SINGLE_TAG", "attributes": "", "properties": "",
    }  # fmt: skip
    if lowered in fixed:
        return fixed[lowered]
    if "topic" in lowered:
        return TOPIC
    if "group" in lowered:
        return GROUP
    return "x"


def header_fields(lib: Path, cluster: str) -> dict[str, str]:
    """A value for every field of every request header in Apache's rocketmq-remoting: text, ``0`` or ``false``."""
    out: dict[str, str] = {}
    with zipfile.ZipFile(lib / f"rocketmq-remoting-{VERSION}.jar") as z:
        for entry in sorted(z.namelist()):
            if "/protocol/header/" not in entry or not entry.endswith(".class") or "ResponseHeader" in entry:
                continue
            for f in parse(z.read(entry)).fields:
                if f.name in out or f.name.startswith("$") or f.name.isupper():
                    continue
                if f.descriptor == "Ljava/lang/String;":
                    out[f.name] = _string_value(f.name, cluster)
                elif f.descriptor in ("I", "J", "S", "B", "Ljava/lang/Integer;", "Ljava/lang/Long;"):
                    out[f.name] = NUMBERS.get(f.name, "0")
                elif f.descriptor in ("Z", "Ljava/lang/Boolean;"):
                    out[f.name] = "false"
    return out


def body_of(code: int) -> bytes:
    """The bodies Apache's authorization reads itself (a heartbeat, a queue lock), and the topic list we check."""
    if code == RequestCode.HEART_BEAT:
        consumer = ConsumerData(GROUP, subscriptions=(SubscriptionData(TOPIC, "*"),))
        return clients.HEART_BEAT.request(body=HeartbeatData("nosuchClient", (consumer,), ())).body
    if code in (RequestCode.LOCK_BATCH_MQ, RequestCode.UNLOCK_BATCH_MQ):
        lock = LockBatchBody(GROUP, "nosuchClient", (MessageQueue(TOPIC, "nosuchBroker", 0),))
        return clients.LOCK_BATCH_MQ.request(body=lock).body
    if code == RequestCode.UPDATE_AND_CREATE_TOPIC_LIST:
        return topics.UPDATE_AND_CREATE_TOPIC_LIST.request(body=[TopicConfig(TOPIC, 1, 1)]).body
    return b""


def embedded_codes() -> dict[str, set[int]]:
    """The codes the embedded broker (with ACL on) and name server serve."""
    import tempfile

    from mqadmin.server.auth.config import parse_auth
    from mqadmin.server.broker.broker import Broker
    from mqadmin.server.broker.config import BrokerConfig
    from mqadmin.server.namesrv.config import NamesrvConfig
    from mqadmin.server.namesrv.server import NameServer

    auth = parse_auth({"users": [{"username": "u", "password": "p", "type": "Super"}]})
    with tempfile.TemporaryDirectory() as tmp:
        broker = Broker(BrokerConfig(data_dir=Path(tmp) / "b", auth=auth))
        namesrv = NameServer(NamesrvConfig(data_dir=Path(tmp) / "n"))
        return {"broker": set(broker.server.served()), "namesrv": set(namesrv.server.served())}


def _credentials(who: str | None) -> Credentials | None:
    if who is None:
        return None
    return Credentials(*SUPER_USER) if who == "root" else Credentials(who, USERS[who])


Answer = tuple[int | None, str]
"""An answer's code (None: no answer in time) and the start of its remark."""


BUSY_RESENDS = 5
"""How often a request a broker answered SYSTEM_BUSY is sent again, alone: Apache's send-queue flow control
(``[TIMEOUT_CLEAN_QUEUE]``, a request waiting over 200 ms) answers before any permission check on a loaded machine."""


async def _send_all(addr: str, codes: list[int], who: str | None, fields: dict[str, str]) -> dict[int, Answer]:
    """Each code's answer, all sent at once on one connection; those answered SYSTEM_BUSY sent again one by one."""
    transport = TcpTransport(timeout=30.0, connect_timeout=30.0, credentials=_credentials(who))

    async def one(code: int) -> Answer:
        try:
            resp = await transport.request(addr, RemotingCommand(code=code, ext=dict(fields), body=body_of(code)))
        except (TransportError, TimeoutError) as e:
            return None, str(e)[:120]
        return resp.code, (resp.remark or "")[:120]

    try:
        answers = dict(zip(codes, await asyncio.gather(*(one(c) for c in codes)), strict=True))
        for code, answer in answers.items():
            for _ in range(BUSY_RESENDS):
                if answer[0] != ResponseCode.SYSTEM_BUSY:
                    break
                answer = answers[code] = await one(code)
    finally:
        await transport.aclose()
    return answers


async def _setup(b: Backend) -> None:
    """alice and bob, and their policies, created by the Super user on the broker; then wait until both sign in."""
    root = TcpTransport(timeout=30.0, connect_timeout=30.0, credentials=_credentials("root"))
    bob_resources = (f"Topic:{TOPIC}", f"Group:{GROUP}", f"Cluster:{b.cluster}")
    acls = {
        "alice": (PolicyEntry("Topic:Orders", ("Pub",), "Allow"),),
        "bob": tuple(PolicyEntry(r, ("All",), "Allow") for r in bob_resources),
    }
    try:
        for name, secret in USERS.items():
            user = auth_rpc.AUTH_CREATE_USER.request(
                auth_rpc.UsernameHeader(username=name), UserInfo(name, secret, "Normal")
            )
            resp = await root.request(b.broker, user)
            assert resp.code == ResponseCode.SUCCESS, resp.remark
            acl = auth_rpc.AUTH_CREATE_ACL.request(
                auth_rpc.SubjectHeader(subject=f"User:{name}"), AclInfo(f"User:{name}", (Policy(acls[name]),))
            )
            resp = await root.request(b.broker, acl)
            assert resp.code == ResponseCode.SUCCESS, resp.remark
    finally:
        await root.aclose()


def _signed_in(b: Backend) -> bool:
    """Both users authenticate (a Get on the cluster, which alice may not do, is refused for that reason only)."""

    async def check() -> bool:
        for who in USERS:
            answers = await _send_all(b.broker, [RequestCode.GET_BROKER_RUNTIME_INFO], who, {})
            if answers[RequestCode.GET_BROKER_RUNTIME_INFO][0] != ResponseCode.SUCCESS:
                return False
        return True

    return asyncio.run(check())


def matrix(b: Backend, lib: Path) -> dict[str, dict[str | None, dict[int, Answer]]]:
    """side -> sender -> code -> answer code, for the codes the embedded side serves."""
    asyncio.run(_setup(b))
    wait_until(lambda: _signed_in(b), timeout=120, interval=0.5, what="alice and bob authenticate")
    fields = header_fields(lib, b.cluster)
    codes = embedded_codes()
    out: dict[str, dict[str | None, dict[int, Answer]]] = {"broker": {}, "namesrv": {}, RETRY: {}}
    for side, addr in (("broker", b.broker), ("namesrv", b.namesrv)):
        for who in WHO:  # root first: alice's and bob's requests find what root's created, on both backends alike
            out[side][who] = asyncio.run(_send_all(addr, sorted(codes[side]), who, fields))
    retry = {k: RETRY_TOPIC if v == TOPIC else v for k, v in fields.items()}
    for who in RETRY_WHO:
        out[RETRY][who] = asyncio.run(_send_all(b.broker, sorted(codes["broker"]), who, retry))
    return out


@pytest.fixture(scope="module")
def lib() -> Path:
    if (reason := version_skip_reason(VERSION)) is not None:
        pytest.skip(reason)
    from tests.realrmq.apache import ensure_distribution

    return ensure_distribution(VERSION) / "lib"


@pytest.fixture(scope="module")
def apache_matrix(lib: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    work = tmp_path_factory.mktemp("matrix-apache")
    with secured_cluster(VERSION, work, auth=True, brokers=1) as c:
        yield matrix(Backend(c.namesrv_addr, c.brokers["broker-a"], c.cluster), lib)


@pytest.fixture(scope="module")
def embedded_matrix(lib: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    with secured_dev_up(tmp_path_factory.mktemp("matrix-embedded")) as info:
        yield matrix(Backend(info["namesrvAddr"], info["brokers"][0]["addr"], info["cluster"]), lib)


def _name(code: int) -> str:
    return f"{code} {request_name(code) or ''}".strip()


def both_served(apache: dict, embedded: dict, side: str) -> list[int]:
    """Codes neither answers REQUEST_CODE_NOT_SUPPORTED to the Super user."""
    unsupported = ResponseCode.REQUEST_CODE_NOT_SUPPORTED
    side = "broker" if side == RETRY else side
    root = apache[side]["root"]
    return sorted(c for c, a in root.items() if a[0] != unsupported and embedded[side]["root"][c][0] != unsupported)


def refused(answer: Answer) -> bool:
    return answer[0] == ResponseCode.NO_PERMISSION


@pytest.mark.parametrize("side", ["broker", "namesrv", RETRY])
def test_the_same_requests_are_refused_to_the_same_users_as_apache_5_5(side: str, apache_matrix, embedded_matrix):
    codes = both_served(apache_matrix, embedded_matrix, side)
    assert len(codes) > (15 if side == "namesrv" else 60), f"too few codes served by both: {codes}"
    differ = {}
    for code in codes:
        for who in apache_matrix[side]:
            a, e = apache_matrix[side][who][code], embedded_matrix[side][who][code]
            if refused(a) != refused(e):
                differ[(code, who)] = f"{_name(code)} as {who or 'nobody'}: Apache answered {a}, embedded {e}"
    expected = {
        k: v for k, v in DIFFERENCES.items() if side != "namesrv" and k[0] in codes and k[1] in apache_matrix[side]
    }
    assert set(differ) == set(expected), "\n".join(differ[k] for k in sorted(set(differ) - set(expected), key=str))


ROOT_REFUSED = {
    RequestCode.AUTH_DELETE_ACL: "the handler's own refusal: user victim has no ACL ('The subject is not exist.')",
    RequestCode.AUTH_GET_ACL: "the handler's own refusal: user victim does not exist ('The subject is not exist.')",
}
"""Codes answered NO_PERMISSION to the Super user by their handler (past authorization), on both sides."""


def test_the_super_user_is_never_refused_and_nobody_unsigned_reaches_a_broker(apache_matrix, embedded_matrix):
    for m in (apache_matrix, embedded_matrix):
        codes = both_served(apache_matrix, embedded_matrix, "broker")
        assert {c for c in codes if refused(m["broker"]["root"][c])} == set(ROOT_REFUSED)
        assert [c for c in codes if not refused(m["broker"][None][c])] == []


def test_the_name_server_checks_nothing_as_apaches(apache_matrix, embedded_matrix):
    """Apache 5.5.0's name server has no authentication or authorization: nobody is refused anything."""
    codes = both_served(apache_matrix, embedded_matrix, "namesrv")
    for m in (apache_matrix, embedded_matrix):
        assert [(c, w) for c in codes for w in WHO if refused(m["namesrv"][w][c])] == []


def test_issue_26_codes_are_refused_to_alice_on_both(apache_matrix, embedded_matrix):
    issue = [222, 203, 223, 307, 309, 321, 354, 204, 315, 317, 328, 355]
    for m in (apache_matrix, embedded_matrix):
        assert [c for c in issue if not refused(m["broker"]["alice"][c])] == []
        assert [c for c in issue if refused(m["broker"]["bob"][c])] == []
