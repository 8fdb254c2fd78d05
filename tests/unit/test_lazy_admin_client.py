"""LazyAdminClient (what CLI commands get) behaves as AdminClient while importing only the operations used."""

from __future__ import annotations

import subprocess
import sys

import pytest

from mqadmin.admin import AdminClient, LazyAdminClient
from mqadmin.admin import operations as index
from mqadmin.model.route import QueueData, TopicRouteData
from mqadmin.model.rpc import namesrv
from tests.mock_transport import MockTransport, cluster_info, ok, routes


def resolved(cls: type, name: str) -> object:
    """What ``cls.name`` resolves to, without binding (the object in the first class of the MRO holding it)."""
    return next(vars(k)[name] for k in cls.__mro__ if name in vars(k))


def lazy_client() -> LazyAdminClient:
    info = cluster_info(("broker-a", 0, "127.0.0.1:10911"), ("broker-b", 0, "127.0.0.1:10921"))
    route = TopicRouteData([info.brokers["broker-a"]], [QueueData("broker-a", 8, 8, 6)])
    answers = {
        namesrv.GET_BROKER_CLUSTER_INFO: ok(info),
        namesrv.GET_ROUTEINFO_BY_TOPIC: ok(route),
        namesrv.GET_ALL_TOPIC_LIST_FROM_NAMESERVER: ok(["Orders"]),
    }
    return LazyAdminClient(["127.0.0.1:9876"], transport=MockTransport(routes(answers)), timeout=0.5)


@pytest.mark.parametrize("name", sorted(index.OWNER))
def test_every_operation_resolves_as_on_admin_client(name: str) -> None:
    admin = lazy_client()
    getattr(admin, name)
    assert isinstance(admin, LazyAdminClient)
    assert resolved(type(admin), name) is resolved(AdminClient, name)


async def test_operations_work_and_compose() -> None:
    admin = lazy_client()
    assert await admin.topic_list() == ["Orders"]
    assert [b.broker_name for b in await admin.cluster_brokers("DefaultCluster")] == ["broker-a", "broker-b"]
    first = type(admin)
    assert (await admin.topic_route("Orders")).queue_datas
    assert [t.addr for t in admin.namesrv_targets()] == ["127.0.0.1:9876"]  # another operation class joins
    assert first._loaded < type(admin)._loaded


def test_a_name_missing_from_a_stale_index_loads_every_operation(monkeypatch: pytest.MonkeyPatch) -> None:
    stale = {k: v for k, v in index.OWNER.items() if k != "topic_list"}
    monkeypatch.setattr("mqadmin.admin.lazy_client.OWNER", stale)
    admin = lazy_client()
    admin.topic_list  # noqa: B018
    assert type(admin)._loaded == frozenset(range(len(index.OPERATION_CLASSES)))
    assert resolved(type(admin), "topic_list") is resolved(AdminClient, "topic_list")


def test_an_unknown_attribute_is_an_attribute_error() -> None:
    admin = lazy_client()
    with pytest.raises(AttributeError, match="no_such_operation"):
        admin.no_such_operation  # noqa: B018
    assert not hasattr(admin, "__no_such_dunder__")


def test_one_operation_imports_only_its_module() -> None:
    script = (
        "import sys; from mqadmin.admin import LazyAdminClient\n"
        "admin = LazyAdminClient(['127.0.0.1:9876'])\n"
        "admin.topic_list\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('mqadmin.admin.'))))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    loaded = set(done.stdout.split())
    assert "mqadmin.admin.topic_routes" in loaded
    assert not loaded & {"mqadmin.admin.client", "mqadmin.admin.auth", "mqadmin.admin.lite", "mqadmin.admin.offsets"}
    assert "mqadmin.admin.topics" not in loaded  # topic configs on brokers: not for a name-server query
