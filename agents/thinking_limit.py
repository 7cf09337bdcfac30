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

from typing import Protocol, runtime_checkable

__all__ = ["LimitedThinking", "ThinkingTimeout", "limit_thinking"]


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
