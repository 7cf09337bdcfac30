"""Whether the search agents' compiled modules run: ``agents/greedy.py``, ``agents/mcts.py``,
``agents/evaluation.py`` and ``agents/value.py``, built with the engine core by ``setup.py`` (mypyc).

Imported by the package before any of those modules, it makes the engine's choice
(:func:`carcassonne_env.engine.compiled_core.choose_compiled`) for this package: the compiled
modules run when they are built, fresh (built from their source as it is now: the SHA-256 of the
package's build record) and not declined (``CARCASSONNE_PURE_PYTHON=1``), and only together with the
compiled engine, whose classes their compiled code takes; otherwise their source runs. The same
games either way (``tests/test_compiled_engine.py``).
"""

from __future__ import annotations

from carcassonne_env.engine import COMPILED as ENGINE_COMPILED
from carcassonne_env.engine.compiled_core import choose_compiled

__all__ = ["COMPILED"]

#: True when the search agents' compiled modules run, False when their Python source does.
COMPILED: bool = choose_compiled(__package__ or "agents", requires=ENGINE_COMPILED)
