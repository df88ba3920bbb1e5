"""The project's docs (docs/notation.md, rules.md, analysis.md) are pages of the site,
rendered from the Markdown files (tables too) once per process, linked to each other, from
the upload page and from every page's header."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from pages import docs

from .helpers import fast_passwords, logged_in  # noqa: F401  (a fixture)

ROOT = Path(__file__).resolve().parents[2]
PAGES = {"notation": "notation.md", "rules": "rules.md", "analysis": "analysis.md"}


def markdown_tables(text: str) -> int:
    """How many tables a Markdown file holds: a header row followed by its |---| line."""
    return len(re.findall(r"^\|.*\|\n\|[-:| ]+\|$", text, re.M))


@pytest.mark.parametrize("name", sorted(PAGES))
def test_it_serves_each_doc_as_a_page_with_its_tables(db: Any, name: str) -> None:
    source = (ROOT / "docs" / PAGES[name]).read_text()
    response = Client().get(f"/docs/{name}/")
    assert response.status_code == 200
    body = response.content.decode()
    title = re.search(r"^# (.+)$", source, re.M).group(1)  # type: ignore[union-attr]
    assert re.search(r"<title>[^<]*" + re.escape(title.replace("&", "&amp;")), body)
    article = body[body.index('<article class="doc"'):body.index("</article>")]
    assert article.count("<table>") == markdown_tables(source) > 0
    assert "<script" not in article and " style=" not in article  # plain markup, nothing inline to allow
    if "\n```" in source:
        assert '<pre><code class="language-' in article or "<pre><code>" in article


def test_it_renders_a_known_table_and_section(db: Any) -> None:
    body = Client().get("/docs/notation/").content.decode()
    assert "<th>verb</th>" in body and "<td><code>draw</code></td>" in body
    assert re.search(r'<h2 id="actions">Actions</h2>', body)


def test_it_rewrites_links_between_the_docs_to_the_sites_pages(db: Any) -> None:
    rendered = docs.render_markdown(
        "[rules](rules.md#scoring), [notation](docs/notation.md), [analysis](./analysis.md), "
        "[benchmarks](benchmarks.md), [TOML](https://toml.io), [here](#cards)"
    )
    assert '<a href="/docs/rules/#scoring">rules</a>' in rendered
    assert '<a href="/docs/notation/">notation</a>' in rendered
    assert '<a href="/docs/analysis/">analysis</a>' in rendered
    assert '<a href="https://toml.io">TOML</a>' in rendered and '<a href="#cards">here</a>' in rendered
    assert 'href="benchmarks.md"' not in rendered, "a doc the site does not serve is no broken link"
    notation = Client().get("/docs/notation/").content.decode()
    assert 'href="/docs/rules/' in notation, "notation.md links the rules"


def test_it_escapes_html_written_in_a_doc(db: Any) -> None:
    assert "<script>" not in docs.render_markdown("<script>alert(1)</script>\n\nand `<b>`")


def test_it_renders_a_doc_once_per_process(db: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    docs.rendered_doc.cache_clear()
    calls: list[str] = []
    render = docs.render_markdown
    monkeypatch.setattr(docs, "render_markdown", lambda text: calls.append(text) or render(text))
    for _ in range(3):
        assert Client().get("/docs/rules/").status_code == 200
        assert Client().get("/docs/").status_code == 200
    # Each doc once (the navigation names them all by their titles), however many requests.
    assert sorted(text.splitlines()[0] for text in calls) == sorted(
        (ROOT / "docs" / file).read_text().splitlines()[0] for file in PAGES.values())


def test_it_answers_404_for_a_doc_it_does_not_serve(db: Any) -> None:
    for path in ("/docs/benchmarks/", "/docs/README/", "/docs/..%2Fsettings/", "/docs/notation.md"):
        assert Client().get(path).status_code == 404, path


def test_it_links_the_docs_from_the_upload_page_and_the_header(db: Any, owner: User) -> None:
    upload = logged_in(owner).get("/upload/").content.decode()
    assert 'href="/docs/notation/"' in upload
    header = Client().get("/").content.decode().split("</header>", 1)[0]
    assert 'href="/docs/"' in header
    index = Client().get("/docs/").content.decode()
    assert all(f'href="/docs/{name}/"' in index for name in PAGES)
