"""Observations decoded back equal the engine state.

``expected_observation`` encodes a game from scratch, from the engine's public queries only
(``tiles()``, ``followers()``, ``feature()``, ``monastery_complete()``, the tower state), with
cross-border links derived from the half-edge pairing of docs/rules.md C2 rather than from the tile
ports; the env's incrementally kept observation must equal it at sampled steps of random games.
Spot checks then read single facts back: a tower's height, prisoners, the seat rotation.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from carcassonne_env.engine import Action, ActionKind, FloorColour, Game, GameConfig, Phase, SegmentKind
from carcassonne_env.engine.position import PositionBuilder
from carcassonne_env.engine.registry import EXPANSIONS, TOWER_VARIANT, with_requirements
from carcassonne_env.environment import raw_env
from carcassonne_env.environment.layout import VARIANT_FLAGS, WATCHTOWER_SUBJECTS, Layout
from carcassonne_env.environment.observation import Encoder
from carcassonne_env.environment.subcell_planes import stamp
from carcassonne_env.environment.window import Window


def _joined_across(tile_a, rot_a, slot_a, tile_b, rot_b, slot_b, edge_a: int) -> bool:  # type: ignore[no-untyped-def]
    """Whether two segments meet through edge ``edge_a`` of A (and the opposite edge of B), by C2."""
    edge_b = (edge_a + 2) % 4
    if edge_a in tile_a.segment_edges[rot_a][slot_a] and edge_b in tile_b.segment_edges[rot_b][slot_b]:
        return True
    halves_b = tile_b.segment_half_edges[rot_b][slot_b]
    return any(
        h // 2 == edge_a and ((h + 4) % 8) ^ 1 in halves_b for h in tile_a.segment_half_edges[rot_a][slot_a]
    )


def expected_observation(game: Game, layout: Layout, window: Window, observer: int) -> dict[str, np.ndarray]:
    n = game.num_players
    board = np.zeros(layout.board_shape, dtype=np.uint8)
    cells = np.zeros(layout.cells_shape, dtype=np.uint8)
    b, c = layout.board_index, layout.cells_index
    seat = {p: (p - observer) % n for p in range(n)}
    tiles = {(t.x, t.y): t for t in game.tiles()}

    def sub(x: int, y: int) -> tuple[int, int]:
        return 3 * (window.top - y), 3 * (x - window.left)

    for (x, y), t in tiles.items():
        if not window.contains(x, y):
            continue
        r0, c0 = sub(x, y)
        row, col = window.top - y, x - window.left
        slots = stamp(t.tile, t.rotation).slots
        for slot in range(t.tile.segment_count):
            kind = t.tile.segment_kinds[slot]
            feature = game.feature(x, y, slot)
            if kind is SegmentKind.MONASTERY:
                ring = sum((x + dx, y + dy) in tiles for dx in (-1, 0, 1) for dy in (-1, 0, 1)) - 1
                complete, open_, size = game.monastery_complete(x, y), 8 - ring, 1 + ring
            else:
                complete = feature.complete
                open_ = 0 if kind is SegmentKind.FIELD else feature.open_edges
                size = feature.size
            values = {"complete": complete, "open": open_, "size": size, "slot": slot + 1,
                      "pennants": t.tile.segment_pennants[slot], ("city", "road", "field", "monastery")[kind]: 1}
            for p in range(n):
                values[f"feature_followers_s{seat[p]}"] = feature.followers[p]
            for r in range(3):
                for cc in range(3):
                    if slots[r][cc] == slot:
                        for name, v in values.items():
                            board[b[name], r0 + r, c0 + cc] = v
        for r in range(3):
            for cc in range(3):
                s = slots[r][cc]
                if s < 0:
                    continue
                if cc < 2:
                    board[b["link_east"], r0 + r, c0 + cc] = slots[r][cc + 1] == s
                elif (x + 1, y) in tiles and window.contains(x + 1, y):
                    e = tiles[(x + 1, y)]
                    s2 = stamp(e.tile, e.rotation).slots[r][0]
                    board[b["link_east"], r0 + r, c0 + 2] = s2 >= 0 and _joined_across(
                        t.tile, t.rotation, s, e.tile, e.rotation, s2, 1)
                if r < 2:
                    board[b["link_south"], r0 + r, c0 + cc] = slots[r + 1][cc] == s
                elif (x, y - 1) in tiles and window.contains(x, y - 1):
                    e = tiles[(x, y - 1)]
                    s2 = stamp(e.tile, e.rotation).slots[0][cc]
                    board[b["link_south"], r0 + 2, c0 + cc] = s2 >= 0 and _joined_across(
                        t.tile, t.rotation, s, e.tile, e.rotation, s2, 2)
        cells[c["tile"], row, col] = 1
        cells[c["tile_type"], row, col] = t.tile.index + 1
        cells[c["rotation"], row, col] = t.rotation + 1
        cells[c["foundation"], row, col] = t.tile.tower_foundation
        if t.tile.watchtower is not None:
            cells[c["watchtower_" + t.tile.watchtower.subject.replace("-", "_")], row, col] = 1
    for f in game.followers():
        if window.contains(f.x, f.y):
            t = tiles[(f.x, f.y)]
            r0, c0 = sub(f.x, f.y)
            for k in stamp(t.tile, t.rotation).cells[f.slot]:
                board[b[f"follower_s{seat[f.owner]}"], r0 + k // 3, c0 + k % 3] = 1
    vector = np.zeros(layout.vector_size, dtype=np.float32)
    v = {e.name: e.start for e in layout.vector}
    vector[v["phase"] + game.phase] = 1
    if not game.is_over:
        vector[v["to_move"] + seat[game.current_player]] = 1
        vector[v["tile"] + game.current_tile.index] = 1  # type: ignore[union-attr]
    if game.phase in (Phase.ACTION, Phase.CAPTURE):
        last = game.tiles()[-1]
        vector[v["rotation"] + last.rotation] = 1
        if window.contains(last.x, last.y):
            cells[c["placed"], window.top - last.y, last.x - window.left] = 1
    vector[v["remaining"]:v["remaining"] + layout.tile_types] = game.remaining_counts
    vector[v["tiles_left"]] = game.tiles_left
    config = game.config
    for k, name in enumerate(EXPANSIONS):
        vector[v["expansions"] + k] = config.has(name)
    for k, flag in enumerate(VARIANT_FLAGS):
        vector[v["variants"] + k] = getattr(config, flag)
    vector[v["extra_foundation_tiles"]] = config.extra_foundation_tiles
    for p in range(n):
        vector[v["scores"] + seat[p]] = game.scores[p]
        vector[v["supply"] + seat[p]] = game.supply[p]
    if game.config.has("tower"):
        st = game.expansion_state("tower")
        for x, y in st.foundations():
            if not window.contains(x, y):
                continue
            row, col = window.top - y, x - window.left
            cells[c["height"], row, col] = st.height(x, y)
            colour = st.colour(x, y)
            if colour is not None:
                cells[c[("normal", "black", "white")[colour]], row, col] = 1
            cells[c["open_tower"], row, col] = st.is_open(x, y)
            top = st.top(x, y)
            if top is not None:
                cells[c[f"tower_top_s{seat[top]}"], row, col] = 1
        if game.phase is Phase.CAPTURE:
            floor = game.history[-1]
            assert floor.kind == ActionKind.FLOOR
            cells[c["capture_origin"], window.top - floor.y, floor.x - window.left] = 1
        for p in range(n):
            for colour in range(3):
                vector[v["floors"] + 3 * seat[p] + colour] = st.floor_supply(p)[colour]
            for o in range(n):
                vector[v["prisoners"] + n * seat[p] + seat[o]] = st.prisoner_count(p, o)
        vector[v["ransom_paid"]] = not game.is_over and st.ransom_turn == game.turn
    return {"board": board, "cells": cells, "vector": vector}


def assert_same(obs: dict[str, np.ndarray], expected: dict[str, np.ndarray], layout: Layout) -> None:
    for key, names in (("board", layout.board), ("cells", layout.cells)):
        for e in names:
            got, want = obs[key][e.start], expected[key][e.start]
            if not np.array_equal(got, want):
                where = np.argwhere(got != want)[:3].tolist()
                raise AssertionError(f"{key} plane {e.name!r} differs at {where}")
    for e in layout.vector:
        np.testing.assert_array_equal(obs["vector"][e.start:e.stop], expected["vector"][e.start:e.stop], err_msg=e.name)


@pytest.mark.parametrize(
    ("players", "expansions", "seed"),
    [
        (2, TOWER_VARIANT, 1), (3, TOWER_VARIANT, 2), (4, TOWER_VARIANT, 3), (5, TOWER_VARIANT, 4),
        (6, TOWER_VARIANT, 5),
        (2, (), 6), (3, ("tower",), 7), (4, ("watchtowers",), 8),
    ],
)
def test_observation_equals_a_from_scratch_encoding(players: int, expansions: tuple[str, ...], seed: int) -> None:
    env = raw_env(players=players, expansions=expansions, window=23)
    env.reset(seed=seed)
    layout = env.encoder.layout
    rng = random.Random(seed)
    step = 0
    space = env.observation_space(env.agent_selection)
    while True:
        game = env.game
        if step % 5 == 0 or game.is_over or game.phase is Phase.CAPTURE:
            observer = rng.randrange(players)
            obs = env.observe(f"player_{observer}")
            assert space.contains(obs)
            assert_same(obs["observation"], expected_observation(game, layout, env.encoder.window, observer), layout)
        if game.is_over:
            break
        legal = np.flatnonzero(env.action_mask(env.agent_selection))
        env.step(int(legal[rng.randrange(len(legal))]))
        step += 1


def _tower_game() -> Game:
    """Player 1 to place; a 3-floor black tower at (0,-1) with player 0 on top; P[0][1] = 2."""
    config = GameConfig(players=3, expansions=with_requirements("black_tower"))
    builder = (
        PositionBuilder(config)
        .tile("base/RCr", 0, 0)
        .tile("tower/F", 0, -1)
        .tower(0, -1, [FloorColour.NORMAL, FloorColour.NORMAL, FloorColour.BLACK])
        .tower_top(0, 0, -1)
        .follower(2, 0, 0, slot=0)
        .prisoners(0, 1, 2)
        .score(0, 5)
        .score(1, 9)
        .score(2, 7)
    )
    return builder.build(pile=["base/C", "base/C"], current_player=1)


def test_spot_checks_read_back_towers_prisoners_and_seats() -> None:
    game = _tower_game()
    encoder = Encoder(game.config, 9)
    encoder.reset(game)
    layout = encoder.layout
    w = encoder.window
    row, col = w.top + 1, 0 - w.left
    for observer in range(3):
        obs = encoder.observation(game, observer)
        c, v = obs["cells"], obs["vector"]
        ci = layout.cells_index
        assert c[ci["height"], row, col] == 3
        assert c[ci["black"], row, col] == 1 and c[ci["open_tower"], row, col] == 0
        assert c[ci[f"tower_top_s{(0 - observer) % 3}"], row, col] == 1
        prisoners = v[layout.vector_entry["prisoners"].start:layout.vector_entry["prisoners"].stop].reshape(3, 3)
        assert prisoners[(0 - observer) % 3, (1 - observer) % 3] == 2
        assert prisoners.sum() == 2
        scores = v[layout.vector_entry["scores"].start:layout.vector_entry["scores"].stop]
        assert scores.tolist() == [[5, 9, 7][(observer + k) % 3] for k in range(3)]
        to_move = v[layout.vector_entry["to_move"].start:layout.vector_entry["to_move"].stop]
        assert to_move.tolist() == [float(k == (1 - observer) % 3) for k in range(3)]
        knight = obs["board"][layout.board_index[f"follower_s{(2 - observer) % 3}"]]
        assert knight[3 * (w.top - 0) + 0, 3 * (0 - w.left) + 1] == 1  # the N edge sub-cell of (0,0)
        assert knight.sum() == 1


def test_observations_are_fresh_arrays() -> None:
    env = raw_env(players=2)
    env.reset(seed=0)
    a = env.observe("player_0")
    b = env.observe("player_0")
    for key in ("board", "cells", "vector"):
        assert not np.shares_memory(a["observation"][key], b["observation"][key])
        assert not np.shares_memory(a["observation"][key], env.encoder.mirror.board)
    assert not np.shares_memory(a["action_mask"], b["action_mask"])
    a["observation"]["board"][:] = 99
    assert not np.array_equal(env.observe("player_0")["observation"]["board"], a["observation"]["board"])


@pytest.mark.parametrize("players", [2, 5])
def test_the_pile_order_is_never_observed(players: int) -> None:
    """Two games whose piles share the first 40 tiles and hold the rest in another order look the
    same to every observer at every step until the draws differ (R4: the order is hidden)."""
    config = GameConfig(players=players, expansions=TOWER_VARIANT)
    pile = Game(config, seed=5).to_dict()["pile"]
    shared = 40
    games = [Game(config, tile_order=pile), Game(config, tile_order=pile[:shared] + pile[:shared - 1:-1])]
    assert games[0].to_dict()["pile"] != games[1].to_dict()["pile"]
    rng = random.Random(0)
    encoders = [Encoder(config, 23), Encoder(config, 23)]
    for g, e in zip(games, encoders, strict=True):
        e.reset(g)
    compared = 0
    while games[0].current_tile is games[1].current_tile and not games[0].is_over:
        for observer in range(players):
            a, b = (e.observation(g, observer) for g, e in zip(games, encoders, strict=True))
            for key in a:
                np.testing.assert_array_equal(a[key], b[key])
        compared += 1
        legal = games[0].legal_actions()
        action = legal[rng.randrange(len(legal))]
        for g, e in zip(games, encoders, strict=True):
            g.apply(action)
            e.sync(g)
    assert compared > 2 * shared - 5, compared


def test_an_encoder_started_in_the_capture_phase_marks_the_capturing_tower() -> None:
    """The capture origin comes from the game, so a clone or a loaded game in T4 shows it too."""
    config = GameConfig(players=2, expansions=("tower",))
    game = (
        PositionBuilder(config)
        .tile("tower/F", 0, 0)
        .tile("base/L", 1, 0)
        .tower(0, 0, [FloorColour.NORMAL])
        .follower(1, 1, 0, slot=0)
        .build(pile=["base/L", "base/L"])
    )
    game.apply(game.legal_actions()[0])
    game.apply(Action.floor(0, 0, FloorColour.NORMAL))
    assert game.phase is Phase.CAPTURE
    encoder = Encoder(config, 9)
    encoder.reset(Game.from_dict(game.to_dict()))
    cells = encoder.observation(game, 0)["cells"][encoder.layout.cells_index["capture_origin"]]
    w = encoder.window
    assert np.argwhere(cells).tolist() == [[w.top - 0, 0 - w.left]]


def test_watchtower_planes_follow_the_subject_order() -> None:
    assert [e.name for e in Layout(GameConfig(), 5).cells if e.name.startswith("watchtower_")] == [
        "watchtower_" + w.replace("-", "_") for w in WATCHTOWER_SUBJECTS
    ]


@pytest.mark.parametrize("seed", range(4))
def test_an_encoder_that_catches_up_many_moves_equals_one_synced_every_move(seed: int) -> None:
    """Mirror.sync after any number of moves (a fresh encoder of a game in progress, or one that
    skipped moves) gives the planes of the encoder synced after every move, for every observer."""
    config = GameConfig(players=3, expansions=TOWER_VARIANT)
    game = Game(config, seed=seed)
    rng = random.Random(seed)
    stepwise, skipping = Encoder(config, 23), Encoder(config, 23)
    stepwise.reset(game)
    skipping.reset(game)
    moves = 0
    while not game.is_over:
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
        stepwise.sync(game)
        moves += 1
        if moves % 17 == 0 or game.is_over:
            skipping.sync(game)
            fresh = Encoder(config, 23)
            fresh.reset(game)
            for other in (skipping, fresh):
                for observer in range(3):
                    a, b = stepwise.observation(game, observer), other.observation(game, observer)
                    for key in a:
                        np.testing.assert_array_equal(a[key], b[key], err_msg=f"{key} after {moves} moves")
