"""Agent spec strings (agents/spec.py): registry, typed options, user agents, clear errors."""

import shutil
import sys
from pathlib import Path

import legal_agents
import pytest

from agents import AgentSpecError, known_agents, make_agent, register_agent
from agents import spec as spec_module
from agents.spec import Origin, UntrustedSpecError, check_spec, option_reference
from carcassonne_env.engine import Action, Game, GameConfig


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
        ("mcts:sims=-3", "mcts: option sims=-3 is out of its range 1 to 100000"),
        ("mcts:sims=100000000000000000000000000", "sims=100000000000000000000000000 is out of its range 1 to 100000"),
        ("mcts:sims=1_0", "sims='1_0' must be of type int"),
        ("mcts:seconds=nan", "seconds='nan' must be of type float"),
        ("mcts:exploration=1e999", "must be of type float"),
        ("mcts:widening=-1", "widening=-1 is out of its range 0 to 100"),
        ("mcts:pretrained,sims=0", "sims=0 is out of its range"),
        ("afterstate:spread=-2", "spread=-2 is out of its range 0 to 1000"),
        ("mcts:value=nosuch", "mcts: LinearValue: cannot read value weights nosuch"),
        ("nosuchmodule_xyz:Agent", "not a registered agent .* nor an importable module"),
        ("missing/file.py:Agent", "no such file 'missing/file.py'"),
        ("", "non-empty string"),
    ],
)
def test_bad_specs_raise_errors_naming_the_problem(options_agent: None, spec: str, message: str) -> None:
    with pytest.raises(AgentSpecError, match=message):
        make_agent(spec, seed=0)


def test_user_agents_load_from_a_file_path_and_a_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copy(legal_agents.__file__, tmp_path / "user_agents.py")
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


# ---------------------------------------------------------------- where the text came from
@pytest.mark.parametrize("origin", [Origin.FILE, Origin.REQUEST])
@pytest.mark.parametrize("spec", ["{tmp}/planted.py:Agent", "planted.py:Agent", "planted:Agent", "os:system",
                                  "ppo:{tmp}/planted.zip", "afterstate:{tmp}/planted.npz", "greedy:value={tmp}/v.json",
                                  "mcts:sims=5,value=v.json", "rllib:{tmp}", "optionstest:sims=1"])
def test_a_spec_from_a_file_or_a_request_names_no_code_and_no_path(
        options_agent: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, origin: Origin, spec: str) -> None:
    mark = tmp_path / "ran.txt"
    (tmp_path / "planted.py").write_text(f"open({str(mark)!r}, 'w').close()\nclass Agent:\n"
                                         "    def choose_action(self, game):\n        return game.legal_actions()[0]\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(UntrustedSpecError, match=f"from {origin.value}"):
        make_agent(spec.format(tmp=tmp_path), seed=0, origin=origin)
    assert not mark.exists() and "planted" not in sys.modules
    make_agent(f"{tmp_path}/planted.py:Agent", seed=0)  # the command line may: the plant is live
    assert mark.exists()


@pytest.mark.parametrize("spec", ["random", "greedy:fast=1,value=linear", "mcts:sims=3,value=end_now",
                                  "mcts:pretrained", "afterstate:pretrained,spread=0", "ppo:pooled"])
def test_a_built_in_agent_naming_shipped_models_may_come_from_a_file(spec: str) -> None:
    assert check_spec(spec, Origin.FILE) == spec


def test_every_built_in_option_declares_its_range() -> None:
    reference = option_reference()
    for name in ("random", "greedy", "mcts", "afterstate", "ppo", "rllib"):
        assert f"| `{name}` |" in reference
    assert "| `mcts` | `sims` | int | 1 to 100000" in reference
    with pytest.raises(AgentSpecError, match="options without a declared range: path, sims, seconds"):
        register_agent("undeclared", Options, builtin=True)
