"""Agents for carcassonne_env.

Every player implements one of the two protocols of :mod:`carcassonne_env.players`, re-exported
here: a :class:`Policy` (``act(observation, action_mask) -> int``, an index of the env's
``Discrete(N)`` space whose mask entry is 1) or an :class:`EngineAgent`
(``choose_action(game) -> Action``). :class:`PolicyAgent` / :func:`as_engine_agent` turn a policy
into an engine agent; :class:`RandomAgent` plays at both levels.

Every agent is named by a spec string (:mod:`agents.spec`); the built-in agents register here.
"""

from carcassonne_env.players import EngineAgent, Policy, PolicyAgent, RandomAgent, as_engine_agent

from .spec import AgentSpecError, known_agents, make_agent, register_agent


def _ppo(seed: int, path: str, sample: bool = False) -> EngineAgent:
    """``ppo:PATH``: imports torch and Stable-Baselines3 (the ``train`` extra) only when used."""
    from .ppo import make_ppo

    return make_ppo(seed, path, sample)


register_agent("random", RandomAgent)
register_agent("ppo", _ppo)

__all__ = [
    "AgentSpecError",
    "EngineAgent",
    "Policy",
    "PolicyAgent",
    "RandomAgent",
    "as_engine_agent",
    "known_agents",
    "make_agent",
    "register_agent",
]
