"""The documentation site builds with ``mkdocs build --strict``: a broken link, a missing page or anchor, a
docstring mkdocstrings cannot render all fail it; and the hooks of ``docs/hooks/`` do what they say."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from machine_paths import machine_paths
from source_module import load_module

pytest.importorskip("mkdocs")
pytest.importorskip("material")
pytest.importorskip("mkdocstrings_handlers.python")
pytest.importorskip("mkdocs_jupyter")  # the notebooks' pages (docs/hooks/notebooks.py)

ROOT = Path(__file__).resolve().parent.parent
HOOKS = ROOT / "docs" / "hooks"


def _hook(name: str) -> ModuleType:
    return load_module(f"docs_hooks_{name}", HOOKS / f"{name}.py")


def _mkdocs_build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # mkdocs-material's banner about its successor
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config),
                           "--site-dir", str(site)], cwd=config.parent, env=env, capture_output=True, text=True,
                          timeout=600)


@pytest.mark.slow


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    from training.cli.reference import command_helps

    built = _mkdocs_build(ROOT / "mkdocs.yml", tmp_path / "site")
    output = built.stdout + built.stderr
    assert built.returncode == 0, output
    assert not re.search(r"^WARNING", output, re.M), output
    site = tmp_path / "site"
    cli = (site / "cli" / "index.html").read_text(encoding="utf-8")
    for command, _ in command_helps():
        assert f'id="{command.replace(" ", "-")}"' in cli, command
    engine = (site / "api" / "engine" / "index.html").read_text(encoding="utf-8")
    assert 'id="carcassonne_env.engine.Game"' in engine
    assert ":class:" not in engine  # the docstrings' roles became links or code
    # Every name the engine exports is documented, and each constructor of Action.
    import carcassonne_env.engine

    for name in [*carcassonne_env.engine.__all__, "Action.place", "Action.deploy", "Action.floor", "Action.tower_top",
                 "Action.capture", "Action.ransom", "Action.coerce", "ActionKind.PLACE"]:
        assert f'id="carcassonne_env.engine.{name}"' in engine, name
    assert "====" not in engine  # the reST simple tables became tables
    # No private name in a rendered default: GameConfig's variant flags show their value.
    text = [(path, html.unescape(re.sub(r"<[^>]+>", "", path.read_text(encoding="utf-8"))))
            for path in sorted((site / "api").rglob("*.html"))]
    assert "legacy_small_city: bool = False" in dict(text)[site / "api" / "engine" / "index.html"]
    private = [f"{path.relative_to(site)}: {match.group()}" for path, page in text
               for match in re.finditer(r"\w+: [^=\n]+ = _\w+", page)]
    assert not private, "\n".join(private)
    assert "github.com/carcassonne-env/carcassonne-env/blob/main/README.md" in (
        site / "index.html").read_text(encoding="utf-8")
    # No absolute path of the building machine on any page (the --help texts of the CLI page included).
    found = [f"{path.relative_to(site)}:{line}: {machine_path}"
             for path in sorted(site.rglob("*")) if path.suffix in {".html", ".json", ".csv", ".txt", ".md"}
             for line, machine_path in machine_paths(path.read_text(encoding="utf-8", errors="replace"))]
    assert not found, "\n".join(found)
    # No process chatter on any page: the docstrings of the API reference included.
    chatter = [f"{path.relative_to(site)}: {match.group()!r}" for path in sorted(site.rglob("*.html"))
               for match in re.finditer(r"\bissue \d+", re.sub(r"<[^>]+>", " ", path.read_text(encoding="utf-8")),
                                        re.IGNORECASE)]
    assert not chatter, "\n".join(chatter)
    # The notebooks are pages, rendered as committed (no outputs: not executed), their links to the docs
    # made links into the site.
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    assert notebooks
    for notebook in notebooks:
        page = (site / "notebooks" / notebook.stem / "index.html").read_text(encoding="utf-8")
        assert 'class="jp-Cell jp-CodeCell' in page and 'class="jp-OutputArea-child' not in page, notebook.name
        assert "../docs/" not in page, notebook.name
    assert 'href="../../rules/' in (site / "notebooks" / "01_environment_tour" / "index.html").read_text(
        encoding="utf-8")
    assert (site / "notebooks" / "index.html").exists()  # notebooks/README.md, the section's page


def test_the_cli_page_has_a_section_per_command() -> None:
    from training.cli.reference import command_helps

    cli_reference = _hook("cli_reference")
    helps = command_helps()
    page = cli_reference.render(helps)
    assert re.findall(r"^## (.+)$", page, re.M) == [command for command, _ in helps]
    assert "carcassonne train ppo" in dict(helps)
    for _, help_text in helps:
        assert help_text.rstrip() in page


def test_the_agent_specs_page_is_the_parsers_table_of_ranges() -> None:
    from agents.spec import option_reference

    page = _hook("agent_specs").render(option_reference())
    assert page.endswith(option_reference())
    assert "| `mcts` | `sims` | int | 1 to 100000" in page and "| `greedy` | `value` | str |" in page


def test_a_help_text_with_backticks_stays_in_its_code_block() -> None:
    cli_reference = _hook("cli_reference")
    page = cli_reference.render([("carcassonne x", "usage: x\n```\n## not a heading\n")])
    assert page.endswith("## carcassonne x\n\n````text\nusage: x\n```\n## not a heading\n````\n")
    with pytest.raises(Exception, match="no command to document"):
        cli_reference.render([])


def test_a_nav_directory_lists_its_pages_index_first(tmp_path: Path) -> None:
    nav_directories = _hook("nav_directories")
    (tmp_path / "notes").mkdir()
    for name in ("b.md", "index.md", "a.md", "picture.png"):
        (tmp_path / "notes" / name).write_text("# x\n", encoding="utf-8")
    nav = [{"Home": "index.md"}, {"Notes": "notes/"}, {"Out": "https://example.org/"}]
    assert nav_directories.expand(nav, tmp_path) == [
        {"Home": "index.md"}, {"Notes": ["notes/index.md", "notes/a.md", "notes/b.md"]},
        {"Out": "https://example.org/"}]
    with pytest.raises(Exception, match="holds no page"):
        nav_directories.expand(["empty/"], tmp_path)


def _project(tmp_path: Path, page: str) -> Path:
    """A small mkdocs project with the links hook, autorefs (which reads ``[a][b]`` as a cross-reference),
    one page and a source file beside docs/."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "code.py").write_text("", encoding="utf-8")
    (tmp_path / "docs" / "index.md").write_text(page, encoding="utf-8")
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        "site_name: t\nrepo_url: https://example.org/o/r\ntheme: mkdocs\nplugins: [autorefs]\n"
        "validation: {omitted_files: warn, absolute_links: warn, unrecognized_links: warn, anchors: warn}\n"
        f"hooks: [{HOOKS / 'links.py'}]\n", encoding="utf-8")
    return config


def test_a_link_out_of_docs_points_at_the_source_when_the_file_exists(tmp_path: Path) -> None:
    config = _project(tmp_path, "# t\n\n[code](../pkg/code.py#L3), [pkg](../pkg/), P[c][o] is text\n")
    built = _mkdocs_build(config, tmp_path / "site")
    assert built.returncode == 0, built.stdout + built.stderr
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert 'href="https://example.org/o/r/blob/main/pkg/code.py#L3"' in html
    assert 'href="https://example.org/o/r/tree/main/pkg"' in html
    assert "P[c][o] is text" in html


@pytest.mark.parametrize(("link", "message"), [
    ("../pkg/gone.py", "'pkg/gone.py' is not in the repository"),
    ("../../elsewhere.md", "outside the repository"),
    ("missing.md", "not found among documentation files"),
    ("#no-such-anchor", "no-such-anchor"),
])
def test_a_broken_link_fails_the_strict_build(tmp_path: Path, link: str, message: str) -> None:
    config = _project(tmp_path, f"# t\n\n[broken]({link})\n")
    built = _mkdocs_build(config, tmp_path / "site")
    assert built.returncode != 0
    assert message in built.stdout + built.stderr


def test_a_simple_table_becomes_a_markdown_table() -> None:
    blocks = _hook("api_docstrings")._blocks
    lines = ["Intro:", "", "======  ===========", "kind    meaning", "======  ===========",
             "PLACE   put a tile", "        (R11)", "FLOOR   |dx| ≤ h", "======  ===========", "", "After."]
    assert list(blocks(lines)) == ["Intro:", "", "", "| kind | meaning |", "|---|---|",
                                   "| PLACE | put a tile (R11) |", "| FLOOR | \\|dx\\| ≤ h |", "", "", "After."]
    headerless = ["=====  =======", "undo   take back", "quit   stop", "=====  =======", "After."]
    assert list(blocks(headerless)) == ["", "* undo: take back", "* quit: stop", "", "After."]
    assert list(blocks(["=====  ====", "no bottom border"])) == ["=====  ====", "no bottom border"]


def test_a_private_default_shows_its_value_or_an_ellipsis(tmp_path: Path) -> None:
    import griffe

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text(
        "from dataclasses import dataclass, field\n"
        "_HERE = object()\n\n"
        "def _flag(doc: str):\n    return field(default=False, metadata={'doc': doc})\n\n"
        "@dataclass\nclass Config:\n    players: int = 2\n    strict: bool = _flag('a private helper')\n\n"
        "def where(directory: object = _HERE, count: int = 3) -> None:\n    pass\n", encoding="utf-8")
    extension = _hook("api_docstrings").PrivateDefaults()
    pkg = griffe.load("pkg", search_paths=[str(tmp_path)], extensions=griffe.load_extensions(extension))
    config = pkg["Config.__init__"].parameters
    assert [(p.name, str(p.default)) for p in config][1:] == [("players", "2"), ("strict", "False")]
    assert [str(p.default) for p in pkg["where"].parameters] == ["...", "3"]


def test_a_notebooks_link_into_the_docs_becomes_a_site_link(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from mkdocs.structure.files import File, Files
    from mkdocs.structure.pages import Page

    notebooks = _hook("notebooks")
    files = Files([File("env.md", str(tmp_path), str(tmp_path / "site"), True),
                   File("notebooks/tour.md", str(tmp_path), str(tmp_path / "site"), True)])  # a page, as the plugin's
    page = Page("Tour", files.get_file_from_path("notebooks/tour.md"), {})  # type: ignore[arg-type]
    html = '<a href="../docs/env.md#actions">a</a> <a href="https://example.org/">b</a>'
    assert notebooks.site_links(html, page, files) == '<a href="../../env/#actions">a</a> <a href="https://example.org/">b</a>'
    assert notebooks.site_links('<a href="../docs/gone.md">a</a>', page, files) == '<a href="../docs/gone.md">a</a>'
    assert "not a page or file of the site" in caplog.text
