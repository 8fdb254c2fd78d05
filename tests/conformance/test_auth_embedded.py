"""tests/conformance/test_auth.py's scenarios (the ones without TLS) against ``mqadmin dev up --auth``: our
CLI and the real Java mqadmin 5.3.3 (AclClientRPCHook) with the embedded cluster secured as an Apache 5.3
cluster with ACL 2.0, so both answer alike. The scenarios are imported; only ``secured`` differs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conformance.secured import SecuredCluster, secured_dev_up
from tests.conformance.test_auth import (  # noqa: F401  (collected here with this module's fixture)
    test_a_user_without_permission_is_refused_exit_5,
    test_core_commands_with_the_right_keys,
    test_java_created_users_are_seen_and_secrets_are_never_shown,
    test_refused_credentials_exit_5,
    test_user_and_acl_commands_seen_by_java_mqadmin,
)
from tests.realrmq import apache

pytestmark = [pytest.mark.conformance, pytest.mark.timeout(1200)]

JAVA_VERSION = apache.V5
"""The Java mqadmin the scenarios compare with (ACL 2.0 commands: 5.3+)."""


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecuredCluster]:
    if (reason := apache.skip_reason(JAVA_VERSION)) is not None:
        pytest.skip(reason)
    work = tmp_path_factory.mktemp("secured-embedded")
    with secured_dev_up(work) as info:
        brokers = {b["name"]: b["addr"] for b in info["brokers"]}
        yield SecuredCluster(JAVA_VERSION, info["namesrvAddr"], info["cluster"], brokers, True, None, work)
