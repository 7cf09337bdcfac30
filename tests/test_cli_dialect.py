"""One dialect for the carcassonne command and its trainers (training/cli/dialect.py), ``--version``,
and the CLI reference's help texts (training/cli/reference.py)."""

import argparse
import importlib

import pytest

import carcassonne_env
from training.cli import train
from training.cli.dialect import list_flags, refuse_old_spellings
from training.cli.main import RENAMED, build_parser, main


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_version_names_the_package_and_its_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"carcassonne-env {carcassonne_env.__version__}\n"


def test_every_boolean_option_of_the_command_is_a_pair_of_flags() -> None:
    for name, parser in _subcommands(build_parser()).items():
        for action in parser._actions:
            if action.nargs == 0 and not isinstance(action, argparse._HelpAction):
                assert isinstance(action, argparse.BooleanOptionalAction), f"carcassonne {name} {action.dest}"


@pytest.mark.parametrize(("command", "old", "new"), [(c, o, n) for c, m in RENAMED.items() for o, n in m.items()])
def test_an_old_flag_is_refused_in_one_line_naming_the_new_one(command: str, old: str, new: str,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    for spelling in ([old, "1"], [f"{old}=1"]):
        with pytest.raises(SystemExit) as exit_:
            main([command, "random", "greedy", *spelling])
        assert exit_.value.code == 2
        assert capsys.readouterr().err == f"carcassonne {command}: error: {old} was renamed {new}\n"


def test_a_new_flag_of_an_old_name_still_parses() -> None:
    args = build_parser().parse_args(["tournament", "random", "greedy", "--seed", "7", "--no-progress"])
    assert (args.seed, args.progress) == (7, False)


@pytest.mark.parametrize(("argv", "message"), [
    (["--anchors", "random", "greedy"], "--anchors takes one comma-separated list: --anchors random,greedy, not "
                                        "--anchors random greedy"),
    (["--anchors", "--seed", "1"], "--anchors takes one comma-separated list: --anchors A,B ('' for none)"),
    (["--anchors"], "--anchors takes one comma-separated list"),
])
def test_a_list_given_the_old_way_is_refused_in_one_line(argv: list[str], message: str,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        refuse_old_spellings(["quick", *argv], "prog", lists=["--anchors"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"prog: error: {message}")


@pytest.mark.parametrize("argv", [["--anchors", "random,greedy", "--seed", "1"], ["--anchors=random", "x"],
                                  ["--anchors", "", "--seed", "1"], ["--fixed-weights", "1", "-1"],
                                  ["--", "--first-seed", "--anchors"]])
def test_the_dialects_own_spellings_pass(argv: list[str]) -> None:
    refuse_old_spellings(argv, "prog", {"--first-seed": "--seed"}, lists=["--anchors"])


def test_trainer_lists_are_one_comma_separated_argument() -> None:
    tyro = pytest.importorskip("tyro")
    from training.cli.dialect import comma_lists

    module = importlib.import_module("training.afterstate.value_iteration")
    assert "--anchors" in list_flags(module.Settings) and "--seed" not in list_flags(module.Settings)
    settings = tyro.extras.overridable_config_cli(
        module.PRESETS, registry=comma_lists(),
        args=["quick", "--anchors", "mcts:sims=20,guide=1,greedy", "--expansions", "", "--hidden", "8,4"])
    assert settings.anchors == ("mcts:sims=20,guide=1", "greedy")  # a spec's own options stay with it
    assert settings.expansions == () and settings.hidden == (8, 4)


def test_trainer_outputs_default_to_runs_trainer_preset() -> None:
    pytest.importorskip("tyro")
    for trainer in train.TRAINERS:
        presets = getattr(importlib.import_module(trainer.module), "PRESETS", {})
        for preset, (_, settings) in presets.items():
            assert settings.out == f"runs/{trainer.name}/{preset}", (trainer.name, preset)


def test_the_reference_holds_every_command_and_trainer_at_100_columns() -> None:
    pytest.importorskip("tyro")
    from training.cli.reference import WIDTH, command_helps

    helps = command_helps()
    names = [name for name, _ in helps]
    commands = _subcommands(build_parser())
    wanted = ["carcassonne", *(f"carcassonne {c}" for c in commands)]
    wanted += [f"carcassonne bench {t}" for t in _subcommands(commands["bench"])]  # each target's own flags
    wanted += [f"carcassonne train {t.name}" for t in train.TRAINERS]
    wanted += [f"carcassonne train {t.name} {p}" for t in train.TRAINERS
               for p in getattr(importlib.import_module(t.module), "PRESETS", {})]
    assert sorted(names) == sorted(wanted) and len(set(names)) == len(names)
    assert names[:2] == ["carcassonne", "carcassonne play"]
    for name, text in helps:
        assert text.startswith(f"usage: {name}"), name
        assert "\x1b" not in text, name
        assert max(len(line) for line in text.splitlines()) <= WIDTH, name
        assert not any(line.endswith(" ") for line in text.splitlines()), name
        assert "[STR [STR" not in text and "[INT [INT" not in text, name  # tyro's space-separated lists
    assert "--expansions STR,STR" in dict(helps)["carcassonne train ppo quick"]
    assert "--progress, --no-progress" in dict(helps)["carcassonne train afterstate quick"]
