"""The trainer layer: what every trainer of :mod:`training` shares, so that each trainer module holds
only its algorithm (one readable file per algorithm, in the manner of cleanrl and its
``cleanrl_utils``).

Why a package of its own, ``training.common``: the shared parts used to live inside one trainer or
beside the tournaments (``training/sb3/threads.py``, ``training/arena/storage.py``), and each
trainer carried its own copy of the rest (its ``main()``, its curve, its clock). Here they have one
home below every trainer; the name says what it holds, the part the trainers have in common.

What a trainer provides (``training/<job>/<algorithm>.py``; ``carcassonne train az`` will be one):

1. ``Settings``: a frozen dataclass, one field a flag, with ``out`` and ``resume``
   (:class:`~training.common.settings.RunSettings`; a trainer that plays its games in worker processes
   and fits with torch extends :class:`~training.common.settings.PlayAndFitSettings`, which holds them
   with the game, the seed and where the run computes) and a check of its values that raises
   :class:`~training.common.settings.SettingError` naming the flag (built from
   :func:`~training.common.settings.check_rules`, :func:`~training.common.settings.check_game` ...);
   optionally ``PRESETS`` (name → (help line, settings));
2. ``train(settings, ...)``: the algorithm, which runs under the run's lock and state
   (:mod:`~training.common.run_folder`) and returns what it made;
3. ``main(argv, prog)``: made by :func:`~training.common.cli.trainer_main` from its
   :class:`~training.common.cli.Command` and ``train``, registered by one line in
   :data:`training.cli.train.TRAINERS`.

What the layer does, one module a job:

* :mod:`~training.common.settings`: the settings' protocol and the checks of their values;
* :mod:`~training.common.cli`: the command line (tyro in the project's dialect, presets, the flags
  given), the run, its refusals in one line;
* :mod:`~training.common.run_folder`: the run directory: its lock, ``state.json``, ``--resume``
  (a new run where one is, a resume where none is, changed settings, a damaged file: refused by
  name), Ctrl-C (:class:`~training.common.run_folder.Interrupted`);
* :mod:`~training.common.relocate`: a run directory copied or renamed resumes where it is now;
* :mod:`~training.common.checkpoints`: a model file and its state saved as a pair a kill cannot spoil;
* :mod:`~training.common.storage`: atomic writes, strict JSON, the directory locks (the bottom of
  :mod:`training`, standard library only: the tournaments of :mod:`training.arena` write with it too);
* :mod:`~training.common.threads`: how many torch threads a trainer uses on a shared machine;
* :mod:`~training.common.progress`: the run's clock across resumes, its JSON-lines logs;
* :mod:`~training.common.curves`: the learning curve's table and figure;
* :mod:`~training.common.evaluation`: the tournaments that judge an agent (a gauntlet, the ratings
  against fixed anchors);
* :mod:`~training.common.gate`: the admission gate of a candidate against the best, and its report;
* :mod:`~training.common.labelled_games`: games whose decisions a teacher agent labels (behaviour
  cloning's and distillation's samples).

Arrows point down: trainers import this package, which imports :mod:`training.arena` (tournaments,
ratings), :mod:`agents` and :mod:`carcassonne_env`, never a trainer. Importing it imports no torch
(a module that needs torch imports it inside the function that does).
"""
