"""One mapping per concept: the finding kinds (buraco.analysis.KINDS) and the comment tags
(reviews.models.TAGS) are written once; every place that shows them (the replay page's
config, its JS and CSS, the README, docs/analysis.md) reads them or agrees with them. Adding a
kind or a tag is its one module plus one line."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User

from buraco.analysis import KINDS
from reviews.models import TAGS

from .conftest import record_text
from .helpers import logged_in, upload_one

ROOT = Path(__file__).resolve().parents[2]
REPLAY = ROOT / "pages" / "static" / "pages"


def test_the_replay_page_hands_its_js_the_tags_and_kinds_from_their_one_place(
    owner: User, owner_api: Any, upload: Any
) -> None:
    match_id = upload_one(upload, owner_api, record_text(hands=1, seed=901))
    page = logged_in(owner).get(f"/matches/{match_id}/hands/1/replay/").content
    found = re.search(rb'<script id="replay-config" type="application/json">(.*?)</script>', page, re.S)
    assert found is not None
    config = json.loads(found.group(1))
    assert (config["tags"], config["kinds"]) == (list(TAGS), list(KINDS))


def test_no_script_of_the_pages_writes_the_tags_or_kinds_out_again() -> None:
    for script in REPLAY.glob("replay/*.js"):
        text = script.read_text()
        for names in (TAGS, KINDS):
            listed = sum(1 for name in names if f'"{name}"' in text or f"'{name}'" in text)
            assert listed < 2, f"{script.name} lists {listed} of {names}: read them from the page's config"


def test_the_stylesheet_styles_only_kinds_and_tags_that_exist() -> None:
    css = (REPLAY / "replay.css").read_text()
    assert set(re.findall(r"\.kind-([a-z-]+)", css)) <= set(KINDS)
    assert set(re.findall(r"\.tag-([a-z-]+)", css)) <= set(TAGS)


def test_the_readme_names_the_tags_and_the_analysis_doc_the_kinds_as_the_code_does() -> None:
    readme = " ".join((ROOT / "README.md").read_text().split())
    sentence = readme[readme.index("its `tag` is one of"):]
    sentence = sentence[:sentence.index(" or empty")]
    assert re.findall(r"`([a-z-]+)`", sentence)[1:] == list(TAGS)  # [0] is `tag` itself
    analysis = (ROOT / "docs" / "analysis.md").read_text()
    table = analysis[analysis.index("| kind | about |"):]
    table = table[:table.index("\n\n")]
    assert re.findall(r"^\| `([a-z-]+)` \|", table, re.M) == list(KINDS)
