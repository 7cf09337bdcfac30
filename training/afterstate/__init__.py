"""Afterstate value iteration (TD-Gammon-style self-play): :mod:`training.afterstate.value_iteration`."""
