"""The networks and priors that trained agents play with (the ``ppo:``, ``rllib:`` and ``afterstate:`` agents).

* :mod:`agents.nets.board_net`: :class:`~agents.nets.board_net.BoardNet`, the board network in plain
  torch, shared by both trainers;
* :mod:`agents.nets.legal_dist`: :class:`~agents.nets.legal_dist.LegalCategorical`, the categorical
  distribution over the legal actions only that both trainers' action distributions are made of;
* :mod:`agents.nets.policy`: :class:`~agents.nets.policy.CarcassonnePolicy`, BoardNet as an
  sb3-contrib ``MaskablePPO`` policy (the class a saved ``ppo:`` checkpoint names), and
  :func:`~agents.nets.policy.load_policy`, which loads one for play;
* :mod:`agents.nets.rllib_module`: :class:`~agents.nets.rllib_module.CarcassonneRLModule`, BoardNet as
  an RLlib module (the class an ``rllib:`` checkpoint names; needs the ``ray`` extra);
* :mod:`agents.nets.prior`: :class:`~agents.nets.prior.ActionPrior`, the action values of a searching
  agent that a residual policy adds to its logits (no torch);
* :mod:`agents.nets.value_net`: :class:`~agents.nets.value_net.ValueNet`, the afterstate value network of
  the ``afterstate:`` agent (numpy inference, no torch), trained by ``carcassonne train afterstate``;
* :mod:`agents.nets.legacy`: the module names of checkpoints saved before these moved here.

Checkpoints pickle the module path of their classes, so these modules are where saved models
point: they are play-time code, and the trainers (:mod:`training`) import them, never the other way
round. Everything but :mod:`~agents.nets.prior` and :mod:`~agents.nets.value_net` needs torch (the
``train`` extra); this package imports none of its modules itself.
"""
