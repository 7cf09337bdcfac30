"""Save under old module names: what checkpoints written before the move to agents.nets look like."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType


@contextmanager
def saved_under(old: str, *classes: type) -> Iterator[None]:
    """Within the block, ``classes`` say they live in module ``old`` (which resolves to their module),
    so anything pickled names ``old``; restored on exit."""
    modules = {cls: cls.__module__ for cls in classes}
    sys.modules[old] = ModuleType(old)
    for cls in classes:
        setattr(sys.modules[old], cls.__qualname__, cls)
        cls.__module__ = old
    try:
        yield
    finally:
        for cls, name in modules.items():
            cls.__module__ = name
        del sys.modules[old]
