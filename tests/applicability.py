"""Skipping a test that does not apply to a backend, as opposed to one the machine cannot run.

In CI (``MQADMIN_REQUIRE_CONFORMANCE=1``) a skipped conformance or Spark test fails the run: the machine
must have Java, Maven and the peers. A test that has nothing to check on some backend (lite topics on a
4.9 broker, a slave on the embedded cluster) says so with ``not_applicable``, which CI lets through.
"""

from __future__ import annotations

from typing import NoReturn

import pytest

NOT_APPLICABLE = "not applicable: "


def not_applicable(reason: str) -> NoReturn:
    pytest.skip(NOT_APPLICABLE + reason)
