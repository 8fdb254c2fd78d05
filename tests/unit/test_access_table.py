"""The embedded servers authorize every request code as Apache 5.5.0 does: each served code has Apache's rule
(``mqadmin/model/apache_access.json``: its builder's switch, or an annotated request header) or an explicit
"Apache checks nothing here" entry, and a Normal user is refused what Apache refuses it (issue 26's codes)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from mqadmin.model.access import UNCHECKED, Need, apache_table, needs
from mqadmin.model.auth import AclInfo, Policy, PolicyEntry, UserInfo
from mqadmin.model.rpc.spec import REGISTRY
from mqadmin.server.auth.config import parse_auth
from mqadmin.server.auth.guard import Guard
from mqadmin.wire.codes import RequestCode, ResponseCode
from mqadmin.wire.frame import RemotingCommand


def served() -> dict[str, dict[int, object]]:
    from mqadmin.server.broker.broker import Broker
    from mqadmin.server.broker.config import BrokerConfig
    from mqadmin.server.namesrv.config import NamesrvConfig
    from mqadmin.server.namesrv.server import NameServer

    auth = parse_auth({"users": [{"username": "root", "password": "pw", "type": "Super"}]})
    with tempfile.TemporaryDirectory() as tmp:
        broker = Broker(BrokerConfig(data_dir=Path(tmp) / "broker", auth=auth))
        namesrv = NameServer(NamesrvConfig(data_dir=Path(tmp) / "namesrv"))
        return {"broker": broker.server.served(), "name server": namesrv.server.served()}


def test_every_served_request_code_has_apaches_rule_or_an_explicit_unchecked_entry():
    table = apache_table()
    missing, doubled, switch_without_rule = [], [], []
    for side, codes in served().items():
        for code, rpc in codes.items():
            entries = (
                (code in table.switch) + (code in table.annotated and code not in table.switch) + (code in UNCHECKED)
            )
            if entries == 0:
                missing.append(f"{side} {code}")
            elif entries > 1:
                doubled.append(code)
            # the name server authorizes nothing, as Apache 5.5.0's (docs/dev-cluster.md): 105 needs no rule there
            if side == "broker" and code in table.switch and (rpc is None or rpc.access is None):  # type: ignore[attr-defined]
                switch_without_rule.append(code)
    assert not missing, "served codes without an entry in apache_access.json or access.UNCHECKED"
    assert not doubled, "codes both checked by Apache and listed as unchecked"
    assert not switch_without_rule, "codes Apache's switch handles need the declaration's equivalent rule"


def test_the_auth_management_codes_are_served_and_need_the_cluster():
    codes = served()["broker"]
    for code in range(RequestCode.AUTH_CREATE_USER, RequestCode.AUTH_LIST_ACL + 1):
        assert code in codes
        assert [n.resource for n in needs(code, None, {"username": "bob"}, None, None)] == ["Cluster"]


ALICE = UserInfo("alice", "alice-pw", "Normal", "enable")
ROOT = UserInfo("root", "root-pw", "Super", "enable")
ALICE_ACL = AclInfo("User:alice", (Policy((PolicyEntry("Topic:Orders", ("Pub",), "Allow"),)),))


def ask(code: int, ext: dict[str, str], user: UserInfo) -> RemotingCommand | None:
    guard = Guard({"alice": ALICE, "root": ROOT}.get, {"User:alice": ALICE_ACL}.get, "DefaultCluster")
    rpc = REGISTRY.get(code)
    cmd = RemotingCommand(code=code, ext={**ext, "AccessKey": user.username})
    return guard.authorize(cmd, rpc, None, "127.0.0.1")


ISSUE_26 = {
    RequestCode.INVOKE_BROKER_TO_RESET_OFFSET: ({"group": "G2", "topic": "Other", "timestamp": "0"}, "Group:G2"),
    RequestCode.GET_CONSUMER_CONNECTION_LIST: ({"consumerGroup": "G2"}, "Group:G2"),
    RequestCode.INVOKE_BROKER_TO_GET_CONSUMER_STATUS: ({"topic": "Other", "group": "G2"}, "Topic:Other"),
    RequestCode.GET_CONSUMER_RUNNING_INFO: ({"consumerGroup": "G2", "clientId": "c"}, "Group:G2"),
    RequestCode.CONSUME_MESSAGE_DIRECTLY: ({"consumerGroup": "G2", "topic": "Other", "clientId": "c"}, "Group:G2"),
    RequestCode.QUERY_CONSUME_QUEUE: ({"topic": "Other", "consumerGroup": "G2", "queueId": "0"}, "Topic:Other"),
    354:  # CHECK_ROCKSDB_CQ_WRITE_PROGRESS
    ({"topic": "Other"}, "Topic:Other"),
    RequestCode.GET_PRODUCER_CONNECTION_LIST: ({"producerGroup": "P"}, "Cluster:DefaultCluster"),
    315:  # VIEW_BROKER_STATS_DATA
    (
        {"statsName": "TOPIC_PUT_NUMS", "statsKey": "Orders"},
        "Cluster:DefaultCluster",
    ),
    RequestCode.GET_BROKER_CONSUME_STATS: ({"isOrder": "false"}, "Cluster:DefaultCluster"),
    RequestCode.GET_ALL_PRODUCER_INFO: ({}, "Cluster:DefaultCluster"),
    355:  # EXPORT_ROCKSDB_CONFIG_TO_JSON
    ({"configType": "topics"}, "Cluster:DefaultCluster"),
}


@pytest.mark.parametrize("code", sorted(ISSUE_26))
def test_a_normal_user_is_refused_what_apache_refuses_and_a_super_user_is_not(code: int):
    ext, resource = ISSUE_26[code]
    refused = ask(code, ext, ALICE)
    assert refused is not None and refused.code == ResponseCode.NO_PERMISSION
    assert refused.remark == f"User:alice has no permission to access {resource} from 127.0.0.1, no matched policies."
    assert ask(code, ext, ROOT) is None


def test_retry_topics_name_their_group_and_lists_are_split():
    reset = needs(RequestCode.INVOKE_BROKER_TO_RESET_OFFSET, None, {"group": "G", "topic": "%RETRY%G"}, None, None)
    assert reset == [Need("Group:G", ("Update",)), Need("Group:G", ("Update",))]
    stats = needs(RequestCode.GET_CONSUME_STATS, None, {"consumerGroup": "G", "topicList": "A;;B"}, None, None)
    assert [n.resource for n in stats] == ["Group:G", "Topic:A", "Topic:B"]
    assert needs(RequestCode.UPDATE_BROKER_CONFIG, None, {}, None, None) == []  # Apache checks nothing


def test_a_retry_topic_stands_for_its_group_only_where_apache_maps_it():
    from mqadmin.model.rpc import messages

    query = messages.QueryMessageHeader(topic="%RETRY%G", key="k", max_num=1, begin_timestamp=0, end_timestamp=1)
    wanted = needs(RequestCode.QUERY_MESSAGE, messages.QUERY_MESSAGE.access, query.to_ext(), query, None)
    assert wanted == [Need("Topic:%RETRY%G", ("Sub", "Get"))]  # Apache's switch: the topic as it is
    send = messages.SendHeader(
        producer_group="P", topic="%RETRY%G", default_topic="TBW102", default_topic_queue_nums=4, queue_id=0,
        sys_flag=0, born_timestamp=0, flag=0,
    )  # fmt: skip
    wanted = needs(RequestCode.SEND_MESSAGE, messages.SEND_MESSAGE.access, send.to_ext(), send, b"")
    assert wanted == [Need("Group:G", ("Sub",))]  # 5.5.0: the retry topic's group, not the producer group
