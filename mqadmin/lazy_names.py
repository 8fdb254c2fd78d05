"""A package's names imported from their modules on first use (PEP 562 ``__getattr__``), so that importing one
name does not load every module of the package: start-up is most of a one-request command's time."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(package: str, module_of: Mapping[str, str]) -> Callable[[str], Any]:
    """The module ``__getattr__`` of ``package``: a name of ``module_of`` (name -> submodule) is imported from
    its submodule and kept in the package's namespace; any other name is an AttributeError."""

    def __getattr__(name: str) -> Any:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
