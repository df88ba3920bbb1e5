"""The match list and the docs pages as a browser shows them (the details are in
tests/service/test_pages_list.py and test_pages_docs.py)."""

from __future__ import annotations

from typing import Any

import pytest

from buraco.analysis import analyze
from buraco.notation import loads
from buraco.replay import verify

from .test_replay import RECORD, upload

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_match_list_shows_totals_findings_and_the_file(new_page: Any, player: Any) -> None:
    page = new_page(390, 844)
    match_id = upload(page, player)
    page.goto("/")
    row = page.locator(f"tr[data-match='{match_id}']")
    totals = verify(loads(RECORD)).totals
    assert row.locator("td.totals").inner_text().strip() == f"{totals[0]} / {totals[1]}"
    assert row.locator("td.findings").inner_text().strip() == str(len(analyze(loads(RECORD))))
    assert row.locator("td.file").inner_text().strip() == "hand.brn"
    assert page.locator("input[name=mine]").is_visible()
    visitor = new_page(390, 844)
    visitor.goto("/")
    assert visitor.locator("input[name=mine]").count() == 0, "no 'only mine' for a visitor"
    assert visitor.locator("form.filters button").is_visible()
    # The header (Upload, Docs, API, Log in, Sign up) keeps to one row at 390 px.
    assert visitor.locator("header").bounding_box()["height"] <= 40
    assert page.locator("header").bounding_box()["height"] <= 40


def test_the_docs_are_pages_reached_from_the_upload_page(new_page: Any, player: Any) -> None:
    page = new_page()
    upload(page, player)
    page.goto("/upload/")
    page.click("a[href='/docs/notation/']")
    page.wait_for_url("**/docs/notation/")
    assert page.locator("article.doc h1").inner_text().strip()
    verbs = page.locator("article.doc table", has=page.locator("th", has_text="verb"))
    assert verbs.is_visible() and "draw" in verbs.inner_text()
    page.click("article.doc a[href^='/docs/rules/']")
    page.wait_for_url("**/docs/rules/**")
    assert page.locator("article.doc table").count() > 0
    page.click("header a[href='/docs/']")
    page.wait_for_url("**/docs/")
    assert page.locator("main a[href='/docs/analysis/']").is_visible()
    phone = new_page(390, 844)
    phone.goto("/docs/notation/")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390, "wide tables scroll in their box"
    assert page.errors == [] and phone.errors == []
