"""Golden playthroughs: seeded games replayed decision by decision against the files in tests/golden.

Each file records, for one configuration and seed, every decision's phase, player, drawn tile,
number of legal actions, a digest of the sorted legal list, the seeded agent's choice and the
scores after it (format: ``tests/golden/playthrough.py``). A refactor that changes any rule outcome
— a legal action gained or lost, a point scored differently — changes a line here. When the change
is an intended rule change, regenerate with ``python -m tests.golden.regenerate NAME`` and review
the diff.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from golden.playthrough import CASES, GOLDEN_DIR, REGENERATE, GoldenCase, golden_path, legal_digest, playthrough_lines

from carcassonne_env.engine import Game, GameConfig


def first_difference(expected: Sequence[str], actual: Sequence[str]) -> tuple[int, str, str] | None:
    """(1-based line number, expected line, actual line) of the first difference, or None.

    A missing line on either side reads as ``<end of file>``.
    """
    for number in range(1, max(len(expected), len(actual)) + 1):
        want = expected[number - 1] if number <= len(expected) else "<end of file>"
        got = actual[number - 1] if number <= len(actual) else "<end of file>"
        if want != got:
            return number, want, got
    return None


def read_golden(case: GoldenCase) -> list[str]:
    path = golden_path(case)
    if not path.exists():
        pytest.fail(f"{path} is missing; write it with `{REGENERATE} {case.name}`")
    return path.read_text(encoding="utf-8").splitlines()


def test_every_golden_file_belongs_to_a_case() -> None:
    files = {p.stem for p in GOLDEN_DIR.glob("*.txt")}
    cases = {case.name for case in CASES}
    assert files == cases, (
        f"golden files without a case: {sorted(files - cases)}; cases without a file: {sorted(cases - files)}"
    )


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_playthrough_matches_golden_file(case: GoldenCase) -> None:
    difference = first_difference(read_golden(case), list(playthrough_lines(case)))
    if difference is not None:
        number, want, got = difference
        pytest.fail(
            f"{golden_path(case)} line {number} differs:\n"
            f"  golden: {want}\n"
            f"  now:    {got}\n"
            f"If this rule change is intended, regenerate with `{REGENERATE} {case.name}` and review "
            "`git diff tests/golden`.",
            pytrace=False,
        )


def test_a_changed_score_is_reported_at_its_line() -> None:
    case = CASES[0]
    golden = read_golden(case)
    tampered = [*golden[:40], golden[40].rsplit("|", 1)[0] + "| 99 0", *golden[41:]]
    assert first_difference(golden, tampered) == (41, golden[40], tampered[40])


def test_a_shorter_playthrough_is_reported_at_the_end_of_file() -> None:
    assert first_difference(["a", "b"], ["a"]) == (2, "b", "<end of file>")
    assert first_difference(["a"], ["a", "b"]) == (2, "<end of file>", "b")


def test_legal_digest_ignores_the_order_of_the_legal_list() -> None:
    legal = list(Game(GameConfig(players=2), seed=0).legal_actions())
    assert len(legal) > 1
    assert legal_digest(legal) == legal_digest(legal[::-1])
    assert legal_digest(legal) != legal_digest(legal[1:])
