"""Tournaments between agents and their statistics: schedules (:mod:`~training.arena.schedule`), one
game (:mod:`~training.arena.match`), where games run (:mod:`~training.arena.backends`, with
:mod:`~training.arena.ray_support` and :mod:`~training.arena.ctrl_c`), the runner
(:mod:`~training.arena.tournament`), ratings and intervals (:mod:`~training.arena.ratings`) and the
report (:mod:`~training.arena.report`).

Imports no torch: it needs only the core install (the ``ray`` backend needs the ``ray`` extra);
agents that need torch (``ppo:``, ``rllib:``) import it when they are built. docs/tournament.md.
"""
