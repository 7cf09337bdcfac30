"""The tournament report's picture is drawn without pyplot's global state (training/arena/report.py), so
writing a report inside a notebook leaves its inline backend and open figures alone."""

from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt

from training.arena.ratings import Rating
from training.arena.report import Report, write_report
from training.arena.tournament import Settings


def test_write_report_keeps_the_backend_and_the_open_figures(tmp_path: Path) -> None:
    previous = matplotlib.get_backend()
    matplotlib.use("pdf")  # any backend but Agg, which the report once switched every caller to
    try:
        open_figure = plt.figure()
        report = Report(anchor="random", games=2, game="base game, 2 players",
                        ratings=[Rating("random", 0.0, -50.0, 50.0, 2, 0.5)], pairings=[],
                        ms_per_decision={"random": 0.1}, sprt=None)
        write_report(report, tmp_path, Settings(agents=("random", "greedy")))
        assert matplotlib.get_backend() == "pdf"
        assert plt.get_fignums() == [open_figure.number]
        assert (tmp_path / "ratings.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    finally:
        plt.close("all")
        matplotlib.use(previous)
