"""The RLlib self-play trainer (``carcassonne train rllib``, :mod:`~training.rllib.selfplay`; docs/training.md,
"RLlib"). Needs the ``ray`` extra. The module it trains is play-time code:
:class:`agents.nets.rllib_module.CarcassonneRLModule`.
"""
