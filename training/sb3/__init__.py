"""The Stable-Baselines3 ``MaskablePPO`` self-play trainer (``carcassonne train ppo``, docs/training.md):
the trainer (:mod:`~training.sb3.selfplay`), the imitation warm start (:mod:`~training.sb3.imitation`),
the opponent pool (:mod:`~training.sb3.pool`), the compact rollout buffer (:mod:`~training.sb3.buffer`),
the model's constructor arguments (:mod:`~training.sb3.ppo`) and the training-speed benchmark
(:mod:`~training.sb3.bench_train`). Needs the ``train`` extra. The policy it trains is play-time
code: :class:`agents.nets.policy.CarcassonnePolicy`.
"""
