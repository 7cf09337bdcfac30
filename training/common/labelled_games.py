"""Games labelled by a teacher agent: the samples of behaviour cloning (``train ppo``'s imitation warm
start, :mod:`training.sb3.imitation`) and of policy distillation (``train distill``).

:func:`labelled_games` plays seeded games on the AEC env where every seat is, per game, the teacher
or one of the partners, and labels decisions with the teacher's choice and, when the teacher values
every legal action (greedy's ``action_values``), a soft target ``softmax(values / temperature)``
over the legal actions: it carries the teacher's whole ranking, ties included.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from agents.nets.prior import valued_indices
from carcassonne_env.environment.aec import raw_env
from carcassonne_env.environment.rewards import terminal_rewards

__all__ = ["Decision", "labelled_games", "valued_choice"]

@dataclass
class Decision:
    """One labelled decision of :func:`labelled_games`: the mover's egocentric observation and mask,
    the label (the teacher's action index and soft target over the legal actions in ascending index
    order), the mover's seat and whether a teacher played it."""

    observation: dict[str, npt.NDArray[Any]]
    mask: npt.NDArray[np.bool_]
    action: int
    target: npt.NDArray[np.float32]
    seat: int
    by_teacher: bool


def labelled_games(
    env_kwargs: dict[str, Any],
    seed: int,
    make_agent: Callable[[str, int], Any],
    teacher: str = "greedy",
    partners: Sequence[str] = ("random", "greedy"),
    teacher_share: float = 0.5,
    temperature: float = 1.0,
    label_all: bool = False,
    pile_rng: np.random.Generator | None = None,
) -> Iterator[tuple[int, list[Decision], list[float]]]:
    """Seeded games without end: per game, its seed, its labelled decisions and every seat's final
    win/loss outcome (module docstring).

    Every seat is the teacher with probability ``teacher_share``, else a partner drawn uniformly.
    By default the decisions of teacher seats are the samples and a game has at least one teacher
    seat. With ``label_all`` (DAgger: Ross et al. 2011) *every* decision is a sample, labelled by
    the teacher whoever plays it (a partner seat's label is what the teacher would have played
    there), and a game has at least one partner seat when ``teacher_share`` < 1 (the partners are
    the policies whose states are being labelled). ``pile_rng`` reshuffles the unseen pile for the
    teacher's valuations (default: this module's generator, shared by every call in a process).
    """
    env = raw_env(**env_kwargs)
    rng = np.random.default_rng(seed)
    pile = _PILE_RNG if pile_rng is None else pile_rng
    n = env.game_config.players
    while True:
        game_seed = int(rng.integers(2**31))
        env.reset(seed=game_seed)
        specs = [teacher if rng.random() < teacher_share else partners[int(rng.integers(len(partners)))]
                 for _ in range(n)]
        if label_all:
            if teacher_share < 1.0 and all(spec == teacher for spec in specs):
                specs[int(rng.integers(n))] = partners[int(rng.integers(len(partners)))]
        elif teacher not in specs:
            specs[int(rng.integers(n))] = teacher
        players = [make_agent(spec, game_seed + seat) for seat, spec in enumerate(specs)]
        labeller = make_agent(teacher, game_seed + n) if label_all else None
        decisions: list[Decision] = []
        game = env.game
        while not game.is_over:
            agent = env.agent_selection
            seat = env.seat_of(agent)
            player = players[seat]
            by_teacher = specs[seat] == teacher
            labelled = by_teacher or label_all
            soft = None
            label = None
            if by_teacher and hasattr(player, "action_values"):
                action, soft = valued_choice(env, player, rng, temperature, pile)
                label = action
            else:
                action = player.choose_action(game)
                if label_all and not by_teacher:
                    if hasattr(labeller, "action_values"):
                        label, soft = valued_choice(env, labeller, rng, temperature, pile)
                    else:
                        label = labeller.choose_action(game)  # type: ignore[union-attr]
                else:
                    label = action
            index = env.codec.encode(action, env.encoder.window, seat, n)
            if index is None:  # outside the window (never seen with W = 31): not a sample
                env.step(_any_legal(env, agent))
                continue
            target = index if label is action else env.codec.encode(label, env.encoder.window, seat, n)
            if labelled and target is not None:
                obs = env.observe(agent)
                mask = obs["action_mask"].astype(bool)
                if soft is None:
                    soft = (np.flatnonzero(mask) == target).astype(np.float32)
                if len(soft) == int(mask.sum()):
                    decisions.append(Decision(dict(obs["observation"]), mask, target, soft, seat, by_teacher))
            env.step(index)
        yield game_seed, decisions, [float(r) for r in terminal_rewards(game.scores, "win_loss")]


#: Reshuffles the unseen pile for the teacher's valuations (never the tie-break generator).
_PILE_RNG = np.random.default_rng(0)


def valued_choice(
    env: raw_env, teacher: Any, rng: np.random.Generator, temperature: float,
    pile_rng: np.random.Generator = _PILE_RNG,
) -> tuple[Any, npt.NDArray[np.float32] | None]:
    """The teacher's move (a best-valued action, ties broken by ``rng``) and the soft target over
    the encodable legal actions in ascending index order (None if some legal action has no index).

    The teacher values a determinized copy (:func:`agents.nets.prior.valued_indices`, its own
    generator, so ``rng`` draws the same ties as before)."""
    legal, values, indices = valued_indices(teacher, env.game, env.codec, env.encoder.window, pile_rng)
    ties = np.flatnonzero(values == values.max())
    action = legal[int(ties[rng.integers(len(ties))])]
    if any(i is None for i in indices):
        return action, None
    order = np.argsort(np.asarray(indices, dtype=np.int64), kind="stable")
    z = (values[order] - values.max()) / temperature
    p = np.exp(z)
    return action, (p / p.sum()).astype(np.float32)


def _any_legal(env: raw_env, agent: str) -> int:
    return int(np.flatnonzero(env.action_mask(agent))[0])
