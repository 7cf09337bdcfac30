"""Features turned into points on a live game: the T5 scoring of this turn's completed features
(R22–R25, R64), the final scoring (R27–R29), and the end-now value, what both would give if the
game ended at this moment, computed without changing or copying the game.

Each reads the union-find roots' totals (:mod:`.union_find`); what a feature is worth given its
totals is :mod:`.scoring`'s. Two caches of the game serve the end-now value: ``_value_cache``
(feature root → its end-game value; its invariant is :mod:`.board`'s) and ``_final_memo`` (see
:func:`end_now`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from .actions import Action, ActionKind, IllegalActionError, Phase
from .followers import lift
from .geometry import RING, unpack
from .scoring import ScoreEvent, ScoreReason, award, completed_value, field_value, final_value, majority_counts
from .tiles import SegmentKind
from .union_find import find

if TYPE_CHECKING:
    from .game import Game

__all__ = ["end_game", "end_now", "feature_value", "score_completed", "scores_after"]

_FIELD: Final = SegmentKind.FIELD
_MONASTERY: Final = SegmentKind.MONASTERY
#: The score-log reason of a feature, by SegmentKind.
_FEATURE_REASONS: Final[tuple[ScoreReason, ...]] = ("city", "road", "field", "monastery")


def feature_value(game: Game, root: int) -> int:
    """End-game value of the feature rooted at ``root`` (R27, R28), from its totals: a monastery
    counts its tile and the tiles around it, a field 3 points per completed city it borders."""
    kind = game._kind[root]
    if kind is _MONASTERY:
        p = game._tile_pos[game._node_tile[root]]
        board = game._board
        return final_value(kind, 1 + sum(p + d in board for d in RING), 0)
    if kind is not _FIELD:
        return final_value(kind, game._tiles[root].bit_count(), game._pennants[root])
    bits = game._adj[root] & game._closed_nodes
    if not bits:
        return 0
    return field_value(sum(1 for mask in game._closed_cities if mask & bits))


def _completed_points(game: Game, root: int) -> int:
    """What the feature rooted at ``root``, just completed, scores in T5 (R22–R24)."""
    legacy = game._config.legacy_small_city
    return completed_value(game._kind[root], game._tiles[root].bit_count(), game._pennants[root],
                           legacy_small_city=legacy)


def _award_into(
    game: Game, scores: list[int], events: list[ScoreEvent], counts: Sequence[int], value: int, root: int, final: bool
) -> None:
    """:func:`~.scoring.award` into ``scores``, appending to ``events`` the score-log event of each
    player it paid (those with the most followers, in seat order; none when ``value`` is 0)."""
    if not value:
        return
    best = max(counts)
    x, y = unpack(game._tile_pos[game._node_tile[root]])
    reason = _FEATURE_REASONS[game._kind[root]]
    turn = game._turn
    for p, k in enumerate(counts):
        if k == best:
            scores[p] += value
            events.append(ScoreEvent(turn, p, value, reason, x, y, final))


def _pay(game: Game, counts: Sequence[int], value: int, root: int, final: bool) -> None:
    """Pay ``value`` for the feature rooted at ``root`` into the game's scores, and into its score log
    when it keeps one."""
    log = game._score_log
    if log is None:
        award(game._scores, counts, value)
    else:
        _award_into(game, game._scores, log, counts, value, root, final)


def score_completed(game: Game) -> None:
    """T5: the features completed this turn score and their followers return (R22–R25, R64)."""
    completed = game._completed
    if completed:
        for hook in game._scoring_hooks:
            hook(game, completed)
        occupants = game._occupants
        if any(occupants[r] for r in completed):
            counts = majority_counts(game._followers, game._find, completed, game.num_players)
            for root, c in counts.items():
                _pay(game, c, _completed_points(game, root), root, False)
            done = set(counts)
            for node in [n for n in game._followers if game._find(n) in done]:
                game._supply[lift(game, node)] += 1
        game._completed = []


def end_game(game: Game) -> None:
    """Final scoring (R27–R29) and the game is over; followers stay where they are."""
    game._phase = Phase.GAME_OVER
    game._tile = None
    game._legal = []
    find_root = game._find
    followers = game._followers
    counts = majority_counts(followers, find_root, {find_root(n) for n in followers}, game.num_players)
    for root, c in counts.items():
        _pay(game, c, feature_value(game, root), root, True)


def end_now(
    game: Game, events: list[ScoreEvent] | None, by_kind: list[list[int]] | None = None, *, use_memo: bool = True
) -> list[int]:
    """The scores if the game ended now, read off the union-find roots of the live game.

    Exactly what :func:`score_completed` then :func:`end_game` would do to a copy, in the same
    order (so ``events``, when given, receives the same score-log events): the ``before_scoring``
    hooks run on this game with its scores and score log swapped for scratch ones (the hook
    contract: they change nothing but scores, through ``add_score``, as every hook of this package
    does); the completed features with followers score their completed value and are then left
    out; every other feature with followers scores its end-game value (R27–R29), added to
    ``by_kind[player][kind]`` too when given. Nothing of the game changes: followers are counted,
    not removed.

    ``_final_memo`` keeps that end-game part (points per player) for the plain scores (no
    ``events``, no ``by_kind``): invariant, when not None it is the end-game part of the game as it
    stands; everything that changes followers, features or this turn's completed features resets it
    (``apply``, ``put_tile``, ``remove_follower``, ``GameSetup``). ``use_memo=False`` while a
    follower is put in for a what-if (:func:`scores_after`).
    """
    scores = game._scores.copy()
    n = game._config.players
    completed = game._completed
    done: set[int] = set()
    if completed:
        if game._scoring_hooks:
            saved_scores, saved_log = game._scores, game._score_log
            game._scores, game._score_log = scores, events
            try:
                for hook in game._scoring_hooks:
                    hook(game, completed)
            finally:
                game._scores, game._score_log = saved_scores, saved_log
        occupants = game._occupants
        if any(occupants[r] for r in completed):
            counts = majority_counts(game._followers, game._find, completed, n)
            for root, tc in counts.items():
                points = _completed_points(game, root)
                if events is None:
                    award(scores, tc, points)
                else:
                    _award_into(game, scores, events, tc, points, root, False)
            done = set(counts)
    if use_memo and events is None and by_kind is None:
        memo = game._final_memo
        if memo is None:
            memo = game._final_memo = _final_part(game, done)
        for p in range(n):
            scores[p] += memo[p]
        return scores
    for root, c, value in _followed_values(game, done):
        if by_kind is not None:
            best = max(c)
            kind = game._kind[root]
            for p, k in enumerate(c):
                if k == best:
                    scores[p] += value
                    by_kind[p][kind] += value
        elif events is not None:
            _award_into(game, scores, events, c, value, root, True)
        else:
            award(scores, c, value)
    return scores


def _followed_values(game: Game, done: set[int]) -> list[tuple[int, list[int], int]]:
    """``(root, followers per player, end-game value)`` of every feature with followers, but the
    roots in ``done`` and those worth nothing (R27–R29; values cached in ``_value_cache``)."""
    n = game._config.players
    on: dict[int, list[int]] = {}
    parent = game._parent
    log = game._parent_log
    for segment, owner in game._followers.items():
        root = parent[segment]
        if parent[root] != root:
            root = find(parent, segment, log)
        if root in done:
            continue
        c = on.get(root)
        if c is None:
            c = on[root] = [0] * n
        c[owner] += 1
    cache = game._value_cache
    out = []
    for root, c in on.items():
        value = cache.get(root)
        if value is None:
            value = cache[root] = feature_value(game, root)
        if value:
            out.append((root, c, value))
    return out


def _final_part(game: Game, done: set[int]) -> list[int]:
    """The end-game points (R27–R29) per player of the features with followers, but ``done``."""
    out = [0] * game._config.players
    for _, c, value in _followed_values(game, done):
        award(out, c, value)
    return out


def scores_after(game: Game, action: Action) -> tuple[int, ...]:
    """``Game.scores_if_ended_after``: the end-now scores after ``action``, a turn's last choice,
    played on a copy only where nothing cheaper is exact (see that method for the contract)."""
    kind = action[0]
    phase = game._phase
    if kind == ActionKind.PASS and phase is Phase.ACTION:
        return game.scores_if_ended_now()
    if (kind in game._neutral_endings and action in game.legal_actions()
            and not (game._completed and game._scoring_hooks)):
        return game.scores_if_ended_now()
    if kind != ActionKind.DEPLOY or phase is not Phase.ACTION:
        after = game.clone()
        after.apply(action)
        if not after.is_over and after._current == game._current:
            raise ValueError(f"scores_if_ended_after: {action} does not end the turn")
        return after.scores_if_ended_now()
    _, x, y, slot = action
    if (x, y) != unpack(game._tile_pos[-1]) or not 0 <= slot < game._tile_type[-1].segment_count:
        raise IllegalActionError(f"{action}: not a segment of the tile just placed (R14)")
    player = game._current
    node = game._tile_base[-1] + slot
    root = game._find(node)
    if game._supply[player] == 0 or game._occupants[root]:
        raise IllegalActionError(f"{action}: not a legal DEPLOY (R15, R2)")
    completed = game._completed
    if completed and (game._scoring_hooks or root in completed):  # this turn's scoring sees it
        followers = game._followers
        followers[node] = player  # as apply's DEPLOY puts it (last in the dict), taken off below
        game._occupants[root] += 1
        try:
            return tuple(end_now(game, None, use_memo=False))
        finally:
            del followers[node]
            game._occupants[root] -= 1
    # Otherwise the follower changes only the end-game scoring, of its own feature, which holds
    # no other follower (R15): the end-now scores plus that feature's value for the player.
    scores = end_now(game, None)
    cache = game._value_cache
    value = cache.get(root)
    if value is None:
        value = cache[root] = feature_value(game, root)
    scores[player] += value
    return tuple(scores)
