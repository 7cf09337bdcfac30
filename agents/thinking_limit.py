"""A hard limit on one decision's thinking, for the agents whose thinking has no bound of its own.

A search agent with a budget of simulations (``mcts:sims=N``) thinks as long as its simulations take,
which the spec's range bounds (:data:`agents.MAX_SIMS`) but a machine's speed does not. A runner that
must not wait longer than a move time limit (a tournament's game runner) tells each
agent its limit with :func:`limit_thinking`; an agent that supports it (:class:`LimitedThinking`)
checks the clock between the steps of its search and raises :class:`ThinkingTimeout` once the limit
has passed, whatever it was doing, so that its memory is freed when the exception unwinds it.

The other built-in agents need no limit: ``greedy``, ``afterstate`` (one turn of look-ahead: a bounded
number of valuations) and ``ppo``/``rllib`` (one forward pass) end in well under a second on any
position; an agent named by a file or a module plays from a process of its own, which is killed at
the limit (:mod:`agents.isolation`).
"""

from __future__ import annotations

import math
from typing import Protocol, runtime_checkable

__all__ = ["LimitedThinking", "ThinkingTimeout", "checked_limit", "limit_thinking"]


class ThinkingTimeout(RuntimeError):
    """A decision's thinking passed its hard limit and was stopped (the agent chose nothing)."""


@runtime_checkable
class LimitedThinking(Protocol):
    """An agent that stops a decision's thinking at a hard limit of ``seconds`` (None: no limit)."""

    def limit_thinking(self, seconds: float | None) -> None: ...


def limit_thinking(agent: object, seconds: float | None) -> bool:
    """Tell ``agent`` its hard limit per decision when it supports one; whether it does."""
    if isinstance(agent, LimitedThinking):
        agent.limit_thinking(seconds)
        return True
    return False


def checked_limit(agent: str, seconds: float | None) -> float | None:
    """The hard limit ``seconds`` an agent's :meth:`~LimitedThinking.limit_thinking` was given, as a float
    (None: no limit); ValueError naming ``agent`` unless it is a positive finite number."""
    if seconds is not None and not (isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"{agent}: a thinking limit must be a positive number of seconds, got {seconds!r}")
    return None if seconds is None else float(seconds)
