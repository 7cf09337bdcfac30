"""Agents for carcassonne_env. Observation-level agents implement :class:`Agent` (``act(observation,
action_mask) -> int``); engine-level agents implement ``choose_action(game) -> Action``. Every agent
is named by a spec string (:mod:`agents.spec`): built-in agents register themselves here."""

from .base import Agent
from .engine_random import make_random
from .random_agent import RandomAgent
from .spec import AgentSpecError, EngineAgent, known_agents, make_agent, register_agent

register_agent("random", make_random)

__all__ = ["Agent", "AgentSpecError", "EngineAgent", "RandomAgent", "known_agents", "make_agent", "register_agent"]
