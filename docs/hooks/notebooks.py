"""mkdocs hook: the notebooks of ``notebooks/`` are pages of the site, where they live in the repository.

``notebooks/*.ipynb`` and ``notebooks/README.md`` (the section's index page) join the site's files as
``notebooks/NAME`` before the mkdocs-jupyter plugin (mkdocs.yml) looks for notebooks among them, so the
plugin renders each notebook as committed: ``execute: false``, no outputs (``nbstripout --verify`` keeps them
stripped), never a copy under ``docs/``. A notebook links to the documentation as the repository holds it
(``../docs/env.md#actions``, which works in Jupyter and on the repository's home); on its page such a link
becomes the link to that page of the site, once the page is checked to exist (a missing one is a warning,
which fails ``mkdocs build --strict``). ``mkdocs serve`` watches the folder.
"""

from __future__ import annotations

import logging
import posixpath
import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

log = logging.getLogger("mkdocs.hooks.notebooks")

#: The folder of the notebooks, relative to the repository (the directory of mkdocs.yml), and on the site.
FOLDER = "notebooks"
#: A link of a notebook's page into the documentation as the repository holds it.
DOCS_LINK = re.compile(r'href="\.\./docs/(?P<path>[^"#]+)(?P<anchor>#[^"]*)?"')


def _root(config: MkDocsConfig) -> Path:
    return Path(config.config_file_path).resolve().parent


def notebook_sources(root: Path) -> list[str]:
    """The files of :data:`FOLDER` that are pages: its README (the index) and its notebooks, by name."""
    folder = root / FOLDER
    return [f"{FOLDER}/{path.name}" for path in [folder / "README.md", *sorted(folder.glob("*.ipynb"))]
            if path.is_file()]


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    config.watch.append(str(_root(config) / FOLDER))
    return config


@event_priority(50)  # before mkdocs-jupyter's on_files (priority 0), which wraps the notebooks it finds
def on_files(files: Files, config: MkDocsConfig) -> Files:
    for source in notebook_sources(_root(config)):
        files.append(File(source, str(_root(config)), config.site_dir, config.use_directory_urls))
    return files


def site_links(html: str, page: Page, files: Files) -> str:
    """``html``, a notebook page's content, with each ``../docs/PATH`` link made the link to the page or file
    ``PATH`` of the site, relative to ``page``; a missing target is a warning and the link stays."""

    def link(match: re.Match[str]) -> str:
        target = files.get_file_from_path(posixpath.normpath(match["path"]))
        if target is None:
            log.warning("Notebook '%s' links to '../docs/%s', which is not a page or file of the site.",
                        page.file.src_uri, match["path"])
            return match.group()
        return f'href="{target.url_relative_to(page.file)}{match["anchor"] or ""}"'

    return DOCS_LINK.sub(link, html)


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if page.file.src_uri.startswith(f"{FOLDER}/") and page.file.src_uri.endswith(".ipynb"):
        return site_links(html, page, files)
    return html
