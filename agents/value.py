"""A learned position value: each player's expected final score, as the end-now score plus a
linear correction fitted on finished games.

The end-now value (:meth:`Game.scores_if_ended_now`) is what greedy maximises: every unfinished
city, road, monastery and field scores as if the game ended on this turn. Mid-game that misjudges
positions in known directions: an open city usually grows and often completes (worth more than its
end-now value), a field gains a point for every city finished next to it later, a follower in the
supply is worth the points it will still score, and a player with no follower left scores little
until one comes back. The linear model learns those corrections from games:

    final[p] ≈ end_now[p] + Σ_k (a_k · t + b_k · t²) · f_k(p)

where ``t`` is the share of the pile still to be drawn (so the correction vanishes at the end of
the game, where the end-now score *is* the final score) and ``f(p)`` are the features of
:data:`FEATURES` for player p. The weights are fitted by least squares (``carcassonne train value``)
and shipped as JSON; :data:`DEFAULT_WEIGHTS` is the file fitted on greedy-vs-greedy games of the
2-player tower variant.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Final

import numpy as np

from carcassonne_env.engine import Game, Phase, SegmentKind

from .evaluation import margins

__all__ = ["DEFAULT_WEIGHTS", "FEATURES", "LinearValue", "design_row", "feature_rows", "next_turn", "player_features"]

#: The per-player features f(p), in the order of the weight vector's two halves (t and t²).
FEATURES: Final[tuple[str, ...]] = (
    "bias",             # 1: the points every player still scores on average
    "places_next",      # 1 for the player who places the next tile (see player_features)
    "open_city",        # end-now points of p's unfinished cities
    "open_road",        # … roads
    "open_monastery",   # … monasteries
    "field",            # … fields (farmers)
    "supply",           # followers in p's supply
    "no_supply",        # 1 when p's supply is empty
    "floors",           # tower floors in p's supply (all colours)
    "prisoners_held",   # followers of other players that p holds (R46)
    "prisoners_lost",   # p's followers held by other players
)

# Final: the compiled module reads these as constants, not from the module's dict at every use.
_CITY: Final = SegmentKind.CITY
_ROAD: Final = SegmentKind.ROAD
_FIELD: Final = SegmentKind.FIELD
_MONASTERY: Final = SegmentKind.MONASTERY

#: The weights shipped with the package (fitted by ``carcassonne train value``). Found through the
#: package, not ``__file__``: this module is compiled on install, and an extension module's
#: ``__file__`` is not its source file's path.
DEFAULT_WEIGHTS = Path(str(resources.files("agents").joinpath("pretrained").joinpath("value_linear.json")))


def next_turn(game: Game) -> tuple[int, float]:
    """The player who places the next tile and the share of the pile left when they draw it.

    At PLACE that is the current player with the tile in hand. In T3/T4 the tile is down and the
    end-now value already counts this turn's scoring, so the position is valued as the turn's end:
    the next player, after one more draw. Known approximations there (the fit saw PLACE positions
    only): the supply features do not yet count the followers this turn's scoring will return
    (R25), and the pile share's denominator counts the tile in hand, which it does not at PLACE,
    so a line that stops at PASS and the same line played to the turn's end can differ slightly.
    """
    total = game.tiles_left + game.tiles_placed + len(game.discarded)
    left = game.tiles_left
    player = game.current_player
    if game.phase is not Phase.PLACE:
        left = max(left - 1, 0)
        player = (player + 1) % game.num_players
    return player, left / total if total else 0.0


def feature_rows(game: Game) -> tuple[list[list[float]], list[float], float]:
    """Every player's features and end-now score: ``(f, end_now, t)``, ``f[p]`` the values of
    :data:`FEATURES` for player p, ``end_now`` = :meth:`Game.scores_if_ended_now` and ``t`` the
    share of the pile left at the next turn (0 once the game is over). Plain lists: this runs at
    every leaf of a search."""
    n = game.num_players
    if game.is_over:
        return [[1.0] + [0.0] * (len(FEATURES) - 1) for _ in range(n)], [float(s) for s in game.scores], 0.0
    player, t = next_turn(game)
    scores, final = game.end_now_breakdown()
    # Integer sums converted once: the same floats as adding the events one by one (all exact).
    f = [[1.0, float(p == player), float(k[_CITY]), float(k[_ROAD]), float(k[_MONASTERY]), float(k[_FIELD]),
          float(s), float(s == 0), 0.0, 0.0, 0.0]
         for p, (s, k) in enumerate(zip(game.supply, final, strict=True))]
    end_now = [float(s) for s in scores]
    if "tower" in game.expansion_states:
        tower = game.expansion_state("tower")
        # floors[3p + colour], prisoners[captor * n + owner] (TowerState); typed: compiled int reads
        floors: list[int] = tower.floors
        prisoners: list[int] = tower.prisoners
        for p in range(n):
            row = f[p]
            row[8] = float(floors[3 * p] + floors[3 * p + 1] + floors[3 * p + 2])
            held = lost = 0
            for o in range(n):
                if o != p:
                    held += prisoners[p * n + o]
                    lost += prisoners[o * n + p]
            row[9] = float(held)
            row[10] = float(lost)
    return f, end_now, t


def player_features(game: Game) -> tuple[np.ndarray, np.ndarray, float]:
    """:func:`feature_rows` as float64 arrays: ``f`` of shape (players, len(FEATURES)), ``end_now``
    of shape (players,)."""
    f, end_now, t = feature_rows(game)
    return np.array(f, dtype=np.float64), np.array(end_now, dtype=np.float64), t


def design_row(f: np.ndarray, t: float | np.ndarray) -> np.ndarray:
    """The regression inputs of features ``f`` (one row per player) at pile share ``t`` (a number,
    or an array broadcasting against ``f``: one share per row with a trailing axis of length 1)."""
    return np.concatenate([f * t, f * (t * t)], axis=-1)


@dataclass(frozen=True)
class LinearValue:
    """Expected final scores from :func:`player_features` and fitted ``weights``
    (length ``2 · len(FEATURES)``: the t terms, then the t² terms); ``players``: the number of
    players of the games they were fitted on (None: not recorded), checked by
    :func:`agents.compat.check_value_fits` before a game."""

    weights: np.ndarray
    players: int | None = None
    #: (t weight, t² weight) of each feature, as floats.
    _pairs: tuple[tuple[float, float], ...] = field(init=False, repr=False, compare=False)
    #: Pile share t → the effective weight of each feature at t (a pure function of t and the
    #: weights; t takes one value per pile size, so a search meets few).
    _effective: dict[float, list[float]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        w = np.asarray(self.weights, dtype=np.float64)
        if w.shape != (2 * len(FEATURES),) or not np.all(np.isfinite(w)):
            raise ValueError(f"LinearValue: weights must be {2 * len(FEATURES)} finite numbers, got shape {w.shape}")
        object.__setattr__(self, "weights", w)
        k = len(FEATURES)
        object.__setattr__(self, "_pairs", tuple(zip(w[:k].tolist(), w[k:].tolist(), strict=True)))
        object.__setattr__(self, "_effective", {})

    @classmethod
    def load(cls, path: str | Path = DEFAULT_WEIGHTS) -> LinearValue:
        """Weights from a JSON file written by ``carcassonne train value``; the file's feature list
        must be :data:`FEATURES`."""
        try:
            data = json.loads(Path(path).read_text())
        except (OSError, ValueError) as e:
            raise ValueError(f"LinearValue: cannot read value weights {path}: {e}") from None
        if not isinstance(data, dict) or data.get("features") != list(FEATURES):
            raise ValueError(f"LinearValue: {path} was fitted on other features than {list(FEATURES)}")
        players = data.get("players")
        if players is not None and (isinstance(players, bool) or not isinstance(players, int) or players < 2):
            raise ValueError(f"LinearValue: {path} records players={players!r}, not a number of players")
        try:
            return cls(np.array(data["weights"], dtype=np.float64), players)
        except (KeyError, TypeError) as e:
            raise ValueError(f"LinearValue: {path} holds no weights ({type(e).__name__}: {e})") from None

    def final_scores(self, game: Game) -> list[float]:
        """Each player's expected final score (the final scores once the game is over):
        ``end_now + design_row(f, t) @ weights``, in plain Python for speed."""
        f, end_now, t = feature_rows(game)
        effective = self._effective.get(t)
        if effective is None:
            if len(self._effective) > 4096:
                self._effective.clear()
            tt = t * t
            effective = self._effective[t] = [a * t + b * tt for a, b in self._pairs]
        out: list[float] = []
        k = len(effective)
        for row, e in zip(f, end_now, strict=True):
            assert len(row) == k
            # Left to right in feature order, no compensation: the floats the compiled sum() gave
            # before this loop (and Python 3.11's; from 3.12 an interpreted sum() compensates), as
            # plain float arithmetic when compiled.
            total = 0.0
            for i in range(k):
                total += row[i] * effective[i]
            out.append(e + total)
        return out

    def margins(self, game: Game) -> list[float]:
        """Each player's expected final score minus the best other player's."""
        return margins(self.final_scores(game))

    def margin(self, game: Game, player: int) -> float:
        """``player``'s expected final margin (a :class:`~agents.greedy.GreedyAgent` ``value``)."""
        return self.margins(game)[player]
