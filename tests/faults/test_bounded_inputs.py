"""Bounded inputs and clear trainer errors (issue 51, items 5 and 6): JSON read from a user's path
within a bound (deep nesting, huge integers, /dev/zero, a file too big), a schedule too big for
memory, a binary games file, a malformed trainer state.json, ``--device cuda`` without CUDA and PPO
rollouts that would normalise a minibatch of one step — each one line naming what is wrong."""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import pytest

from faults.helpers import assert_clear_error, cli

#: JSON documents no reader may take: (file text, what the error says).
HOSTILE_JSON = {
    "deep_array": ("[" * 60_000, "nested too deeply"),
    "deep_object": ('{"a":' * 30_000 + "1" + "}" * 30_000, "nested too deeply"),
    "deep_in_a_line": ('{"index": 0, "record": ' + "[" * 60_000 + "\n" + '{"index": 1}\n', "nested too deeply"),
    "huge_integer": ('{"record": {"seed": ' + "9" * 100_000 + "}}", "more than 4300 digits"),
    "not_utf8": ('{"record": "\udcff"}', "not"),
}

#: The module of each trainer with a ``--device`` (rllib has none).
TRAINERS = {"ppo": "training.sb3.selfplay", "afterstate": "training.afterstate.value_iteration",
            "distill": "training.distill.policy_distillation"}


def _write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    return path


@pytest.mark.fault("clear error", count=len(HOSTILE_JSON))
@pytest.mark.parametrize("command", [["replay", "@", "-o", "@.html"], ["play", "--resume", "@"]])
def test_hostile_json_is_one_line_naming_the_file(tmp_path: Path, command: list[str],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    for name, (text, why) in HOSTILE_JSON.items():
        path = _write(tmp_path / f"{name}.json", text)
        code, err = cli([str(path) + a[1:] if a.startswith("@") else a for a in command], capsys)
        assert_clear_error(code, err, str(path))
        assert code == 2 and why in err, (name, err)


@pytest.mark.fault("clear error", count=2)
@pytest.mark.parametrize("command", [["replay", "@", "-o", "@.html"], ["play", "--resume", "@"]])
def test_a_json_file_beyond_the_bound_is_refused_by_name(tmp_path: Path, command: list[str],
                                                         capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from carcassonne_env import jsonio

    monkeypatch.setattr(jsonio, "MAX_JSON_BYTES", 1_000)
    path = _write(tmp_path / "big.json", json.dumps({"pad": "x" * 2_000}))
    code, err = cli([str(path) + a[1:] if a.startswith("@") else a for a in command], capsys)
    assert_clear_error(code, err, str(path), "larger than")
    assert code == 2


@pytest.mark.fault("clear error")
@pytest.mark.timeout(120)
def test_replay_of_dev_zero_reads_no_more_than_the_bound(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = cli(["replay", "/dev/zero", "-o", str(tmp_path / "z.html")], capsys)
    assert_clear_error(code, err, "/dev/zero", "64 MiB")
    assert code == 2


@pytest.mark.fault("clear error")
def test_a_deep_json_document_reaching_the_engine_is_refused_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Nesting the parser follows reaches ``Game.from_dict``/``GameRecord.from_dict``: refused by type."""
    path = _write(tmp_path / "deep.json", '{"config": {"players": 2}, "seed": 1, "actions": '
                  + "[" * 700 + "]" * 700 + "}")
    for command in (["replay", str(path), "-o", str(tmp_path / "d.html")], ["play", "--resume", str(path)]):
        code, err = cli(command, capsys)
        assert_clear_error(code, err, str(path))


@pytest.mark.fault("clear error", count=2)
def test_seeds_beyond_the_schedule_bound_are_refused_naming_seeds_and_the_most(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from training.arena.schedule import MAX_GAMES, ScheduleError, self_play

    code, err = cli(["tournament", "random", "greedy", "--seeds", "1000000000", "--expansions", "",
                     "--out", str(tmp_path / "t"), "--no-progress"], capsys)
    assert_clear_error(code, err, "--seeds", f"{MAX_GAMES // 2:,}")
    assert code == 2 and not (tmp_path / "t").exists()
    with pytest.raises(ScheduleError, match=f"at most {MAX_GAMES:,} seeds"):
        self_play("random", 2, range(10**12))


@pytest.mark.fault("clear error", count=2)
@pytest.mark.timeout(120)
def test_train_value_on_a_binary_or_endless_file_names_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    binary = tmp_path / "games.bin"
    binary.write_bytes(bytes(range(256)) * 16)
    for path in (str(binary), "/dev/zero"):
        code, err = cli(["train", "value", path, "-o", str(tmp_path / "w.json")], capsys)
        assert_clear_error(code, err, path)
        assert code == 2


def _afterstate_run(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """A run directory of the quick afterstate preset (as ``--no-progress --resume`` reads it) and its state."""
    from training.afterstate.value_iteration import PRESETS

    out = tmp_path / "run"
    out.mkdir()
    settings = replace(PRESETS["quick"][1], out=str(out), progress=False)
    return out, {"settings": asdict(settings), "generation": 0, "step": "rate", "best": "greedy",
                 "best_value": "end_now", "seconds": 0.0, "history": []}


@pytest.mark.fault("clear error", count=8)
@pytest.mark.timeout(120)
@pytest.mark.parametrize(("change", "needle"), [
    ({"step": "bogus"}, "field 'step' must be one of rate, play, fit, gate, got 'bogus'"),
    ({"generation": "x"}, "field 'generation' must be an integer ≥ 0"),
    ({"seconds": None}, "field 'seconds' must be a finite number ≥ 0"),
    ({"history": {}}, "field 'history' must be a list"),
    ({"settings": []}, "field 'settings' must be an object"),
    ({"settings": {"nosuch": 1}}, "field 'settings'"),
    ({"best": None}, "field 'best' must be a string"),
    ({"best_value": ...}, "field 'best_value' is missing"),
])
def test_afterstate_resume_refuses_a_bad_state_field_by_name(tmp_path: Path, change: dict[str, Any],
                                                             needle: str) -> None:
    pytest.importorskip("torch")
    from training.afterstate.value_iteration import main

    out, state = _afterstate_run(tmp_path)
    state = {k: v for k, v in {**state, **change}.items() if v is not ...}
    (out / "state.json").write_text(json.dumps(state))
    with pytest.raises(SystemExit) as e:
        main(["quick", "--out", str(out), "--no-progress", "--resume"])
    assert needle in str(e.value.code) and str(out / "state.json") in str(e.value.code), e.value.code


@pytest.mark.fault("clear error", count=3)
@pytest.mark.parametrize(("text", "needle"), [("{not json", "not JSON"), ("[1, 2]", "expected a JSON object"),
                                              ("[" * 60_000, "nested too deeply")])
@pytest.mark.parametrize("trainer", ["afterstate", "distill"])
def test_a_malformed_state_file_is_refused_by_name(tmp_path: Path, text: str, needle: str, trainer: str) -> None:
    pytest.importorskip("torch")
    import importlib

    module = importlib.import_module(TRAINERS[trainer])
    out = tmp_path / "run"
    out.mkdir()
    (out / "state.json").write_text(text)
    with pytest.raises(SystemExit) as e:
        module.main(["quick", "--out", str(out), "--no-progress", "--resume"])
    assert needle in str(e.value.code) and str(out / "state.json") in str(e.value.code), e.value.code


@pytest.mark.fault("clear error", count=3)
@pytest.mark.parametrize("trainer", ["ppo", "afterstate", "distill"])
def test_every_trainer_refuses_cuda_without_cuda_the_same_way(tmp_path: Path, trainer: str,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    import importlib

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    module = importlib.import_module(TRAINERS[trainer])
    extra = ["--total-steps", "0", "--imitation-decisions", "0"] if trainer == "ppo" else []
    with pytest.raises(SystemExit) as e:
        module.main(["quick", "--out", str(tmp_path / "run"), "--no-progress", "--device", "cuda", *extra])
    assert "--device cuda: CUDA is not available on this machine" in str(e.value.code), e.value.code
    assert not (tmp_path / "run").exists()


@pytest.mark.fault("clear error", count=3)
@pytest.mark.parametrize(("flags", "needle"), [
    (["--n-steps", "1", "--n-envs", "1"], "--n-steps: with --n-envs 1 makes a rollout of 1 step"),
    (["--batch-size", "1"], "--batch-size: must be at least 2"),
    (["--n-steps", "5", "--n-envs", "1", "--batch-size", "2"], "--batch-size: must be at least 2 and not leave a "
                                                               "minibatch of one step"),
])
def test_ppo_refuses_a_rollout_with_a_minibatch_of_one_step(tmp_path: Path, flags: list[str], needle: str) -> None:
    pytest.importorskip("sb3_contrib")
    from training.sb3.selfplay import main

    with pytest.raises(SystemExit) as e:
        main(["quick", "--out", str(tmp_path / "run"), "--total-steps", "0", "--no-progress", *flags])
    assert needle in str(e.value.code), e.value.code
    assert not (tmp_path / "run").exists()


@pytest.mark.fault("clear error")
def test_a_truncated_value_network_is_one_line_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    whole = Path(__file__).parents[2] / "agents" / "pretrained" / "afterstate_seed0_gen2.npz"
    cut = tmp_path / "cut.npz"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    code, err = cli(["play", f"afterstate:{cut}", "random", "--quiet"], capsys)
    assert_clear_error(code, err, "cut.npz", "BadZipFile")
