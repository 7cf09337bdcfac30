"""Position-value fits for the searching agents: the linear value of ``greedy:value=linear``
(``carcassonne train value``, :mod:`~training.value.fit_linear`). Needs only the core install.
"""
