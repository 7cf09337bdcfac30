"""An agent sees only what its seat may see and owns nothing real (issue 51, point 1), and a move
time limit always applies (point 2). The hostile agents are in hostile_agents.py; an agent named by
a file plays from a process of its own, as in every tournament."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np
import pytest

from agents.isolation import hidden_position
from agents.spec import _REGISTRY, AgentSpecError, make_agent
from carcassonne_env.engine import Game, GameConfig
from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.players import RandomAgent
from faults.helpers import BASE_2P, bad
from faults.hostile_agents import spy_log
from training.arena.match import agent_seed, competition_ranks, play_match

HOSTILE = str(Path(__file__).with_name("hostile_agents.py"))
CONFIG = GameConfig.from_dict(BASE_2P)


def hostile(name: str) -> str:
    return f"{HOSTILE}:{name}"


def test_a_seat_is_shown_the_unseen_tiles_in_a_fresh_order_and_no_seed() -> None:
    game = Game(CONFIG, seed=3)
    for _ in range(30):
        game.apply(game.legal_actions()[0])
    data = hidden_position(game, np.random.default_rng(0))
    drawn, true = data["drawn"], [t.id for t in game.pile_in_draw_order()]
    assert data["seed"] is None and data["explicit_order"] is True
    assert data["pile"][:drawn] == true[:drawn]  # what was drawn is public
    assert sorted(data["pile"][drawn:]) == sorted(true[drawn:]) and data["pile"][drawn:] != true[drawn:]
    assert Game.from_dict(data).scores == game.scores  # the same position, another future


@pytest.mark.fault("handled")
def test_an_agent_predicts_the_next_tile_no_better_than_chance() -> None:
    """R4: the order of the tiles left is hidden. The spy guesses the next tile from the public
    pile, the private one and a game rebuilt from the seed; it hits as often as a guess drawn from
    the tiles left (expected hits Σ p, p = share of the true next tile among the tiles left)."""
    hits = {"public": 0, "private": 0, "seed": 0}
    expected = variance = 0.0
    decisions = 0
    for game_seed in (7_100_001, 7_100_002, 7_100_003):
        log = spy_log(agent_seed(game_seed, 0))
        log.unlink(missing_ok=True)
        result = play_match(CONFIG, [hostile("PileSpy"), "random"], game_seed)
        assert result.forfeit is None
        true = [t.id for t in Game(CONFIG, seed=game_seed).pile_in_draw_order()]
        for line in log.read_text().splitlines():
            guess = json.loads(line)
            truth = true[guess["drawn"]]
            assert guess["seed"] is None  # the seed is not shown
            for way in hits:
                hits[way] += guess[way] == truth
            p = guess["left"].count(truth) / len(guess["left"])
            expected, variance, decisions = expected + p, variance + p * (1 - p), decisions + 1
        log.unlink()
    assert decisions > 90
    bound = expected + 3 * math.sqrt(variance) + 1
    assert hits["public"] <= bound and hits["private"] <= bound, (hits, expected, decisions)


@pytest.mark.fault("handled")
def test_an_agent_that_wrecks_every_game_it_finds_changes_no_real_game() -> None:
    result = play_match(CONFIG, [hostile("Saboteur"), "random"], seed=5)
    assert result.forfeit is None and max(result.scores) < 1000
    assert result.record.replay().scores == result.scores


@pytest.mark.fault("handled")
def test_an_agent_that_replaces_the_runners_functions_changes_no_result() -> None:
    result = play_match(CONFIG, ["random", hostile("Patcher")], seed=6)
    assert result.ranks == competition_ranks(result.scores)
    assert result.record.replay().scores == result.scores


@pytest.mark.fault("handled")
def test_an_agents_keyboard_interrupt_is_its_forfeit_not_the_users_ctrl_c() -> None:
    result = play_match(CONFIG, [bad("Interrupter"), "random"], seed=1, on_error="forfeit")
    assert result.forfeit is not None and result.forfeit.kind == "exception"
    assert "KeyboardInterrupt" in result.forfeit.message and result.forfeit.agent == bad("Interrupter")


BROKEN_FILES = {
    "syntax.py": ("class Agent(:\n", "SyntaxError"),
    "imports.py": ("import no_such_module_anywhere\n", "ModuleNotFoundError"),
}


@pytest.mark.fault("clear error", count=6)
def test_agents_that_cannot_be_built_forfeit_with_a_message(tmp_path: Path) -> None:
    specs = {hostile("FailsToBuild"): "RuntimeError: no model here", hostile("NotAnAgent"): "implements neither",
             "os:system": "not a class of agents", "subprocess:Popen": "building Popen failed"}
    for name, (text, error) in BROKEN_FILES.items():
        (tmp_path / name).write_text(text)
        specs[f"{tmp_path / name}:Agent"] = error
    for spec, message in specs.items():
        result = play_match(CONFIG, [spec, "random"], seed=2, on_error="forfeit")
        assert result.forfeit is not None and result.forfeit.seat == 0, spec
        assert message in result.forfeit.message and result.forfeit.agent == spec
        with pytest.raises(AgentSpecError, match=message):  # the same, built in this process
            make_agent(spec, seed=0)


@pytest.mark.fault("handled")
def test_a_move_time_limit_applies_when_none_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("training.arena.match.DEFAULT_MOVE_TIME_LIMIT", 0.5)
    result = play_match(CONFIG, ["random", bad("Hanger")], seed=4, on_error="forfeit")
    assert result.forfeit is not None and (result.forfeit.seat, result.forfeit.kind) == (1, "timeout")


class _Slow(RandomAgent):
    def choose_action(self, game: Game):  # type: ignore[no-untyped-def]
        time.sleep(0.05)
        return super().choose_action(game)


@pytest.mark.fault("handled")
def test_a_project_agent_over_the_limit_is_charged_the_forfeit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The project's own agents play in the runner's process: one that overruns is charged when it returns."""
    monkeypatch.setitem(_REGISTRY, "slow_test_agent", lambda seed: _Slow(seed=seed))
    result = play_match(CONFIG, ["random", "slow_test_agent"], seed=4, on_error="forfeit", move_time_limit=0.01)
    assert result.forfeit is not None and result.forfeit.kind == "timeout"
    assert "more than the 0.01 s move time limit" in result.forfeit.message


@pytest.mark.fault("handled")
def test_play_announces_the_real_scores_of_a_game_against_a_saboteur(capsys: pytest.CaptureFixture[str]) -> None:
    from training.cli.main import main

    assert main(["play", hostile("Saboteur"), "random", "--seed", "3", "--quiet"]) == 0
    tower = GameConfig(players=2, expansions=TOWER_VARIANT)  # play's default
    expected = play_match(tower, [hostile("Saboteur"), "random"], seed=3).scores
    assert f"final scores {list(expected)}" in capsys.readouterr().out and max(expected) < 1000


@pytest.mark.fault("handled")
def test_an_agent_cannot_charge_itself_a_kind_only_the_runner_charges(tmp_path: Path) -> None:
    """The pipe carries the child's report of what its agent raised; an agent that writes an
    ``illegal`` failure there (no action as evidence) forfeits for an exception, and the record stays
    one the tournament's own check accepts."""
    from training.arena.tournament import GAMES_FILE, Settings, load_games, run

    settings = Settings(agents=(hostile("PipeForger"), "random"), seeds=1, config=CONFIG.to_dict())
    run(settings, tmp_path, workers=1, progress=False)
    games = load_games(tmp_path)
    assert (tmp_path / GAMES_FILE).exists() and len(games) == 2
    assert {g["forfeit"]["kind"] for g in games} == {"exception"}


@pytest.mark.fault("handled")
def test_a_move_without_the_childs_cpu_seconds_is_the_agents_forfeit() -> None:
    """Each move carries the CPU seconds the child measured; an agent that forges a move without them
    (to hide its thinking time) forfeits for an exception, and nothing it wrote is played."""
    result = play_match(CONFIG, [hostile("TimeForger"), "random"], seed=1, on_error="forfeit")
    assert result.forfeit is not None and result.forfeit.kind == "exception"
    assert "without its CPU seconds" in result.forfeit.message and not result.record.actions
