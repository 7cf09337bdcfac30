"""The package layout (issue 18): arrows point down (training → agents → carcassonne_env), the
engine and the replay viewer import no RL library, the tournament side and the command need no
torch, every trainer is a ``carcassonne train`` subcommand, and shipped or old checkpoints load
from the modules that hold their classes now."""

from __future__ import annotations

import ast
import base64
import importlib
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from agents import make_agent
from carcassonne_env.engine import Game, GameConfig
from carcassonne_env.engine.registry import TOWER_VARIANT
from training.cli.main import main
from training.cli.train import TRAINERS

ROOT = Path(__file__).resolve().parent.parent
PRETRAINED = ROOT / "agents" / "pretrained"


def _imported_packages(package: str) -> set[str]:
    """The top-level packages that the modules of ``package`` import (statically, lazily or not)."""
    found = set()
    for path in (ROOT / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return found


def test_imports_point_down_only() -> None:
    assert "training" not in _imported_packages("agents")
    assert not {"training", "agents"} & _imported_packages("carcassonne_env")


def test_agents_code_names_no_training_module() -> None:
    """Besides the one table of old names (agents/nets/legacy.py), nothing in agents refers to a
    module of the trainers: play-time code does not know them."""
    for path in (ROOT / "agents").rglob("*.py"):
        if path.name != "legacy.py":
            assert not re.search(r"(?<![\w/])training\.[a-z]", path.read_text(encoding="utf-8")), path


#: The RL and plotting libraries a light entry point never imports.
HEAVY_LIBRARIES = ("gymnasium", "pettingzoo", "torch", "stable_baselines3", "ray", "PIL", "matplotlib")
#: Code that uses each light entry point: the engine (and its positions), and the replay viewer.
LIGHT_USES = {
    "engine": "import carcassonne_env, carcassonne_env.engine, carcassonne_env.engine.position",
    "viewer": "from carcassonne_env.engine import Game, GameConfig; from carcassonne_env.viewer import replay_html;"
              "replay_html(Game(GameConfig(players=2), seed=0))",
}


@pytest.mark.parametrize("use", LIGHT_USES.values(), ids=list(LIGHT_USES))
def test_a_light_entry_point_imports_no_rl_library(use: str) -> None:
    code = f"import sys; {use}; print(' '.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert {name.split(".")[0] for name in out.split()} & set(HEAVY_LIBRARIES) == set()


_NO_TORCH = """
import sys

class NoTorch:  # a meta path finder: importing torch raises ImportError (a None in sys.modules
    def find_spec(self, name, path, target=None):  # would break scipy, which looks torch up there)
        if name.split(".")[0] == "torch":
            raise ImportError("torch is blocked")

sys.meta_path.insert(0, NoTorch())
import training.arena
from training.arena import backends, match, ratings, ray_support, report, schedule, tournament
from training.cli.main import main
from training.arena.match import play_match
from carcassonne_env.engine import GameConfig
assert play_match(GameConfig(players=2), ["greedy", "random"], seed=1).scores
try:
    main(["train", "--help"])
except SystemExit as e:
    assert e.code == 0
"""


def test_the_arena_and_the_command_work_without_torch(tmp_path: Path) -> None:
    out = tmp_path / "t"
    code = _NO_TORCH + f"assert main(['tournament', 'greedy', 'random', '--seeds', '1', '--out', {str(out)!r}, " \
                       "'--no-progress']) == 0\nassert 'torch' not in sys.modules\n"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Train an agent" in done.stdout and "ppo" in done.stdout
    assert (out / "games.jsonl").is_file()
    assert "Imports no torch" in (importlib.import_module("training.arena").__doc__ or "")


def test_every_trainer_is_a_train_subcommand_with_its_own_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["train", "--help"])
    assert exit_.value.code == 0
    listing = capsys.readouterr().out
    for trainer in TRAINERS:
        assert trainer.name in listing and trainer.summary.split()[0] in listing
    with pytest.raises(SystemExit) as exit_:
        main(["train", "value", "--help"])
    assert exit_.value.code == 0
    help_ = capsys.readouterr().out
    assert help_.startswith("usage: carcassonne train value") and "--holdout" in help_
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert "train an agent" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_:
        main(["train", "nope"])
    assert exit_.value.code == 2


def _zip_bytes(path: Path) -> bytes:
    """Every entry of an SB3 zip, with the pickles in its ``data`` JSON decoded (they name classes)."""
    with zipfile.ZipFile(path) as z:
        raw = b"".join(z.read(name) for name in z.namelist())
        data = json.loads(z.read("data"))
    pickles = [base64.b64decode(v[":serialized:"]) for v in data.values()
               if isinstance(v, dict) and ":serialized:" in v]
    return raw + b"".join(pickles)


def _one_move(spec: str) -> None:
    game = Game(GameConfig(players=2, expansions=TOWER_VARIANT), seed=0)
    action = make_agent(spec, seed=0).choose_action(game)
    assert action in game.legal_actions()


def test_the_shipped_value_weights_load_and_play() -> None:
    data = json.loads((PRETRAINED / "value_linear.json").read_text())
    assert data["features"]
    _one_move("greedy:value=linear")


def test_the_shipped_afterstate_network_loads_and_plays() -> None:
    from agents.afterstate import PRETRAINED as NETWORK
    from agents.nets.value_net import ValueNet

    assert NETWORK.parent == PRETRAINED and NETWORK.exists()
    assert ValueNet.load(NETWORK).config == GameConfig(players=2, expansions=TOWER_VARIANT).to_dict()
    _one_move("afterstate:pretrained")


@pytest.mark.parametrize("zip_path", sorted(PRETRAINED.glob("*.zip")), ids=lambda p: p.name)
def test_each_shipped_checkpoint_names_only_current_modules_and_plays(zip_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    assert b"training." not in _zip_bytes(zip_path)
    assert b"agents.nets.policy" in _zip_bytes(zip_path)
    _one_move(f"ppo:{zip_path}")
    if zip_path.name == "tower_2p.zip":
        _one_move("ppo:pretrained")


def test_a_zip_saved_under_the_old_module_names_still_loads_and_plays_the_same(
    tmp_path: Path, one_torch_thread: None
) -> None:
    pytest.importorskip("sb3_contrib")
    from legacy_names import saved_under
    from sb3_contrib import MaskablePPO

    from agents import ppo
    from agents.nets.policy import CarcassonnePolicy
    from training.sb3.buffer import CompactRolloutBuffer

    model = MaskablePPO.load(PRETRAINED / "tower_2p.zip", device="cpu", rollout_buffer_class=CompactRolloutBuffer)
    old = tmp_path / "old.zip"
    with saved_under("training.network", CarcassonnePolicy), saved_under("training.buffer", CompactRolloutBuffer):
        model.save(old)
    data = _zip_bytes(old)
    assert b"training.network" in data and b"training.buffer" in data and b"\"__module__\": \"agents" not in data
    assert "training.network" not in sys.modules
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("training.network")  # the old name is gone: only the loader maps it
    config = GameConfig(players=2, expansions=TOWER_VARIANT)
    from training.arena.match import play_match

    assert play_match(config, [f"ppo:{old}", "greedy"], seed=2).record == \
        play_match(config, ["ppo:pretrained", "greedy"], seed=2).record
    assert "training.network" not in sys.modules  # the alias lasts only while the zip is read
    assert isinstance(ppo.load_policy(old.resolve()), CarcassonnePolicy)
