"""Training and rating agents, one sub-package per job (README, "What is inside"):

* :mod:`training.arena`: tournaments, ratings and reports (``carcassonne tournament``); no torch;
* :mod:`training.sb3`: the Stable-Baselines3 self-play trainer (``carcassonne train ppo``; ``train`` extra);
* :mod:`training.rllib`: the RLlib self-play trainer (``carcassonne train rllib``; ``ray`` extra);
* :mod:`training.afterstate`: afterstate value iteration by self-play, the trainer of the ``afterstate:``
  agents (``carcassonne train afterstate``; ``train`` extra);
* :mod:`training.distill`: policy distillation with DAgger, a board network that plays without search
  (``carcassonne train distill``; ``train`` extra);
* :mod:`training.value`: the linear position-value fit (``carcassonne train value``);
* :mod:`training.common`: the trainer layer, what every trainer shares (settings and command line, run
  folder, checkpoints and ``--resume``, threads, progress, curves, evaluation, the admission gate);
* :mod:`training.cli`: the ``carcassonne`` command.

Arrows point down only: ``training`` imports :mod:`agents` and :mod:`carcassonne_env`, never the
reverse. What a trained agent needs at play time (networks, priors) is in :mod:`agents.nets`.
"""
