"""The ``az`` search's trainer (:mod:`training.az.expert_iteration`) and the fit of its network
(:mod:`training.az.fit`), shared with the warm start (scripts/maintainer/az_warm_start.py)."""
