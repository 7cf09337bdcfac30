"""The frontier (the empty positions next to a tile) as the game stores it, and the action tables
its legal lists are made of.

A frontier maps each packed position (see :mod:`.geometry`) to one int: its requirement, the
terrains its edges must show packed two bits per edge like ``TileType.edge_code`` (the low
:data:`REQ_BITS` bits, read with :data:`REQ_MASK`), and above them the position's slot in
:data:`PLACE_ACTIONS`, its PLACE action per rotation. Listing the legal placements thus looks
nothing up by position, and reuses the same action objects in every game of the process.
"""

from __future__ import annotations

import threading
from typing import Final

from .actions import Action, ActionKind
from .geometry import unpack
from .tiles import TileType, load_catalogue

__all__ = ["PLACE_ACTIONS", "REQ_BITS", "REQ_MASK", "deploy_actions", "place_slot", "placements"]

#: The PLACE actions of a position, one per rotation, by the position's slot (legal lists reuse these
#: objects). (A variable-length tuple type: compiled, a fixed-length one is unboxed on every read.)
PLACE_ACTIONS: Final[list[tuple[Action, ...]]] = []
#: Packed position → its slot in :data:`PLACE_ACTIONS` (given the first time it joins a frontier).
_PLACE_SLOT: Final[dict[int, int]] = {}
_PLACE_SLOT_LOCK: Final = threading.Lock()
#: A frontier value is ``requirement | slot << REQ_BITS`` (the requirement: 2 bits an edge).
REQ_BITS: Final = 8
REQ_MASK: Final = 0xFF
#: Cached DEPLOY actions per packed position, one per segment slot.
_DEPLOY_CACHE: Final[dict[int, tuple[Action, ...]]] = {}


def place_slot(p: int) -> int:
    """The slot of position ``p`` in :data:`PLACE_ACTIONS`, shifted into a frontier value.

    A position's slot is given once per process, under a lock (games played in threads share the
    tables), its actions stored before the slot is."""
    slot = _PLACE_SLOT.get(p)
    if slot is None:
        x, y = unpack(p)
        acts = tuple(Action(ActionKind.PLACE, x, y, r) for r in range(4))
        with _PLACE_SLOT_LOCK:
            slot = _PLACE_SLOT.get(p)
            if slot is None:  # the actions first: a reader that finds the slot finds its actions
                slot = len(PLACE_ACTIONS)
                PLACE_ACTIONS.append(acts)
                _PLACE_SLOT[p] = slot
    return slot << REQ_BITS


def placements(frontier: dict[int, int], tile: TileType) -> list[Action]:
    """PLACE actions of ``tile``: per frontier cell, the rotations its requirement admits (R11).

    The order is the frontier's (insertion order: the search agents' tie-breaks depend on it).
    """
    fits = tile.fits
    actions = PLACE_ACTIONS
    out: list[Action] = []
    # Over a list of the values: compiled, a loop over the dict itself costs ~100 instructions a
    # cell (a size check and a call per step), the list ~20 (a copy in C, then indexed reads).
    for cell in list(frontier.values()):
        rotations = fits[cell & REQ_MASK]
        if rotations:
            acts = actions[cell >> REQ_BITS]
            for r in rotations:
                out.append(acts[r])
    return out


def deploy_actions(p: int) -> tuple[Action, ...]:
    """The DEPLOY actions at packed position ``p``, one per segment slot (made once per position)."""
    acts = _DEPLOY_CACHE.get(p)
    if acts is None:
        x, y = unpack(p)
        slots = range(load_catalogue().max_segments)
        acts = _DEPLOY_CACHE[p] = tuple(Action(ActionKind.DEPLOY, x, y, s) for s in slots)
    return acts
