"""The agent protocol shared by every player of the env, from random to learned."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt


@runtime_checkable
class Agent(Protocol):
    """Chooses an action index whose ``action_mask`` entry is 1."""

    def act(self, observation: Any, action_mask: npt.NDArray[np.int8]) -> int: ...
