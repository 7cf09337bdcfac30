"""Agents for carcassonne_env.

Every player implements one of the two protocols of :mod:`carcassonne_env.players`, re-exported
here: a :class:`Policy` (``act(observation, action_mask) -> int``, an index of the env's
``Discrete(N)`` space whose mask entry is 1) or an :class:`EngineAgent`
(``choose_action(game) -> Action``). :class:`PolicyAgent` / :func:`as_engine_agent` turn a policy
into an engine agent; :class:`RandomAgent` plays at both levels.

Every agent is named by a spec string (:mod:`agents.spec`); the built-in agents register here.
"""

from .compiled_search import COMPILED  # first: it decides whether the compiled search modules may load

# isort: split
from typing import Annotated

# isort: split
from carcassonne_env.players import EngineAgent, Policy, PolicyAgent, RandomAgent, as_engine_agent

from .afterstate import AfterstateAgent, load_value_net, pretrained_nets
from .evaluation import END_NOW, PositionValue
from .greedy import GreedyAgent
from .mcts import MCTSAgent
from .ppo import SHIPPED as _SHIPPED_PPO
from .shipped_values import AFTERSTATE_LONG_FILES, LINEAR_FILES, PerPlayerCount
from .spec import AgentSpecError, Flag, Named, Origin, Range, known_agents, make_agent, register_agent
from .value import LinearValue

#: The MaskablePPO networks named by a key (``ppo:pooled``).
SHIPPED_PPO = tuple(_SHIPPED_PPO)
#: The position values named by a key (:func:`position_value`); any other name is a file's path.
VALUE_KEYS = ("end_now", "linear", "afterstate", "afterstate_long")
#: A spec option naming a position value: a key of :data:`VALUE_KEYS`, or a file on the command line.
_VALUE = Named(VALUE_KEYS, paths=True, note="a weights file of train value, or a .npz of train afterstate")


def position_value(name: str) -> PositionValue:
    """A position value by name: ``end_now`` (the end-now margin), ``linear`` (the learned expected
    final margin shipped in ``agents/pretrained/``, fitted for each of 2 to 6 players), ``afterstate``
    (the value networks of ``afterstate:pretrained``, one per player count), ``afterstate_long`` (the
    long run's network, that of ``mcts:pretrained``: 2 players), the path of a weights file written by
    ``carcassonne train value`` or of a value network (``.npz``) written by ``carcassonne train
    afterstate``. The shipped names pick the file made for the game's player count
    (:mod:`agents.shipped_values`)."""
    if name == "end_now":
        return END_NOW
    if name == "afterstate":
        return pretrained_nets()
    if name == "afterstate_long":
        return PerPlayerCount.shipped("afterstate_long", AFTERSTATE_LONG_FILES, load_value_net)
    if name.endswith(".npz"):
        return load_value_net(name)
    if name == "linear":
        return PerPlayerCount.shipped("linear", LINEAR_FILES, LinearValue.load)
    return LinearValue.load(name)


#: The ``fast`` option of the greedy look-ahead (:class:`~agents.greedy.GreedyAgent`).
_FAST = Flag("PLACE lines end at their best DEPLOY or PASS")
#: The ``sample`` option of the policy agents.
_SAMPLE = Flag("draw the action from the policy; 0: its most likely")


def _greedy(seed: int, fast: Annotated[bool, _FAST] = False, value: Annotated[str, _VALUE] = "end_now") -> GreedyAgent:
    """``greedy``, ``greedy:fast=1``, ``greedy:value=linear`` (see :func:`position_value`)."""
    return GreedyAgent(seed, fast=fast, value=position_value(value))


def _afterstate(seed: int, model: Annotated[str, Named(("pretrained",), paths=True, note="a .npz of train afterstate")]
                = "pretrained", fast: Annotated[bool, _FAST] = False,
                spread: Annotated[float | None, Range(0, 1000, "points; 0: the margin")] = None) -> AfterstateAgent:
    """``afterstate:pretrained`` (a network per player count) or ``afterstate:PATH.npz``: greedy's search on
    a learned value network; ``spread=S`` (points) aims at first place with that spread of the final
    scores, ``spread=0`` at the margin; unset, the network's own (:class:`~agents.afterstate.AfterstateAgent`)."""
    return AfterstateAgent(seed, pretrained_nets() if model == "pretrained" else load_value_net(model), fast=fast,
                           spread=spread)


def _ppo(seed: int, path: Annotated[str, Named(SHIPPED_PPO, paths=True, note="a MaskablePPO .zip")],
         sample: Annotated[bool, _SAMPLE] = False) -> EngineAgent:
    """``ppo:PATH``: imports torch and Stable-Baselines3 (the ``train`` extra) only when used."""
    from .ppo import make_ppo

    return make_ppo(seed, path, sample)


def _rllib(seed: int, path: Annotated[str, Named((), paths=True, note="a checkpoint of train rllib")],
           sample: Annotated[bool, _SAMPLE] = False) -> EngineAgent:
    """``rllib:PATH``: imports torch and Ray RLlib (the ``ray`` extra) only when used."""
    from .rllib import make_rllib

    return make_rllib(seed, path, sample)


#: ``mcts:pretrained`` written out: the search of ``mcts:sims=20,guide=1,rollout_turns=0,value=afterstate``
#: over the long run's network, one simulation fewer so that it thinks no longer a decision
#: (the long run: docs/experiments/2026-11-29-long-run.md).
MCTS_PRETRAINED = "mcts:sims=19,guide=1,rollout_turns=0,value=afterstate_long"
#: The most simulations an ``mcts:`` spec may ask for a decision (guided, ~100 a second: minutes).
MAX_SIMS = 100_000
#: The longest ``seconds`` budget an ``mcts:`` spec may ask for a decision.
MAX_SECONDS = 600.0


def _mcts(
    seed: int,
    preset: Annotated[str | None, Named(("pretrained",), note=MCTS_PRETRAINED)] = None,
    sims: Annotated[int | None, Range(1, MAX_SIMS, "400 when neither sims nor seconds is given")] = None,
    seconds: Annotated[float | None, Range(0.001, MAX_SECONDS, "a soft budget: the search ends after it")] = None,
    exploration: Annotated[float, Range(0, 100, "the UCT constant")] = 0.5,
    rollout_turns: Annotated[int | None, Range(0, 100, "2 when not given; 0 with pretrained")] = None,
    widening: Annotated[float, Range(0, 100, "0: off")] = 2.0,
    prior_visits: Annotated[int, Range(0, 10_000)] = 5,
    scale: Annotated[float, Range(0.01, 10_000, "points")] = 10.0,
    guide: Annotated[bool | None, Flag("a new node ranks its actions by greedy's valuation")] = None,
    value: Annotated[str | None, _VALUE] = None,
) -> MCTSAgent:
    """``mcts:sims=N`` and/or ``mcts:seconds=S`` (400 simulations when neither is given; any value
    given, 0 or negative included, is checked, never read as "not given"); ``mcts:pretrained`` is
    :data:`MCTS_PRETRAINED` (its ``sims`` replaced by a ``sims=``/``seconds=`` given; the options it
    fixes, ``guide``, ``rollout_turns`` and ``value``, are refused, never silently overridden)."""
    if preset is not None:  # "pretrained", the one key the spec parser lets through
        fixed = [name for name, given in (("guide", guide), ("rollout_turns", rollout_turns), ("value", value))
                 if given is not None]
        if fixed:
            raise ValueError(f"mcts:pretrained fixes {', '.join(fixed)}; write the search out to change it: "
                             f"{MCTS_PRETRAINED}")
        guide, rollout_turns, value = True, 0, "afterstate_long"
        if sims is None and seconds is None:
            sims = 19
    for name, budget in (("sims", sims), ("seconds", seconds)):
        if budget is not None and not budget > 0:
            kind = "int" if name == "sims" else "number"
            raise ValueError(f"MCTSAgent: {name} must be a positive {kind}, got {budget}")
    if sims is None and seconds is None:
        sims = 400
    return MCTSAgent(seed, sims=sims, seconds=seconds, exploration=exploration,
                     rollout_turns=2 if rollout_turns is None else rollout_turns, widening=widening,
                     prior_visits=prior_visits, scale=scale, guide=bool(guide),
                     value=position_value("end_now" if value is None else value))


#: The most root visits an ``az:`` spec may ask for a decision.
MAX_AZ_SIMS = 100_000
#: ``az:``'s default guide temperature (points; :mod:`agents.az`): chosen on development tile orders
#: (docs/experiments/2026-12-07-az-guide.md).
AZ_GUIDE = 3.0


def _az(seed: int, model: Annotated[str, Named(("pretrained",), paths=True, note="a .pt the az warm start wrote")],
        sims: Annotated[int, Range(0, MAX_AZ_SIMS, "root visits; 0: no tree (the root's prior decides)")] = 64,
        k: Annotated[int, Range(1, 256, "root actions considered (with the guide, at most guide_k)")] = 16,
        batch: Annotated[int, Range(1, 1024, "leaves per network pass")] = 16,
        gumbel: Annotated[float, Range(0, 10, "scale of the root's Gumbel noise; 0: none")] = 0.0,
        guide: Annotated[float, Range(0, 1000, "points: a guided node's logits gain the base value's one-turn "
                                      "look-ahead / guide; 0: none, else at least 0.001")] = AZ_GUIDE,
        guide_k: Annotated[int, Range(1, 256, "the network's first actions the guide values (a guided node "
                                      "plays among them)")] = 8,
        guide_tree: Annotated[bool | None, Flag("the guide ranks and values every node, not only the root; "
                                                "on when a guide is")] = None,
        record: Annotated[str, Named((), paths=True, note="a directory each decision's search targets are "
                                     "written to (the az trainer's self-play)")] = "") -> EngineAgent:
    """``az:pretrained`` or ``az:PATH.pt``: Gumbel search with a policy-value network (:mod:`agents.az`);
    imports torch only when used. ``guide_tree`` (on unless ``guide=0``): the guide ranks and values every
    node of the tree, not only the root; ``guide=0`` turns the guide off everywhere, and refuses
    ``guide_tree=1``."""
    from .az import make_az

    if guide_tree and not guide:
        raise ValueError("guide_tree=1 needs a guide (guide > 0): it guides every node as the root; "
                         "guide=0 is the network alone")
    return make_az(seed, model, sims=sims, k=k, batch=batch, gumbel=gumbel, guide=guide, guide_k=guide_k,
                   guide_tree=guide > 0 if guide_tree is None else guide_tree, record=record)


register_agent("random", RandomAgent, builtin=True)
register_agent("greedy", _greedy, builtin=True)
register_agent("mcts", _mcts, builtin=True)
register_agent("afterstate", _afterstate, builtin=True)
register_agent("ppo", _ppo, builtin=True)
register_agent("rllib", _rllib, builtin=True)
register_agent("az", _az, builtin=True)

__all__ = [
    "COMPILED",
    "MAX_AZ_SIMS",
    "MAX_SECONDS",
    "MAX_SIMS",
    "MCTS_PRETRAINED",
    "VALUE_KEYS",
    "AfterstateAgent",
    "AgentSpecError",
    "EngineAgent",
    "GreedyAgent",
    "LinearValue",
    "MCTSAgent",
    "Origin",
    "PerPlayerCount",
    "Policy",
    "PolicyAgent",
    "RandomAgent",
    "as_engine_agent",
    "known_agents",
    "make_agent",
    "position_value",
    "register_agent",
]
