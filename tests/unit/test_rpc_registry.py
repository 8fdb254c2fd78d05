"""One declaration per request code: the admin client, the servers and the test fakes share it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import mqadmin.model.rpc as rpc_package
from mqadmin.model.rpc import REGISTRY, Rpc, clients, load_all, messages

RPC_DIR = Path(rpc_package.__file__).parent


def test_a_second_declaration_of_a_code_is_refused_even_under_the_same_name() -> None:
    first = messages.GET_MAX_OFFSET
    with pytest.raises(ValueError, match=r"request code 30 declared twice \(GET_MAX_OFFSET, GET_MAX_OFFSET\)"):
        Rpc(first.code, first.name, first.header, response_header=first.response_header)
    with pytest.raises(ValueError, match="declared twice"):
        Rpc(clients.GET_CONSUMER_CONNECTION_LIST.code, "ANOTHER_NAME")
    assert REGISTRY[first.code] is first  # the refused one did not replace it


def test_every_declaration_in_the_package_is_the_one_registered() -> None:
    """Each ``NAME = Rpc(...)`` in mqadmin/model/rpc is in the registry under its code, and no two
    declarations in the sources share a name (a duplicate module would fail at import)."""
    load_all()
    declared: list[str] = []
    for path in sorted(RPC_DIR.glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Call)
                and getattr(node.value.func, "id", None) == "Rpc"
            ):
                declared += [t.id for t in node.targets if isinstance(t, ast.Name)]
    assert len(declared) == len(set(declared)), sorted({n for n in declared if declared.count(n) > 1})
    assert sorted(declared) == sorted(r.name for r in REGISTRY.values())
