"""The --auth file's checks, ACL 2.0 decisions and signature checks of the embedded servers, without a
network (tests/server/test_dev_auth.py runs them on a real cluster)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from mqadmin.model.auth import AclInfo, Policy, PolicyEntry, UserInfo
from mqadmin.model.clients import ConsumerData, HeartbeatData, LockBatchBody
from mqadmin.model.queue import MessageQueue
from mqadmin.model.rpc import clients, messages, topics
from mqadmin.model.tags import SubscriptionData
from mqadmin.server.auth.config import AuthFileError, load_auth_file, parse_auth
from mqadmin.server.auth.guard import Guard
from mqadmin.server.auth.policy import decide
from mqadmin.server.auth.store import AuthRefused, AuthStore
from mqadmin.wire.codes import ResponseCode
from mqadmin.wire.frame import RemotingCommand
from mqadmin.wire.signing import signed_ext

GOOD = """
[[users]]
username = "admin"
password = "s3cret"
type = "super"

[[users]]
username = "alice"
password = "alice-pw"

[[acls]]
subject = "User:alice"
policies = [{ resource = "Topic:Orders", actions = ["pub"], decision = "allow", sourceIps = ["10.0.0.0/8"] }]
"""


def parse(text: str):
    return parse_auth(tomllib.loads(text))


def test_a_good_file_is_read_with_defaults_and_canonical_names():
    settings = parse(GOOD)
    assert settings.users == (
        UserInfo("admin", "s3cret", "Super", "enable"),
        UserInfo("alice", "alice-pw", "Normal", "enable"),
    )
    entry = settings.acls[0].policies[0].entries[0]
    assert entry == PolicyEntry("Topic:Orders", ("Pub",), "Allow", ("10.0.0.0/8",))
    assert settings.internal.username == "admin"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[[users]]\nusername = "a"\npassword = "p"\n', "no Super user"),
        ('[[users]]\nusername = "a"\npassword = "p"\ntype = "Root"\n', "users[0] (a): 'Root' is not a known user type"),
        ('[[users]]\nusername = "a"\ntype = "Super"\n', "users[0] (a): password must be a non-empty string"),
        (GOOD + '[[users]]\nusername = "alice"\npassword = "x"\n', "user 'alice' is defined twice"),
        (GOOD.replace('"pub"', '"Publish"'), "acls[0] (User:alice) policies[0]: 'Publish' is not a known action"),
        (GOOD.replace("Topic:Orders", "Queue:Orders"), "acls[0] (User:alice) policies[0]: 'Queue' is not a known"),
        (GOOD.replace("10.0.0.0/8", "ten"), "policies[0]: 'ten' is not an IP address or CIDR block"),
        (GOOD.replace('subject = "User:alice"', 'subject = "User:carol"'), "User:carol is not a user of this file"),
        (GOOD + "[extra]\n", "unknown key 'extra'"),
    ],
)
def test_a_bad_file_is_refused_naming_the_entry(text, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        parse(text)


def test_load_auth_file_names_the_file_on_one_line(tmp_path: Path):
    path = tmp_path / "auth.toml"
    path.write_text("[[users]\n")
    with pytest.raises(AuthFileError) as e:
        load_auth_file(path)
    assert str(e.value).startswith(f"{path}: not valid TOML") and "\n" not in str(e.value)


def acl(*entries: PolicyEntry, default: tuple[PolicyEntry, ...] = ()) -> AclInfo:
    policies = (Policy(entries, "Custom"),) + ((Policy(default, "Default"),) if default else ())
    return AclInfo("User:alice", policies)


def allow(resource: str, *actions: str, ips: tuple[str, ...] = ()) -> PolicyEntry:
    return PolicyEntry(resource, actions, "Allow", ips)


def deny(resource: str, *actions: str) -> PolicyEntry:
    return PolicyEntry(resource, actions, "Deny")


def test_decide_ranks_literal_before_prefix_before_type_wildcard_before_any():
    rules = acl(allow("*", "All"), deny("Topic:*", "Pub"), allow("Topic:Ord*", "Pub"), deny("Topic:Orders", "Pub"))
    assert decide(rules, "Topic:Orders", ("Pub",), "127.0.0.1") == "the decision is deny."
    assert decide(rules, "Topic:Order2", ("Pub",), "127.0.0.1") is None  # the prefix beats Topic:*
    assert decide(rules, "Topic:Other", ("Pub",), "127.0.0.1") == "the decision is deny."
    assert decide(rules, "Group:G", ("Sub",), "127.0.0.1") is None  # only "*" matches


def test_decide_longer_prefix_first_and_deny_first_at_equal_rank():
    assert decide(acl(allow("Topic:O*", "Pub"), deny("Topic:Ord*", "Pub")), "Topic:Ord1", ("Pub",), "1.2.3.4")
    assert decide(acl(allow("Topic:A", "Pub"), deny("Topic:A", "Pub")), "Topic:A", ("Pub",), "1.2.3.4")


def test_decide_needs_an_action_and_the_source_ip_and_falls_back_to_the_default_policy():
    rules = acl(allow("Topic:A", "Sub", ips=("10.0.0.0/8",)), default=(allow("Topic:B", "Pub"),))
    assert decide(rules, "Topic:A", ("Pub",), "10.1.1.1") == "no matched policies."
    assert decide(rules, "Topic:A", ("Sub", "Get"), "10.1.1.1") is None
    assert decide(rules, "Topic:A", ("Sub",), "127.0.0.1") == "no matched policies."
    assert decide(rules, "Topic:B", ("Pub",), "127.0.0.1") is None
    assert decide(None, "Topic:B", ("Pub",), "127.0.0.1") == "no matched policies."


USERS = {
    "admin": UserInfo("admin", "s3cret", "Super", "enable"),
    "alice": UserInfo("alice", "alice-pw", "Normal", "enable"),
    "off": UserInfo("off", "off-pw", "Normal", "disable"),
}
ACLS = {"User:alice": acl(allow("Topic:Orders", "Pub"))}


def signed(code: int, ext: dict[str, str], body: bytes, key: str, secret: str) -> RemotingCommand:
    return RemotingCommand(code=code, ext=signed_ext(ext, body, key, secret), body=body)


@pytest.mark.parametrize(
    ("key", "secret", "remark"),
    [
        ("admin", "s3cret", None),
        ("admin", "wrong", "check signature failed."),
        ("bob", "x", "User:bob is not found."),
        ("off", "off-pw", "User:off is disabled."),
    ],
)
def test_authentication(key, secret, remark):
    cmd = signed(105, {"topic": "T"}, b"body", key, secret)
    refused = Guard(USERS.get, ACLS.get, "DefaultCluster").authenticate(cmd)
    assert (refused.code, refused.remark) == (ResponseCode.NO_PERMISSION, remark) if remark else refused is None


def test_an_unsigned_request_or_a_changed_body_is_refused():
    guard = Guard(USERS.get, ACLS.get, "DefaultCluster")
    assert guard.authenticate(RemotingCommand(code=105, ext={"topic": "T"})).remark == "username cannot be null."
    cmd = signed(105, {"topic": "T"}, b"body", "admin", "s3cret")
    cmd.body = b"other"
    assert guard.authenticate(cmd).remark == "check signature failed."


def send(topic: str, user: str) -> object:
    header = messages.SendHeader(
        producer_group="P", topic=topic, default_topic="TBW102", default_topic_queue_nums=4, queue_id=0,
        sys_flag=0, born_timestamp=0, flag=0,
    )  # fmt: skip
    cmd = RemotingCommand(code=messages.SEND_MESSAGE.code, ext={**header.to_ext(), "AccessKey": user}, body=b"x")
    return messages.SEND_MESSAGE.decode(cmd)


def authorize(guard: Guard, rpc, req) -> RemotingCommand | None:
    return guard.authorize(req.cmd, rpc, req, "127.0.0.1")


def test_authorization_of_a_normal_user_by_the_declared_access():
    guard = Guard(USERS.get, ACLS.get, "DefaultCluster")
    assert authorize(guard, messages.SEND_MESSAGE, send("Orders", "alice")) is None
    refused = authorize(guard, messages.SEND_MESSAGE, send("Other", "alice"))
    assert refused.code == ResponseCode.NO_PERMISSION
    assert refused.remark == ("User:alice has no permission to access Topic:Other from 127.0.0.1, no matched policies.")
    assert authorize(guard, messages.SEND_MESSAGE, send("Other", "admin")) is None  # Super
    retry = authorize(guard, messages.SEND_MESSAGE, send("%RETRY%G", "alice"))
    assert "Group:G" in retry.remark  # a send to a retry topic is Sub on the retry topic's group (5.5.0)
    create = topics.UPDATE_AND_CREATE_TOPIC
    cmd = RemotingCommand(code=create.code, ext={"topic": "Orders", "AccessKey": "alice", "readQueueNums": "1",
                                                  "writeQueueNums": "1", "perm": "6"})  # fmt: skip
    assert "Topic:Orders" in authorize(guard, create, create.decode(cmd, validate=False)).remark


def test_heartbeats_and_locks_need_sub_on_their_groups_and_topics():
    subs = (SubscriptionData("Orders", "*"), SubscriptionData("%RETRY%G", "*"))
    heartbeat = HeartbeatData("c1", (ConsumerData("G", subscriptions=subs),), ("P",))
    needs = clients.HEART_BEAT.access.needs(None, heartbeat)
    assert [(n.resource, n.actions) for n in needs] == [("Group:G", ("Sub",)), ("Topic:Orders", ("Sub",))]
    lock = LockBatchBody("G", "c1", (MessageQueue("Orders", "broker-a", 0), MessageQueue("Orders", "broker-a", 1)))
    assert [n.resource for n in clients.LOCK_BATCH_MQ.access.needs(None, lock)] == ["Group:G", "Topic:Orders"]


def test_the_store_keeps_runtime_changes_and_the_file_wins_at_start(tmp_path: Path):
    settings = parse(GOOD)
    store = AuthStore(tmp_path / "auth.json", settings)
    store.load()
    store.create_user(UserInfo("bob", "bob-pw"))
    with pytest.raises(AuthRefused, match="The user is existed"):
        store.create_user(UserInfo("bob", "x"))
    store.update_user(UserInfo("alice", "changed"))
    store.put_acl(AclInfo("User:bob", (Policy((allow("Group:G", "Sub"),)),)))
    for written in (tmp_path / "auth.json", tmp_path / "auth.json.bak"):  # passwords: the owner's eyes only
        assert written.stat().st_mode & 0o777 == 0o600, written
    again = AuthStore(tmp_path / "auth.json", settings)
    again.load()
    assert again.user("bob") == UserInfo("bob", "bob-pw", "Normal", "enable")
    assert again.user("alice").password == "alice-pw"  # the file's users are reset at start
    assert again.acl("User:bob").policies[0].entries == (allow("Group:G", "Sub"),)
    again.delete_user("bob")
    assert again.acl("User:bob") is None and again.user("bob") is None
    with pytest.raises(AuthRefused, match="The subject of User:carol is not exist."):
        again.put_acl(AclInfo("User:carol", (Policy((allow("Group:G", "Sub"),)),)))
