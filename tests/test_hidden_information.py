"""Hidden information (R4: only the multiset of the pile is public), end-now evaluation and pickling.

* ``Game.determinize(rng)``: a copy whose unseen pile is reshuffled, everything public unchanged;
* ``Game.chance_outcomes()``: the distribution of the next draw;
* ``Game.scores_if_ended_now()``: R27–R29 applied to a copy (after the pending T5 of this turn);
* a ``Game`` survives pickling into a fresh ``spawn`` process and plays on identically.
"""

from __future__ import annotations

import multiprocessing
import pickle
from collections import Counter

import numpy as np
import pytest

from carcassonne_env.engine import Action, Game, GameConfig, Phase
from carcassonne_env.engine.actions import PASS
from carcassonne_env.engine.position import PositionBuilder
from carcassonne_env.engine.registry import TOWER_VARIANT
from carcassonne_env.environment.observation import Encoder

ALL = GameConfig(players=3, expansions=TOWER_VARIANT)
RED, BLUE = 0, 1


def _random_game(config: GameConfig, seed: int, decisions: int) -> Game:
    """A seeded game after ``decisions`` uniformly random decisions (or at its end)."""
    game = Game(config, seed=seed)
    rng = np.random.default_rng(seed + 1)
    for _ in range(decisions):
        if game.is_over:
            break
        legal = game.legal_actions()
        game.apply(legal[int(rng.integers(len(legal)))])
    return game


def _public(game: Game) -> dict[str, object]:
    """Everything a player may see: the saved position without the order of the unseen pile."""
    d = game.to_dict()
    pile, drawn = d.pop("pile"), d.pop("drawn")
    d.pop("explicit_order")
    d.pop("seed")
    d["seen"] = pile[:drawn]
    d["unseen"] = sorted(pile[drawn:])
    return d


def _play_out(game: Game, seed: int) -> tuple[int, ...]:
    rng = np.random.default_rng(seed)
    while not game.is_over:
        legal = game.legal_actions()
        game.apply(legal[int(rng.integers(len(legal)))])
    return game.scores


# ---------------------------------------------------------------------------------------- determinize
@pytest.mark.parametrize("decisions", [0, 37, 120, 260])
def test_determinized_copy_shows_the_same_public_state_legal_actions_and_observation(decisions: int) -> None:
    game = _random_game(ALL, seed=11, decisions=decisions)
    before = game.to_dict()
    copy = game.determinize(np.random.default_rng(5))
    assert _public(copy) == _public(game)
    assert list(copy.legal_actions()) == list(game.legal_actions())
    assert copy.chance_outcomes() == game.chance_outcomes()
    for observer in range(game.num_players):
        a, b = Encoder(ALL, 31), Encoder(ALL, 31)
        a.reset(game)
        b.reset(copy)
        obs_a, obs_b = a.observation(game, observer), b.observation(copy, observer)
        for key in obs_a:
            np.testing.assert_array_equal(obs_a[key], obs_b[key], err_msg=key)
    assert game.to_dict() == before  # the original is untouched


def test_determinize_reorders_only_the_unseen_pile_and_the_copy_replays() -> None:
    game = _random_game(ALL, seed=3, decisions=50)
    copy = game.determinize(np.random.default_rng(0))
    drawn = game.to_dict()["drawn"]
    assert copy.to_dict()["pile"][:drawn] == game.to_dict()["pile"][:drawn]
    assert copy.to_dict()["pile"] != game.to_dict()["pile"]  # 60+ tiles left: a reshuffle moves some
    assert copy.record().replay().to_dict() == copy.to_dict()
    # Playing on the copy never changes the original.
    before = game.to_dict()
    _play_out(copy, seed=9)
    assert game.to_dict() == before


def test_determinize_depends_only_on_the_generator() -> None:
    game = _random_game(ALL, seed=4, decisions=30)
    one = game.determinize(np.random.default_rng(42)).to_dict()
    two = game.determinize(np.random.default_rng(42)).to_dict()
    assert one == two


def test_determinize_rejects_anything_but_a_generator() -> None:
    game = Game(GameConfig(), seed=1)
    with pytest.raises(TypeError, match=r"rng must be a numpy\.random\.Generator"):
        game.determinize(42)  # type: ignore[arg-type]


def test_next_draw_frequencies_over_resamples_match_chance_outcomes() -> None:
    """Over 6,000 resamples the first unseen tile follows ``chance_outcomes()``: every type's
    frequency lies within 5 standard errors of its probability (fixed seed, generous bound)."""
    game = _random_game(ALL, seed=21, decisions=90)
    outcomes = game.chance_outcomes()
    drawn = game.to_dict()["drawn"]
    rng = np.random.default_rng(2026)
    trials = 6000
    counts = Counter(game.determinize(rng).to_dict()["pile"][drawn] for _ in range(trials))
    assert set(counts) <= set(outcomes)
    for tile_id, p in outcomes.items():
        se = np.sqrt(p * (1 - p) / trials)
        assert abs(counts[tile_id] / trials - p) <= 5 * se + 1e-12, tile_id


def test_chance_outcomes_are_the_remaining_counts_normalised() -> None:
    game = _random_game(ALL, seed=8, decisions=40)
    outcomes = game.chance_outcomes()
    assert sum(outcomes.values()) == pytest.approx(1.0)
    types = game.catalogue.types
    expected = {types[i].id: c / game.tiles_left for i, c in enumerate(game.remaining_counts) if c}
    assert outcomes == expected


def test_chance_outcomes_are_empty_when_the_pile_is() -> None:
    game = _random_game(GameConfig(), seed=2, decisions=10_000)
    assert game.is_over
    assert game.chance_outcomes() == {}


# ---------------------------------------------------------------------------------- end-now scores
def _built(tiles: list[tuple[str, int, int, int]], followers: list[tuple[int, int, int, int]],
           pile: list[str], config: GameConfig | None = None) -> Game:
    b = PositionBuilder(config or GameConfig(players=2))
    for tile_id, x, y, rot in tiles:
        b = b.tile(tile_id, x, y, rotation=rot)
    for player, x, y, slot in followers:
        b = b.follower(player, x, y, slot)
    return b.build(pile=pile)


def test_end_now_scores_an_incomplete_city_one_per_tile_plus_pennant() -> None:
    """R27: the 3-tile city base/C – CFc+ – CFc+ with Blue's knight is worth 3 + 2 = 5 now; the
    game (pile not empty) is not ended by asking."""
    g = _built([("base/C", 0, 0, 1), ("base/CFc+", 1, 0, 0), ("base/CFc+", 2, 0, 0)],
               [(BLUE, 0, 0, 0)], pile=["base/RFr", "base/RFr"])
    before = g.to_dict()
    assert g.scores_if_ended_now() == (0, 5)
    assert g.scores == (0, 0) and g.phase is Phase.PLACE
    assert g.to_dict() == before


def test_end_now_scores_monastery_road_and_farmer_like_the_end_of_the_game() -> None:
    """R27, R28: the E8 farmers board (Red 6, Blue 3 from fields; roads and cities as R27) gives
    the same end-now figure as actually ending the game with an empty pile."""
    tiles = [
        ("base/C", 0, 0, 1), ("base/CFc.1", 1, 0, 0), ("base/C", 2, 0, 3),
        ("base/C", -1, 0, 0), ("base/C", -1, 1, 2), ("base/C", 3, 0, 0),
        ("base/RFr", 0, -1, 0), ("base/RFr", 1, -1, 0), ("base/RFr", 2, -1, 0),
    ]
    followers = [(RED, 0, -1, 1), (RED, 2, -1, 1), (BLUE, 3, 0, 1), (BLUE, 1, 0, 1)]
    running = _built(tiles, followers, pile=["base/L"])
    ended = _built(tiles, followers, pile=[])
    assert ended.is_over and ended.scores == (6, 3)
    assert running.scores_if_ended_now() == ended.scores


def test_end_now_counts_the_pending_t5_scoring_of_this_turn() -> None:
    """Between T2 and T5: Red closed a 2-tile city holding her knight; end-now scores it as
    completed (R23: 4) and returns nothing else, exactly what PASS and an empty pile would give."""
    g = _built([("base/C", 0, 0, 2)], [(RED, 0, 0, 0)], pile=["base/C"])
    g.apply(Action.place(0, -1, 0))
    assert g.phase is Phase.ACTION
    assert g.scores_if_ended_now() == (4, 0)
    g.apply(PASS)
    assert g.is_over and g.scores == (4, 0)


def test_end_now_after_the_game_is_the_final_score() -> None:
    game = _random_game(ALL, seed=5, decisions=10_000)
    assert game.is_over
    assert game.scores_if_ended_now() == game.scores


@pytest.mark.parametrize("seed", range(4))
def test_end_now_equals_really_ending_the_game_before_this_draw(seed: int) -> None:
    """At the start of every 4th turn (all expansions, 3 players), end-now equals the final score
    of the same game replayed with a pile that runs out just before this turn's draw (R26: the
    game ends after the previous turn's scoring, R27–R29 apply)."""
    game = Game(ALL, seed=seed)
    rng = np.random.default_rng(seed)
    while not game.is_over:
        if game.phase is Phase.PLACE and game.turn % 4 == 0:
            d = game.to_dict()
            ended = Game(ALL, tile_order=d["pile"][: d["drawn"] - 1])
            for action in game.history:
                ended.apply(action)
            assert ended.is_over
            assert game.scores_if_ended_now() == ended.scores
        legal = game.legal_actions()
        game.apply(legal[int(rng.integers(len(legal)))])


# ---------------------------------------------------------------------------------------- pickling
def _continue(blob: bytes, seed: int) -> tuple[tuple[int, ...], list[list[int]]]:
    game = pickle.loads(blob)
    scores = _play_out(game, seed)
    return scores, [[int(v) for v in a] for a in game.history]


def test_games_pickled_into_a_spawn_pool_continue_exactly_as_in_process() -> None:
    """A fresh ``spawn`` process has none of the engine's per-process caches filled: games sent
    there mid-game (all expansions, 2–6 players, all phases) play to the same end as in-process."""
    games = []
    for players in (2, 3, 4, 6):
        config = GameConfig(players=players, expansions=TOWER_VARIANT)
        for decisions in (0, 61, 143):
            games.append(_random_game(config, seed=players * 100 + decisions, decisions=decisions))
    phases = {g.phase for g in games}
    assert Phase.PLACE in phases and Phase.ACTION in phases
    blobs = [pickle.dumps(g) for g in games]
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        remote = pool.starmap(_continue, [(b, i) for i, b in enumerate(blobs)])
    local = [_continue(b, i) for i, b in enumerate(blobs)]
    assert remote == local
    for game, (scores, history) in zip(games, local, strict=True):
        assert not game.is_over or tuple(game.scores) == scores
        assert history[: len(game.history)] == [[int(v) for v in a] for a in game.history]


def test_a_pickled_game_equals_the_original() -> None:
    game = _random_game(ALL, seed=17, decisions=75)
    copy = pickle.loads(pickle.dumps(game))
    assert copy.to_dict() == game.to_dict()
    assert list(copy.legal_actions()) == list(game.legal_actions())
