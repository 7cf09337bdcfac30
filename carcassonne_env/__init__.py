"""carcassonne_env: Carcassonne with The Tower, Black Tower and The Watchtowers for RL.

The rules engine is :mod:`carcassonne_env.engine` (no RL dependencies). The PettingZoo
environment is imported lazily so that ``import carcassonne_env.engine`` stays light.
"""

__version__ = "0.1.0"
