"""Agents obey the mask."""

import numpy as np
import pytest

from agents import Agent, RandomAgent


def test_random_agent_picks_only_legal_actions_and_covers_them() -> None:
    mask = np.zeros(50, dtype=np.int8)
    mask[[3, 17, 42]] = 1
    agent = RandomAgent(seed=0)
    assert isinstance(agent, Agent)
    picks = {agent.act(None, mask) for _ in range(200)}
    assert picks == {3, 17, 42}


def test_random_agent_refuses_an_empty_mask() -> None:
    with pytest.raises(ValueError, match="no action"):
        RandomAgent(seed=0).act(None, np.zeros(5, dtype=np.int8))
