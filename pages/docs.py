"""The project's docs (docs/*.md) as pages of the site, rendered from the Markdown files.

The files are the project's own, not anything a user sent, so nothing is sanitised; raw
HTML in them is still written out as text (markdown-it's ``html`` off), which keeps the
pages' markup plain: no script, no inline style. Each page is rendered on its first
request and kept for the life of the process (the files change only with a deploy).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from django.conf import settings
from django.urls import reverse
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

# The docs served, by the page's name: their order is the docs index's and the navigation's.
DOCS = {
    "notation": ("notation.md", "the BRN format: every field and action of a record"),
    "rules": ("rules.md", "the nine rule sets and every choice the engine makes"),
    "analysis": ("analysis.md", "what the analysis finds and how it judges"),
}

# A link from one doc to another, as written in the files: "rules.md", "./rules.md#x", "docs/rules.md".
_DOC_LINK = re.compile(r"^(?:\./)?(?:docs/)?(?P<name>[\w-]+)\.md(?P<anchor>#[\w-]*)?$")
_EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|/|#)", re.I)


@dataclass(frozen=True)
class DocPage:
    name: str
    title: str
    html: str


def doc_page(*, name: str) -> DocPage | None:
    """The page of doc ``name`` (a key of :data:`DOCS`), None for any other name."""
    return rendered_doc(name) if name in DOCS else None


def doc_index() -> list[dict[str, str]]:
    """Each doc served: its name, its title (its first heading) and what it is about."""
    return [
        {"name": name, "title": rendered_doc(name).title, "about": about} for name, (_, about) in DOCS.items()
    ]


@functools.cache
def rendered_doc(name: str) -> DocPage:
    """Doc ``name`` rendered, once per process (only the names of :data:`DOCS` reach here)."""
    text = (settings.BASE_DIR / "docs" / DOCS[name][0]).read_text(encoding="utf-8")
    heading = re.search(r"^# (.+)$", text, re.M)
    return DocPage(name=name, title=heading.group(1).strip() if heading else name, html=render_markdown(text))


def render_markdown(text: str) -> str:
    """CommonMark with tables: headings get ids (anchors), links between the docs point to
    their pages, a relative link to a file the site does not serve becomes its text, and
    each table scrolls in a box of its own (a phone)."""
    markdown = _markdown()
    tokens = markdown.parse(text)
    used: set[str] = set()
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            token.attrSet("id", _slug(tokens[index + 1].content, used))
        elif token.type == "inline" and token.children:
            token.children = _relinked(token.children)
        elif token.type in ("th_open", "td_open") and token.attrGet("style"):
            # A column's alignment (|---:|) as a class: the pages carry no inline style.
            align = str(token.attrGet("style")).removeprefix("text-align:")
            del token.attrs["style"]
            token.attrSet("class", f"align-{align}")
    return str(markdown.renderer.render(tokens, markdown.options, {}))


@functools.cache
def _markdown() -> MarkdownIt:
    markdown = MarkdownIt("commonmark", {"html": False}).enable("table")
    markdown.add_render_rule("table_open", _table_open)
    markdown.add_render_rule("table_close", _table_close)
    return markdown


def _table_open(self: RendererHTML, tokens: list[Token], index: int, options: OptionsDict, env: EnvType) -> str:
    return '<div class="table-scroll">' + self.renderToken(tokens, index, options, env)


def _table_close(self: RendererHTML, tokens: list[Token], index: int, options: OptionsDict, env: EnvType) -> str:
    return self.renderToken(tokens, index, options, env) + "</div>\n"


def _relinked(children: list[Token]) -> list[Token]:
    """Links to a served doc point to its page; the links (open and close) to a relative
    file the site does not serve are left out, their text kept."""
    kept: list[Token] = []
    dropped_depth: list[bool] = []  # per open link: was it left out?
    for child in children:
        if child.type == "link_open":
            href = str(child.attrGet("href") or "")
            found = _DOC_LINK.match(href)
            if found and found["name"] in DOCS:
                child.attrSet("href", reverse("docs-page", args=[found["name"]]) + (found["anchor"] or ""))
            elif not _EXTERNAL.match(href):
                dropped_depth.append(True)
                continue
            dropped_depth.append(False)
        elif child.type == "link_close" and dropped_depth and dropped_depth.pop():
            continue
        kept.append(child)
    return kept


def _slug(text: str, used: set[str]) -> str:
    """A heading's anchor as GitHub makes it: lower case, spaces as hyphens, other
    punctuation left out; a repeated one gets -1, -2, ..."""
    base = re.sub(r"[^\w\- ]", "", text.lower()).strip().replace(" ", "-") or "section"
    slug, number = base, 0
    while slug in used:
        number += 1
        slug = f"{base}-{number}"
    used.add(slug)
    return slug
