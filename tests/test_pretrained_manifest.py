"""The shipped models are known by content (agents/manifest.py): the manifest lists every file of
``agents/pretrained/`` as it is, a shipped key loads a file only once its SHA-256 is the manifest's (a
changed file or one dropped into the folder is refused before anything reads it as a model), and the
project's own formats load as data: an ``.npz``, a ``.json`` or a fit's ``.pt`` that holds a pickled
object is refused, never unpickled."""

from __future__ import annotations

import os
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents import AgentSpecError, make_agent, manifest_writer, position_value, ppo, shipped_values
from agents import manifest as mf
from agents.afterstate import pretrained_nets
from agents.mcts import MCTSAgent
from agents.nets.value_net import ValueNet
from agents.shipped_values import AFTERSTATE_FILES, PerPlayerCount
from agents.value import LinearValue
from carcassonne_env.engine import Game, GameConfig
from carcassonne_env.engine.registry import TOWER_VARIANT


class Payload:
    """Unpickled, it creates the directory ``marker``: proof that a loader ran code from a file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Callable[[str], None], tuple[str]]:
        return os.mkdir, (str(self.marker),)


def _copy(tmp_path: Path, *names: str) -> Path:
    """A copy of the shipped folder's manifest and the files ``names``."""
    folder = tmp_path / "pretrained"
    folder.mkdir()
    for name in (mf.MANIFEST_NAME, *names):
        shutil.copy2(mf.PRETRAINED_DIR / name, folder / name)
    return folder


def _flip_a_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def _never(*args: Any) -> Any:
    raise AssertionError(f"loaded {args} before the manifest vouched for it")


def test_the_manifest_lists_every_shipped_file_as_it_is() -> None:
    """Forgetting to regenerate it fails here (python scripts/maintainer/pretrained_manifest.py --write)."""
    assert manifest_writer.differences() == []
    # hidden files are no models: a writer's lock (`.value_linear_5p.json.lock`, git-ignored) stays beside its file
    files = {p.name for p in mf.PRETRAINED_DIR.iterdir() if not p.name.startswith(".")} - {mf.MANIFEST_NAME}
    assert set(mf.read_manifest()) == files


def test_each_key_of_the_manifest_is_the_files_that_key_loads() -> None:
    listed = mf.read_manifest()

    def files(key: str) -> set[str]:
        return {name for name, entry in listed.items() if key in entry["keys"]}

    for name in ppo.SHIPPED:
        assert files(f"ppo:{name}") == {ppo.resolve_checkpoint(name).name}
    for value in ("linear", "afterstate", "afterstate_long"):
        family = position_value(value)
        assert isinstance(family, PerPlayerCount)
        assert files(f"value={value}") == {p.name for p in family.files.values()}
    assert files("afterstate:pretrained") == {p.name for p in pretrained_nets().files.values()}
    mcts = make_agent("mcts:pretrained", seed=0)
    assert isinstance(mcts, MCTSAgent) and isinstance(mcts.value, PerPlayerCount)
    assert files("mcts:pretrained") == {p.name for p in mcts.value.files.values()}


def test_the_manifest_gives_the_game_each_key_was_trained_on() -> None:
    tower = [GameConfig(players=n, expansions=TOWER_VARIANT).to_dict() for n in (2, 3, 4, 5, 6)]
    assert mf.trained_games("ppo:pooled") == tower[:1]
    assert mf.trained_games("value=linear") == tower
    networks = pretrained_nets().files.values()
    assert mf.trained_games("afterstate:pretrained") == [ValueNet.load(p).config for p in networks]
    with pytest.raises(ValueError, match=r"'ppo:nothing' is not a shipped key \(shipped: afterstate:pretrained, "):
        mf.trained_games("ppo:nothing")


def test_what_can_carry_code_is_said_per_file() -> None:
    for name, entry in mf.read_manifest().items():
        assert entry["carries_code"] is name.endswith(".zip"), name
        assert (entry["layout_version"] is not None) is name.endswith(".zip"), name


def test_a_changed_shipped_file_is_refused_before_it_is_loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _copy(tmp_path, AFTERSTATE_FILES[2], AFTERSTATE_FILES[3], "pooled_tower_2p.zip", "value_linear.json")
    for name in (AFTERSTATE_FILES[3], "pooled_tower_2p.zip", "value_linear.json"):
        _flip_a_byte(folder / name)
    loaded: list[Path] = []

    def load(path: Path) -> Any:
        loaded.append(path)
        return ValueNet.load(path)

    monkeypatch.setattr(shipped_values, "PRETRAINED_DIR", folder)
    family = PerPlayerCount.shipped("afterstate", AFTERSTATE_FILES, load)
    with pytest.raises(mf.ShippedFileError) as refused:
        family.for_players(3)
    assert str(refused.value) == (f"{folder / AFTERSTATE_FILES[3]}: its SHA-256 is not the manifest's; reinstall the "
                                  "package or restore the file")
    assert loaded == []
    family.for_players(2)  # the unchanged file of the same family loads
    assert loaded == [folder / AFTERSTATE_FILES[2]]

    monkeypatch.setitem(ppo.SHIPPED, "pooled", folder / "pooled_tower_2p.zip")
    monkeypatch.setattr(ppo, "load_policy", _never)
    with pytest.raises(AgentSpecError, match=r"pooled_tower_2p.zip: its SHA-256 is not the manifest's") as spec:
        make_agent("ppo:pooled", seed=0)
    assert "\n" not in str(spec.value)

    greedy = make_agent("greedy:value=linear", seed=0)
    with pytest.raises(ValueError, match=r"value_linear.json: its SHA-256 is not the manifest's"):
        greedy.choose_action(Game(GameConfig(players=2, expansions=TOWER_VARIANT), seed=1))


def test_a_file_dropped_into_the_folder_is_never_loaded_by_a_key(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _copy(tmp_path)
    shutil.copy2(mf.PRETRAINED_DIR / AFTERSTATE_FILES[4], folder / "afterstate_tower_7p.npz")
    shutil.copy2(mf.PRETRAINED_DIR / "tower_2p.zip", folder / "dropped_tower_2p.zip")
    monkeypatch.setattr(shipped_values, "PRETRAINED_DIR", folder)
    family = PerPlayerCount.shipped("afterstate", {**AFTERSTATE_FILES, 7: "afterstate_tower_7p.npz"}, _never)
    with pytest.raises(mf.ShippedFileError, match=r"afterstate_tower_7p.npz: not in the manifest of the shipped "
                                                  r"models \(manifest.json\), so no shipped name loads it"):
        family.for_players(7)
    monkeypatch.setitem(ppo.SHIPPED, "dropped", folder / "dropped_tower_2p.zip")
    with pytest.raises(mf.ShippedFileError, match=r"dropped_tower_2p.zip: not in the manifest"):
        ppo.resolve_checkpoint("dropped")


def test_a_missing_shipped_file_or_manifest_is_one_line(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    with pytest.raises(mf.ShippedFileError, match=r"tower_2p.zip: cannot be read \(No such file or directory\)"):
        mf.verified(folder / "tower_2p.zip")
    (folder / mf.MANIFEST_NAME).write_text('{"files": [{"file": "tower_2p.zip"}]}')
    with pytest.raises(mf.ShippedFileError, match=r"manifest.json: not a manifest of the shipped models \(ValueError: "
                                                  r"each entry must have exactly the fields file, sha256"):
        mf.verified(folder / "tower_2p.zip")
    with pytest.raises(mf.ShippedFileError, match=r"cannot read the manifest of the shipped models"):
        mf.verified(tmp_path / "tower_2p.zip")


def test_a_policy_of_another_layout_version_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from carcassonne_env.environment import layout

    monkeypatch.setattr(layout, "LAYOUT_VERSION", layout.LAYOUT_VERSION + 1)
    with pytest.raises(mf.ShippedFileError, match=rf"pooled_tower_2p.zip: trained under observation/action layout "
                                                  rf"{layout.LAYOUT_VERSION - 1}, and this env's is "
                                                  rf"{layout.LAYOUT_VERSION}"):
        ppo.resolve_checkpoint("pooled")
    assert mf.verified(mf.PRETRAINED_DIR / AFTERSTATE_FILES[2])  # a value reads no observation: no version


def test_a_policy_keeps_its_layout_version_until_its_bytes_change(tmp_path: Path) -> None:
    from carcassonne_env.environment.layout import LAYOUT_VERSION

    folder = tmp_path / "pretrained"
    folder.mkdir()
    for name in ("same_2p.zip", "changed_2p.zip"):
        shutil.copy2(mf.PRETRAINED_DIR / "tower_2p.zip", folder / name)
    before = {e["file"]: {**e, "layout_version": LAYOUT_VERSION - 1} for e in manifest_writer.build_manifest(folder)}
    _flip_a_byte(folder / "changed_2p.zip")
    after = {e["file"]: e for e in manifest_writer.build_manifest(folder, before)}
    assert after["same_2p.zip"]["layout_version"] == LAYOUT_VERSION - 1
    assert after["changed_2p.zip"]["layout_version"] == LAYOUT_VERSION
    assert after["same_2p.zip"]["game"] == GameConfig(players=2, expansions=TOWER_VARIANT).to_dict()
    assert after["same_2p.zip"]["game_source"] == "documented" and after["same_2p.zip"]["keys"] == []
    (folder / "notes.txt").write_text("")
    with pytest.raises(ValueError, match=r"notes.txt: not a shipped model's format \(.npz, .json, .pt, .zip\)"):
        manifest_writer.build_manifest(folder)


def test_a_zip_that_records_its_game_gives_the_manifest_that_game(tmp_path: Path) -> None:
    """A zip saved by the project's trainers records its game (agents.ppo.record_game): the manifest
    takes it from the file, whatever its name says."""
    folder = tmp_path / "pretrained"
    folder.mkdir()
    shutil.copy2(mf.PRETRAINED_DIR / "tower_2p.zip", folder / "base_3p.zip")
    base = GameConfig(players=3)
    ppo.record_game(folder / "base_3p.zip", base.to_dict())
    (entry,) = manifest_writer.build_manifest(folder)
    assert (entry["game"], entry["game_source"]) == (base.to_dict(), "file")


def test_a_file_is_hashed_once_per_version(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "value_linear.json")
    path = folder / "value_linear.json"
    mf._digest.cache_clear()
    for _ in range(3):
        mf.verified(path)
    assert mf._digest.cache_info().misses == 1
    _flip_a_byte(path)  # a new modification time: hashed again, and refused
    with pytest.raises(mf.ShippedFileError):
        mf.verified(path)
    assert mf._digest.cache_info().misses == 2


def test_a_value_network_holding_a_pickle_is_refused_not_unpickled(tmp_path: Path) -> None:
    marker, path = tmp_path / "ran", tmp_path / "net.npz"
    np.savez(path, meta=np.array([Payload(marker)], dtype=object))
    with pytest.raises(ValueError, match=r"^ValueNet: cannot load .*net.npz: ValueError: Object arrays cannot be "
                                         r"loaded when allow_pickle=False$"):
        ValueNet.load(path)
    assert not marker.exists()


def test_distillation_samples_holding_a_pickle_are_refused_not_unpickled(tmp_path: Path) -> None:
    from training.distill.policy_distillation import Samples

    marker, path = tmp_path / "ran", tmp_path / "samples.npz"
    np.savez(path, meta=np.array([Payload(marker)], dtype=object))
    with pytest.raises(ValueError, match="Object arrays cannot be loaded when allow_pickle=False"):
        Samples.load(path)
    assert not marker.exists()


def test_a_linear_value_holding_a_pickle_is_refused_not_unpickled(tmp_path: Path) -> None:
    marker, path = tmp_path / "ran", tmp_path / "value.json"
    path.write_bytes(pickle.dumps(Payload(marker)))
    with pytest.raises(ValueError, match=r"^LinearValue: cannot read value weights .*value.json: "):
        LinearValue.load(path)
    assert not marker.exists()


def test_a_fit_checkpoint_holding_a_pickle_is_refused_in_one_line_not_unpickled(tmp_path: Path) -> None:
    import torch

    from training.common.settings import SettingError
    from training.distill import policy_distillation as pd
    from training.distill.fit import fit
    from training.distill.samples import collect_round

    torch.set_num_threads(1)
    marker, checkpoint = tmp_path / "ran", tmp_path / "fit_checkpoint.pt"
    torch.save({"policy": Payload(marker)}, checkpoint)
    base: dict[str, Any] = {"players": 2, "expansions": ()}
    s = pd.Settings(**base, channels=8, blocks=1, head_hidden=8, epochs=1, batch_size=32)
    with pytest.raises(SettingError) as refused:
        fit(pd._student(s).policy, collect_round(base, 8, seed=3, teacher="greedy"), s, seed=5, checkpoint=checkpoint)
    assert str(refused.value) == (f"--resume: {checkpoint} is damaged, or holds objects that are not plain data "
                                  "(UnpicklingError); delete it: --resume fits the round again from its first epoch")
    assert not marker.exists()
