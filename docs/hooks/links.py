"""mkdocs hook: the links of the pages, checked strictly: into the site, into the source, none by accident.

**Source links.** The pages link to the code they describe (``../carcassonne_env/engine/game.py``) and
to the README, which the site does not contain. mkdocs alone would warn on every such link (and
``--strict`` fail), so the policy, applied to each relative ``href``/``src`` of a page before mkdocs
validates its links, is:

* a link that stays inside ``docs/`` is left to mkdocs, which checks that the page or file and the
  anchor exist;
* a link that leaves ``docs/`` but stays in the repository (the directory of ``mkdocs.yml``) becomes a link
  to that path on the repository's home, ``{repo_url}/blob/main/PATH`` (``tree`` for a directory), anchor
  kept, once the target is checked to exist in the working tree; a missing target is a warning, which
  fails ``mkdocs build --strict``, and the link is left as written;
* a link that leaves the repository is a warning too.

So strict checking still catches every broken link, whether it points into the site or into the source.

**No implicit cross-references.** mkdocs-autorefs (which mkdocstrings brings) reads Markdown's
reference-link form ``[title][identifier]`` as a link to an API object and warns when there is none; in
this project's pages and docstrings that form is an index, ``P[c][o]`` (prisoners, R46), never a link. So
the form keeps its plain-Markdown meaning (text, when no ``[o]: URL`` definition exists): a page links to
an API object with an ordinary link, ``[Game](api/engine.md#carcassonne_env.engine.Game)``, which mkdocs
checks, anchor included; the docstrings' roles (``:class:`Game```) are cross-references through
``api_docstrings.py``.
"""

from __future__ import annotations

import logging
import posixpath
import xml.etree.ElementTree as etree
from pathlib import Path
from urllib.parse import unquote, urlsplit, urlunsplit

from markdown import Markdown
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

log = logging.getLogger("mkdocs.hooks.links")

BRANCH = "main"
#: Runs before mkdocs' own link check (the "relpath" tree processor, priority 0).
PRIORITY = 2
#: mkdocs-autorefs' inline pattern for ``[title][identifier]``.
AUTOREFS_PATTERN = "mkdocs-autorefs"


class _State:
    """The page being rendered (mkdocs renders one page at a time) and where the source lives."""

    page: Page | None = None
    repo_root: Path = Path()
    docs_dir: Path = Path()
    repo_url: str = ""


_state = _State()


def source_url(target: str, page_src_uri: str) -> str | None:
    """The repository URL of ``target`` (a relative link written in the page ``page_src_uri``, relative to
    ``docs/``) when it leaves ``docs/``; None when it stays inside (mkdocs checks those). Logs a warning and
    returns None when the target does not exist or lies outside the repository."""
    scheme, netloc, path, query, anchor = urlsplit(target)
    if scheme or netloc or not path or path.startswith(("/", "\\")):
        return None
    docs_relative = posixpath.normpath(posixpath.join(posixpath.dirname(page_src_uri), unquote(path)))
    if not docs_relative.startswith("../"):
        return None
    resolved = (_state.docs_dir / docs_relative).resolve()
    try:
        repo_path = resolved.relative_to(_state.repo_root).as_posix()
    except ValueError:
        log.warning("Doc file '%s' links to '%s', which is outside the repository.", page_src_uri, target)
        return None
    if not resolved.exists():
        log.warning("Doc file '%s' links to '%s', but '%s' is not in the repository.", page_src_uri, target,
                    repo_path)
        return None
    kind = "tree" if resolved.is_dir() else "blob"
    return urlunsplit(("", "", f"{_state.repo_url}/{kind}/{BRANCH}/{repo_path}", query, anchor))


class _SourceLinks(Treeprocessor):
    def run(self, root: etree.Element) -> None:
        page = _state.page
        if page is None:  # Markdown rendered outside a page's rendering: nothing to resolve against
            return
        for element in root.iter():
            attribute = {"a": "href", "img": "src"}.get(element.tag)
            target = element.get(attribute) if attribute else None
            if attribute and target:
                url = source_url(target, page.file.src_uri)
                if url is not None:
                    element.set(attribute, url)


class _LinksExtension(Extension):
    def extendMarkdown(self, md: Markdown) -> None:
        md.treeprocessors.register(_SourceLinks(md), "source_links", PRIORITY)
        md.inlinePatterns.deregister(AUTOREFS_PATTERN, strict=False)


@event_priority(-100)  # after the plugins' on_config: the autorefs extension is in the list before this one
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    if not config.repo_url:
        raise ValueError("mkdocs.yml needs repo_url: links to the source are made from it")
    _state.repo_root = Path(config.config_file_path).resolve().parent
    _state.docs_dir = Path(config.docs_dir).resolve()
    _state.repo_url = config.repo_url.rstrip("/")
    config.markdown_extensions.append(_LinksExtension())  # type: ignore[arg-type]
    return config


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    _state.page = page
    return markdown


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    _state.page = None
    return html
