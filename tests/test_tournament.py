"""Tournament schedule fairness, match determinism and resumable runs (training/)."""

import json
from collections import Counter
from pathlib import Path

import pytest

from carcassonne_env.engine import GameConfig
from carcassonne_env.engine.registry import TOWER_VARIANT
from training.arena.match import MatchError, play_match
from training.arena.schedule import ScheduleError, gauntlet, round_robin
from training.arena.tournament import GAMES_FILE, Settings, TournamentError, load_games, run

BASE_2P = GameConfig(players=2).to_dict()


def test_round_robin_seats_every_agent_in_every_seat_on_the_same_tiles() -> None:
    fixtures = round_robin(["a", "b", "c"], players=2, seeds=[7, 8])
    assert len(fixtures) == 3 * 2 * 2  # pairs × seeds × seat rotations
    assert [f.index for f in fixtures] == list(range(12))
    for pair in (("a", "b"), ("a", "c"), ("b", "c")):
        for seed in (7, 8):
            seatings = {f.seats for f in fixtures if f.seed == seed and set(f.seats) == set(pair)}
            assert seatings == {pair, pair[::-1]}  # the seat-swapped pair
            assert len({f.group for f in fixtures if f.seed == seed and set(f.seats) == set(pair)}) == 1


def test_multiplayer_schedules_rotate_every_agent_through_every_seat() -> None:
    fixtures = round_robin(["a", "b", "c", "d"], players=3, seeds=[1])
    assert len(fixtures) == 4 * 3  # 4 tables of 3 agents, 3 rotations each
    for agent in "abcd":
        assert Counter(f.seats.index(agent) for f in fixtures if agent in f.seats) == {0: 3, 1: 3, 2: 3}
    g = gauntlet("cand", ["x", "y"], players=4, seeds=[5, 6])
    for seed in (5, 6):
        for opponent in ("x", "y"):
            seats = [f.seats for f in g if f.seed == seed and opponent in f.seats]
            assert sorted(s.index("cand") for s in seats) == [0, 1, 2, 3]
            assert all(s.count(opponent) == 3 for s in seats)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: round_robin(["a", "b"], players=3, seeds=[0]), "at least 3 agents"),
        (lambda: round_robin(["a", "b", "a"], players=2, seeds=[0]), "repeated: a"),
        (lambda: round_robin(["a", "b"], players=7, seeds=[0]), "players: must be 2–6"),
        (lambda: gauntlet("a", [], players=2, seeds=[0]), "at least one opponent"),
        (lambda: round_robin(["a", "b"], players=2, seeds=[]), "at least one seed"),
    ],
)
def test_impossible_schedules_are_refused(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ScheduleError, match=message):
        call()


def test_a_match_is_a_function_of_its_seed_and_replays_to_its_scores() -> None:
    config = GameConfig(players=3, expansions=TOWER_VARIANT)
    first = play_match(config, ["random", "random", "random"], seed=11)
    again = play_match(config, ["random", "random", "random"], seed=11)
    assert first.record == again.record and first.scores == again.scores
    assert first.record.replay().scores == first.scores
    assert sum(first.decisions) == len(first.record.actions)
    other = play_match(config, ["random", "random", "random"], seed=12)
    assert other.record.actions != first.record.actions


class Mutator:
    def choose_action(self, game):  # type: ignore[no-untyped-def]
        game.apply(game.legal_actions()[0])
        return game.legal_actions()[0]


def test_an_agent_that_changes_the_game_is_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    from agents import spec

    monkeypatch.setitem(spec._REGISTRY, "mutator", lambda seed: Mutator())
    with pytest.raises(MatchError, match=r"'mutator' \(seat 0\) changed the game"):
        play_match(GameConfig(players=2), ["mutator", "random"], seed=0)


def _scores(out: Path) -> dict[int, list[int]]:
    return {g["index"]: g["scores"] for g in load_games(out)}


def test_resume_after_a_kill_completes_without_duplicates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agents import RandomAgent, spec

    monkeypatch.setitem(spec._REGISTRY, "tests_b", lambda seed: RandomAgent(seed + 1))
    settings = Settings(agents=("random", "tests_b"), seeds=3, config=BASE_2P)
    full, cut = tmp_path / "full", tmp_path / "cut"
    run(settings, full, progress=False)
    assert sorted(_scores(full)) == list(range(6))
    run(Settings(agents=("random", "tests_b"), seeds=2, config=BASE_2P), cut, progress=False)
    lines = (cut / GAMES_FILE).read_text().splitlines()
    (cut / GAMES_FILE).write_text("\n".join(lines[:3]) + "\n" + lines[3][:40])  # killed mid-line
    (cut / "tournament.json").write_text(json.dumps(json.loads((full / "tournament.json").read_text())))
    with pytest.raises(TournamentError, match="pass --resume"):
        run(settings, cut, progress=False)
    with pytest.raises(TournamentError, match="other settings \\(seeds\\)"):
        run(Settings(agents=("random", "tests_b"), seeds=4, config=BASE_2P), cut, resume=True, progress=False)
    run(settings, cut, resume=True, progress=False)
    indices = [json.loads(line)["index"] for line in (cut / GAMES_FILE).read_text().splitlines()]
    assert sorted(indices) == list(range(6))  # every game once, the cut line dropped
    assert _scores(cut) == _scores(full)


def test_a_round_robin_of_three_resumes_and_takes_given_games_as_finished(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agents import RandomAgent, spec

    monkeypatch.setitem(spec._REGISTRY, "tests_b", lambda seed: RandomAgent(seed + 1))
    monkeypatch.setitem(spec._REGISTRY, "tests_c", lambda seed: RandomAgent(seed + 2))
    settings = Settings(agents=("random", "tests_b", "tests_c"), seeds=1, config=BASE_2P)
    full, part = tmp_path / "full", tmp_path / "part"
    run(settings, full, progress=False)
    games = load_games(full)
    given = [g for g in games if "random" not in g["seats"]]  # games without the first agent
    run(settings, part, progress=False, given=given[:1], code="v1")
    run(settings, part, resume=True, progress=False, given=given, code="v1")  # resumes past the first agent's absence
    assert _scores(part) == _scores(full)
    kept = {g["index"]: g for g in load_games(part)}
    assert kept[given[0]["index"]] == given[0]  # a given game is kept as it is (timings too), not played again
    with pytest.raises(TournamentError, match="another version of the engine or agents"):
        run(settings, part, resume=True, progress=False, code="v2")


class LastLegal:
    """Always the last legal action: it loses to random (it mostly keeps the last rotation)."""

    def choose_action(self, game):  # type: ignore[no-untyped-def]
        return game.legal_actions()[-1]


def test_sprt_stops_a_lopsided_match_early_and_the_verdict_stands_on_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agents import spec

    monkeypatch.setitem(spec._REGISTRY, "lastlegal", lambda seed: LastLegal())
    settings = Settings(agents=("random", "lastlegal"), seeds=40, config=BASE_2P, sprt=(0.0, 50.0, 0.05, 0.05))
    state = run(settings, tmp_path, progress=False)
    assert state is not None and state.decision == "H1"
    games = load_games(tmp_path)
    assert len(games) == 2 * state.pairs < 80  # stopped on a completed pair, long before the schedule's end
    again = run(settings, tmp_path, resume=True, progress=False)
    assert again == state and len(load_games(tmp_path)) == len(games)


def _scrambled(chunk: int):  # type: ignore[no-untyped-def]
    """A back-end whose games finish out of schedule order: each run of ``chunk`` fixtures played,
    then yielded last first (as games of unequal length finish on several workers)."""
    from training.arena.backends import inline

    def backend(config, fixtures, workers=None):  # type: ignore[no-untyped-def]
        for start in range(0, len(fixtures), chunk):
            yield from reversed(list(inline(config, fixtures[start:start + chunk])))
    return backend


def test_the_sprt_decides_on_pairs_in_schedule_order_whatever_order_games_finish_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agents import spec
    from training.arena.tournament import sprt_games

    monkeypatch.setitem(spec._REGISTRY, "lastlegal", lambda seed: LastLegal())
    settings = Settings(agents=("random", "lastlegal"), seeds=40, config=BASE_2P, sprt=(0.0, 50.0, 0.05, 0.05))
    in_order = run(settings, tmp_path / "in_order", progress=False)
    in_order_games = load_games(tmp_path / "in_order")
    assert in_order is not None and in_order.decision == "H1"
    for chunk in (3, 6):
        out = tmp_path / f"scrambled{chunk}"
        state = run(settings, out, progress=False, backend=_scrambled(chunk))
        assert state == in_order  # the same decision after the same pairs
        games = load_games(out)
        counted = sprt_games(settings, games, state)
        assert len(games) > len(counted) == 2 * state.pairs  # games past the deciding pair were finished too
        assert sorted(g["index"] for g in counted) == sorted(g["index"] for g in in_order_games)
        assert run(settings, out, resume=True, progress=False) == state


def test_pairs_that_finish_early_wait_for_the_pairs_scheduled_before_them() -> None:
    """The candidate loses the first five tile orders (both seats) and wins every later one. Finished
    in reverse, the wins arrive first: counted as they came, they would accept H1 before any loss
    was seen. Counted in schedule order, nothing counts until the first pair is in, and the test
    decides after the same pairs, with the same log-likelihood ratio, as when the games finish in order."""
    from training.arena.tournament import _OrderedSprt

    settings = Settings(agents=("a", "b"), seeds=30, config=BASE_2P, sprt=(0.0, 100.0, 0.05, 0.05))
    fixtures = settings.fixtures()

    def result(f):  # type: ignore[no-untyped-def]
        wins = f.group >= 5
        return f.group, f.seats, [0 if (seat == "a") == wins else 1 for seat in f.seats]

    in_order = _OrderedSprt(settings, fixtures)
    decided_at = next(i for i, f in enumerate(fixtures) if in_order.add(*result(f)))
    assert in_order.state.decision == "H1" and in_order.state.pairs == decided_at // 2 + 1 > 5

    reverse = _OrderedSprt(settings, fixtures)
    first_pair = {f.index for f in fixtures if f.group == 0}
    for f in reversed(fixtures):
        decided = reverse.add(*result(f))
        assert decided == (f.index in first_pair and len(reverse.pair_scores[0]) == 2)
        if decided:
            break
    assert reverse.state == in_order.state


def test_games_played_in_this_process_use_one_torch_thread_as_a_worker_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """Torch on its default threads beside another CPU job made a ppo: agent's decisions 15–100 times
    slower: the in-process back-end (--workers 1) sets what a worker process sets."""
    torch = pytest.importorskip("torch")
    from training.arena.backends import inline

    threads = torch.get_num_threads()
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    torch.set_num_threads(2)
    try:
        assert list(inline(BASE_2P, [])) == []
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(threads)
