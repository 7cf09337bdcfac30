"""Agents for carcassonne_env. Every agent implements :class:`Agent`: given an observation and
its action mask it returns one legal action index of the env's ``Discrete(N)`` space."""

from .base import Agent
from .greedy import GreedyAgent
from .mcts import MCTSAgent
from .random_agent import RandomAgent

__all__ = ["Agent", "GreedyAgent", "MCTSAgent", "RandomAgent"]
