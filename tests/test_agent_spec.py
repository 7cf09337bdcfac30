"""Agent spec strings (agents/spec.py): registry, typed options, user agents, clear errors."""

from pathlib import Path

import pytest

from agents import AgentSpecError, known_agents, make_agent, register_agent
from agents import spec as spec_module
from carcassonne_env.engine import Action, Game, GameConfig

USER_AGENT = '''
class FirstLegal:
    """Always the first legal action; takes no seed."""
    def choose_action(self, game):
        return game.legal_actions()[0]

class Seeded:
    def __init__(self, seed):
        self.seed = seed
    def choose_action(self, game):
        return game.legal_actions()[self.seed % len(game.legal_actions())]

class Neither:
    pass
'''


class Options:
    def __init__(self, seed: int, path: str = "", sims: int = 10, seconds: float = 1.0, fast: bool = False) -> None:
        self.seed, self.path, self.sims, self.seconds, self.fast = seed, path, sims, seconds, fast

    def choose_action(self, game: Game) -> Action:
        return game.legal_actions()[0]


@pytest.fixture
def options_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(spec_module._REGISTRY, "optionstest", Options)
    assert "optionstest" in known_agents()


def test_register_agent_names_must_be_identifiers() -> None:
    with pytest.raises(AgentSpecError, match="must be an identifier"):
        register_agent("my agent", Options)


def test_random_is_registered_seeded_and_legal() -> None:
    assert "random" in known_agents()
    game = Game(GameConfig(players=2), seed=3)
    picks = [make_agent("random", seed=s).choose_action(game) for s in range(20)]
    assert all(p in game.legal_actions() for p in picks)
    assert len(set(picks)) > 1
    assert [make_agent("random", seed=s).choose_action(game) for s in range(20)] == picks


def test_options_are_converted_to_the_factorys_parameter_types(options_agent: None) -> None:
    agent = make_agent("optionstest:sims=400,seconds=0.5,fast=yes", seed=7)
    assert isinstance(agent, Options)
    assert (agent.seed, agent.sims, agent.seconds, agent.fast) == (7, 400, 0.5, True)
    assert isinstance(agent.sims, int) and isinstance(agent.seconds, float)


def test_a_leading_option_without_key_is_the_first_parameter(options_agent: None) -> None:
    agent = make_agent("optionstest:models/m.zip,fast=0", seed=1)
    assert isinstance(agent, Options)
    assert (agent.path, agent.fast) == ("models/m.zip", False)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("optionstest:depth=3", "unknown option 'depth'; options: path, sims, seconds, fast"),
        ("optionstest:sims=many", "sims='many' must be of type int"),
        ("optionstest:fast=maybe", "fast='maybe' must be a bool"),
        ("optionstest:sims=1,sims=2", "option 'sims' given twice"),
        ("optionstest:sims=1,x.zip", "'x.zip' must look like key=value"),
        ("nosuchagent", "unknown agent 'nosuchagent'; known agents: .*random"),
        ("ppo:no/such/model.zip", "ppo: no MaskablePPO checkpoint at 'no/such/model.zip'"),
        ("mcts:sims=-3", "mcts: MCTSAgent: sims must be a positive int, got -3"),
        ("nosuchmodule_xyz:Agent", "not a registered agent .* nor an importable module"),
        ("missing/file.py:Agent", "no such file 'missing/file.py'"),
        ("", "non-empty string"),
    ],
)
def test_bad_specs_raise_errors_naming_the_problem(options_agent: None, spec: str, message: str) -> None:
    with pytest.raises(AgentSpecError, match=message):
        make_agent(spec, seed=0)


def test_user_agents_load_from_a_file_path_and_a_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "user_agents.py").write_text(USER_AGENT)
    game = Game(GameConfig(players=2), seed=0)
    first = make_agent(f"{tmp_path}/user_agents.py:FirstLegal", seed=5)
    assert first.choose_action(game) == game.legal_actions()[0]
    monkeypatch.syspath_prepend(str(tmp_path))
    seeded = make_agent("user_agents:Seeded", seed=5)
    assert seeded.seed == 5  # type: ignore[attr-defined]
    with pytest.raises(AgentSpecError, match="has no class 'Missing'"):
        make_agent("user_agents:Missing", seed=0)
    with pytest.raises(AgentSpecError, match="implements neither choose_action"):
        make_agent(f"{tmp_path}/user_agents.py:Neither", seed=0)
