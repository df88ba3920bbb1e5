"""Coaching reviews on the replay page in a real browser: a coach the match is shared with
comments on a ply, the owner sees the comment beside that move and answers it, a
share-link holder reads both without a form, and the exported review brings the comment
back when uploaded as a new match. Setup and checks go through the API (Django's test
client); what a person does goes through the page.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from buraco.notation import dumps
from buraco.selfplay import play_match
from records.models import Match
from reviews.models import TAGS, Review

from .conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RECORD = dumps(play_match("cerrado", players=2, hands=1, seed=1, mistakes=0.3))
PLY = 5
COMMENT = "Keep the 7s: the canasta was one card away."
ANSWER = 'I feared the "discard" pile </script> \\ thanks.'  # served inside the page's JSON: escaped


def api_client(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def upload(client: Client, text: str) -> int:
    answer = client.post("/api/matches/", data=text, content_type="application/toml")
    assert answer.status_code == 202, answer.content
    match_id = int(answer.json()["id"])
    assert Match.objects.with_status().get(pk=match_id).status == "verified"
    return match_id


def log_in(page: Any, user: User) -> None:
    page.goto("/accounts/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PASSWORD)
    page.locator("main form button, main form input[type=submit]").first.click()
    page.wait_for_url(re.compile(r"/$"))


def open_replay(page: Any, match_id: int, query: str) -> None:
    page.goto(f"/matches/{match_id}/hands/1/replay/{query}")
    page.wait_for_selector("#replay[data-ready=true]")


def shown_comments(page: Any) -> list[dict[str, Any]]:
    return page.evaluate(
        """() => [...document.querySelectorAll('#comment-list .comment')].map((c) => ({
          author: c.querySelector('.comment-author').textContent,
          tag: c.querySelector('.comment-tag') ? c.querySelector('.comment-tag').textContent : '',
          text: c.querySelector('.comment-text').textContent,
          replies: [...c.querySelectorAll('.reply')].map((r) => [r.querySelector('.reply-author').textContent, r.querySelector('.reply-text').textContent]),
          can_answer: Boolean(c.querySelector('.reply-form')),
        }))"""
    )


def test_a_coach_comments_on_a_ply_the_owner_answers_and_the_export_brings_it_back(new_page: Any, player: User) -> None:
    coach = User.objects.create_user("carla", password=PASSWORD)
    owner_api = api_client(player)
    match_id = upload(owner_api, RECORD)
    assert owner_api.post(f"/api/matches/{match_id}/shared-with/", {"username": "carla"}, content_type="application/json").status_code == 204
    token = owner_api.post(f"/api/matches/{match_id}/share-link/").json()["share_token"]

    # The coach writes a comment with a tag on the ply shown; their review is made for it.
    page = new_page()
    log_in(page, coach)
    open_replay(page, match_id, f"?ply={PLY}")
    assert page.is_visible("#comment-form")
    assert page.locator("#comment-tag option").evaluate_all("(os) => os.map((o) => o.value)") == ["", *TAGS]
    assert page.text_content("#comment-label") == f"Your comment on ply {PLY}"
    page.fill("#comment-text", COMMENT)
    page.select_option("#comment-tag", "missed-canasta")
    page.click("#comment-form button[type=submit]")
    page.wait_for_selector("#comment-list .comment")
    assert shown_comments(page) == [{"author": "carla", "tag": "missed-canasta", "text": COMMENT, "replies": [], "can_answer": True}]
    review = Review.objects.get(match_id=match_id)
    assert review.author == coach and review.source == "api"
    assert list(review.comments.values_list("hand", "ply", "tag", "text")) == [(1, PLY, "missed-canasta", COMMENT)]
    assert page.input_value("#comment-text") == ""
    # Stepping away hides it; the move list keeps it beside its move.
    page.keyboard.press("ArrowRight")
    assert page.get_attribute("#replay", "data-ply") == str(PLY + 1)
    assert shown_comments(page) == []
    assert page.locator(f'#moves .move[data-ply="{PLY}"] .comment-badge').count() == 1
    assert page.locator("#moves .comment-badge").count() == 1
    page.keyboard.press("ArrowLeft")
    assert [c["text"] for c in shown_comments(page)] == [COMMENT]

    # The owner opens the hand at the deal, sees the comment beside its move, picks it and answers.
    owner_page = new_page()
    log_in(owner_page, player)
    open_replay(owner_page, match_id, "?ply=0")
    assert shown_comments(owner_page) == []
    badge = owner_page.locator(f'#moves .move[data-ply="{PLY}"] .comment-badge')
    assert "missed-canasta" in badge.text_content()
    owner_page.click(f'#moves a[data-ply="{PLY}"]')
    assert owner_page.get_attribute("#replay", "data-ply") == str(PLY)
    assert shown_comments(owner_page)[0]["text"] == COMMENT and shown_comments(owner_page)[0]["can_answer"]
    owner_page.fill("#comment-list .reply-form input[name=text]", ANSWER)
    owner_page.click("#comment-list .reply-form button[type=submit]")
    owner_page.wait_for_selector("#comment-list .reply")
    assert shown_comments(owner_page)[0]["replies"] == [["rita", ANSWER]]
    assert list(review.comments.get().replies.values_list("author__username", "text")) == [("rita", ANSWER)]
    assert owner_page.locator(".finish-review").count() == 0, "only the review's author finishes it"

    # The coach marks the review finished from the page: the form says so and takes nothing.
    open_replay(page, match_id, f"?ply={PLY}")
    assert shown_comments(page)[0]["replies"] == [["rita", ANSWER]]
    page.click(".finish-review")
    page.wait_for_selector(".review-row .review-state:text('finished')")
    review.refresh_from_db()
    assert review.finished
    assert page.is_disabled("#comment-text") and "reopen" in page.text_content("#comment-note")

    # A share-link holder reads the comment and its thread, with no form to write.
    reader = new_page()
    requests: list[str] = []
    reader.on("request", lambda request: requests.append(request.url))
    open_replay(reader, match_id, f"?share={token}&ply={PLY}")
    reader.keyboard.press("ArrowRight")
    reader.keyboard.press("ArrowLeft")
    api = sorted(re.sub(r"^.*?/api/matches/\d+/|\?.*$", "", url) for url in requests if "/api/" in url)
    assert api == ["hands/1/findings/", "hands/1/timeline/"], "the page holds the reviews: opening and stepping ask for no more"
    comments = shown_comments(reader)
    assert [(c["author"], c["text"], c["replies"], c["can_answer"]) for c in comments] == [("carla", COMMENT, [["rita", ANSWER]], False)]
    assert reader.is_hidden("#comment-form") and reader.locator(".finish-review").count() == 0
    export = reader.get_attribute(".export-review", "href")
    assert export == f"/api/matches/{match_id}/reviews/{review.pk}/export/?share={token}"
    exported = reader.evaluate("async (url) => { const r = await fetch(url); return [r.status, await r.text()]; }", export)
    assert exported[0] == 200 and COMMENT in exported[1]
    assert reader.errors == [] and page.errors == [] and owner_page.errors == []

    # The match page links the export too.
    owner_page.goto(f"/matches/{match_id}/")
    assert owner_page.get_attribute("#reviews .export-review", "href") == f"/api/matches/{match_id}/reviews/{review.pk}/export/"

    # Uploaded as a new match, the exported record brings the comment back as its review.
    new_id = upload(api_client(coach), exported[1])
    assert new_id != match_id
    coach_api = api_client(coach)
    reviews = coach_api.get(f"/api/matches/{new_id}/reviews/").json()["results"]
    assert [(r["source"], r["author_name"], r["comment_count"]) for r in reviews] == [("record", "carla", 1)]
    back = coach_api.get(f"/api/matches/{new_id}/reviews/{reviews[0]['id']}/").json()["comments"]
    assert [(c["hand"], c["ply"], c["tag"], c["text"], c["author_name"]) for c in back] == [(1, PLY, "missed-canasta", COMMENT, "carla")]
    # ... and its replay shows it beside the same move.
    open_replay(page, new_id, f"?ply={PLY}")
    assert [(c["author"], c["tag"], c["text"]) for c in shown_comments(page)] == [("carla", "missed-canasta", COMMENT)]


def test_the_owner_sees_a_record_s_notes_labelled_and_removes_a_review(new_page: Any, player: User) -> None:
    from dataclasses import replace

    from buraco.notation import Note, loads

    record = loads(RECORD)
    noted = replace(record.hands[0], notes=(Note(PLY, "Grandmaster Gil", "A note in the record"),))
    match_id = upload(api_client(player), dumps(replace(record, hands=(noted,))))
    page = new_page()
    log_in(page, player)
    open_replay(page, match_id, f"?ply={PLY}")
    assert page.text_content("#comment-list .comment .comment-author") == "Grandmaster Gil"
    assert page.text_content("#comment-list .comment .comment-source") == "from the record's notes"
    page.on("dialog", lambda dialog: dialog.accept())
    page.click(".review-row .remove-review")
    page.wait_for_function("() => !document.querySelector('.review-row')")
    assert not Review.objects.filter(match_id=match_id).exists()
    assert page.locator("#moves .comment-badge").count() == 0
    assert page.errors == []
