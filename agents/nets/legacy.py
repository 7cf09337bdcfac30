"""The module names of checkpoints saved before the play-time networks moved to :mod:`agents.nets`.

A saved model names its classes by module path: a Stable-Baselines3 zip cloudpickles its policy
class (and rollout buffer class) into its ``data`` entry, an RLlib checkpoint pickles its module
class into ``class_and_ctor_args.pkl``. Models saved before the move name the trainer's old flat
modules, which no longer exist. :func:`legacy_module_names` makes those names resolve to the
modules that hold the same classes now, for the time a checkpoint is read; this is the one place
that knows them. The shipped models were re-saved under the new names and do not need it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["LEGACY_MODULES", "legacy_module_names"]

#: Old module name → the module that holds its classes now (only what checkpoints pickle).
LEGACY_MODULES = {
    "training.network": "agents.nets.policy",
    "training.board_net": "agents.nets.board_net",
    "training.prior": "agents.nets.prior",
    "training.rllib_module": "agents.nets.rllib_module",
}


@contextmanager
def legacy_module_names() -> Iterator[None]:
    """Within the block, importing an old name of :data:`LEGACY_MODULES` gives its new module, for
    each new module already imported (the loader imports the classes it expects first, so reading
    a ``ppo:`` zip never imports ray). Old names already imported are left alone; the aliases are
    removed on exit."""
    added = []
    for old, new in LEGACY_MODULES.items():
        if old not in sys.modules and new in sys.modules:
            sys.modules[old] = sys.modules[new]
            added.append(old)
    try:
        yield
    finally:
        for old in added:
            sys.modules.pop(old, None)
