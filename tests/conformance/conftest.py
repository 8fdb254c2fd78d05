"""The ``backend`` fixture: one running cluster per backend for the whole session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conformance.backends import BACKENDS, Backend, skip_reason


@pytest.fixture(scope="session", params=list(BACKENDS))
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    reason = skip_reason(request.param)
    if reason:
        pytest.skip(reason)
    with BACKENDS[request.param]() as b:
        yield b
