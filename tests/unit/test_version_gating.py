"""The versions behaviour depends on are declared once (``mqadmin.model.version``) and the list requests say
from which broker version they exist and what replaces them before."""

from __future__ import annotations

from mqadmin.model import version
from mqadmin.model.rpc import groups, topics
from mqadmin.model.version import version_desc, version_ordinal


def test_every_version_constant_is_the_ordinal_of_its_name() -> None:
    constants = {n: v for n, v in vars(version).items() if n.startswith("V") and n[1].isdigit()}
    assert {"V4_9_4", "V5_0_0", "V5_1_0", "V5_1_3", "V5_3_0", "V5_3_1"} <= set(constants)
    for name, ordinal in constants.items():
        assert (ordinal, version_desc(ordinal)) == (version_ordinal(name), name)


def test_the_list_requests_declare_their_first_version_and_their_replacement() -> None:
    assert (topics.UPDATE_AND_CREATE_TOPIC_LIST.since, topics.UPDATE_AND_CREATE_TOPIC_LIST.fallback) == (
        version_ordinal("V5_3_0"),
        topics.UPDATE_AND_CREATE_TOPIC,
    )
    group_list = groups.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST
    assert (group_list.since, group_list.fallback) == (
        version_ordinal("V5_3_1"),
        groups.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP,
    )
    assert not group_list.exists_on(version_ordinal("V5_3_0")) and group_list.exists_on(version_ordinal("V5_3_1"))
    assert not topics.UPDATE_AND_CREATE_TOPIC_LIST.exists_on(version_ordinal("V4_9_8"))
    assert topics.UPDATE_AND_CREATE_TOPIC_LIST.exists_on(version_ordinal("V5_5_0"))
    assert topics.UPDATE_AND_CREATE_TOPIC_LIST.exists_on(0)  # a peer that did not say counts as new
    assert topics.UPDATE_AND_CREATE_TOPIC.exists_on(version_ordinal("V3_0_1"))  # no ``since``: every version
