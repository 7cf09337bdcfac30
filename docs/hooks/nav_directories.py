"""mkdocs hook: a nav entry that names a directory (``Experiments: experiments/``) lists its pages.

The entry becomes a section of every ``*.md`` file in that directory of ``docs/``: ``index.md`` first (the
section's own page), then the others by file name (the dated experiment pages in date order), each titled by
its first heading. So a new page in the directory is in the nav without an edit of ``mkdocs.yml``, and
``validation.omitted_files`` still catches a page anywhere else that the nav forgot. An entry naming a
directory that is missing or holds no page is an error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError


def expand(nav: Any, docs_dir: Path) -> Any:
    """``nav`` (mkdocs' nav: lists of strings and one-key dicts) with each ``"dir/"`` replaced by its pages."""
    if isinstance(nav, list):
        return [expand(item, docs_dir) for item in nav]
    if isinstance(nav, dict):
        return {title: expand(value, docs_dir) for title, value in nav.items()}
    if isinstance(nav, str) and nav.endswith("/") and "://" not in nav:
        pages = sorted((docs_dir / nav).glob("*.md"), key=lambda page: (page.name != "index.md", page.name))
        if not pages:
            raise PluginError(f"mkdocs.yml: the nav names the directory docs/{nav}, which holds no page")
        return [page.relative_to(docs_dir).as_posix() for page in pages]
    return nav


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    config.nav = expand(config.nav, Path(config.docs_dir))
    return config
