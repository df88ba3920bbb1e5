"""Playwright for Python driving Debian's Chromium (/usr/bin/chromium), headless, against
pytest-django's live server. Nothing is downloaded: `playwright install` is never run.

Without Chromium or Playwright the browser tests are skipped, naming why; under CI
(CI=true) they fail instead (.ci/run installs Chromium).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from buraco_site.celery import app as celery_app

CHROMIUM = os.environ.get("BURACO_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run",
]
PASSWORD = "pw-browser-123456"
ROOT = Path(__file__).resolve().parents[2]


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "needs Playwright for Python (pip install -r requirements/dev.txt)"
    if not os.path.exists(CHROMIUM):
        return f"needs Chromium at {CHROMIUM} (apt-get install chromium; .ci/run does it)"
    return None


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """The browser, for one test module: Playwright's event loop (and the permission given
    to Django below) must not outlive the browser tests in the rest of the session."""
    why = _missing()
    if why:
        if os.environ.get("CI"):
            pytest.fail(f"CI runs the browser tests: {why}")
        pytest.skip(why)
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop in this thread; Django refuses ORM calls
    # from a thread with a running loop unless told that it is safe (it is: the loop is idle).
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    manager = sync_playwright().start()
    browser = manager.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    try:
        yield browser
    finally:
        browser.close()
        manager.stop()
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    # The rate limits count in the cache, which the live server shares with the test: a
    # count an earlier test left must not meet a later one.
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def tasks_in_process(settings: Any) -> Iterator[None]:
    # Jobs run in the request that queued them (records/jobs.py's "inline"), so a test reads
    # the verdict right after the upload; tests/service/test_embedded_jobs.py runs the thread.
    settings.BURACO_EMBEDDED_JOBS = "inline"
    celery_app.conf.task_always_eager = True
    yield


@pytest.fixture
def player(transactional_db: Any) -> User:
    return User.objects.create_user("rita", password=PASSWORD)


@pytest.fixture
def new_page(chromium: Any, live_server: Any) -> Iterator[Any]:
    """new_page(width=1280, height=900): a fresh browser context's page; closed after the test."""
    contexts: list[Any] = []

    def make(width: int = 1280, height: int = 900) -> Any:
        context = chromium.new_context(viewport={"width": width, "height": height}, base_url=live_server.url)
        context.set_default_timeout(15_000)
        contexts.append(context)
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda error: page.errors.append(str(error)))
        return page

    yield make
    for context in contexts:
        context.close()
