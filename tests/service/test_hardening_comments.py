"""The second outside probe on comments: one legal upload (200 hands x 500 notes) stored
100,000 comments and every view of a replay page then sent all of them. Now the page embeds
the shown hand's comments only, the review and comment lists are paged, a match holds at most
BURACO_MAX_COMMENTS_PER_MATCH comments, writes are rate-limited; the owner may remove any
review on their match; a comment from a record's notes is labelled as such."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import override_settings
from rest_framework.test import APIClient

from buraco.notation import Note
from records import services as records_services
from records.models import Match
from reviews.models import Comment, Review

from .helpers import fast_passwords, logged_in, upload_one  # noqa: F401  (a fixture)
from .test_reviews_notes import TEXT, with_notes

pytestmark = pytest.mark.usefixtures("fast_passwords")

NOTES = {
    1: (Note(0, "Marta", "hand one, the deal"), Note(3, "Marta", "hand one, ply 3", "mistake")),
    2: (Note(1, "Luis", "hand two"), Note(2, "Luis", "hand two again"), Note(4, "Luis", "and again")),
}


def page_reviews(client: Any, match_id: int, hand: int) -> dict[str, Any]:
    """The #review-data the replay page of ``hand`` embeds."""
    page = client.get(f"/matches/{match_id}/hands/{hand}/replay/")
    assert page.status_code == 200
    found = re.search(rb'<script id="review-data" type="application/json">(.*?)</script>', page.content, re.S)
    assert found is not None
    return dict(json.loads(found.group(1)))


def test_the_replay_page_embeds_the_comments_of_its_own_hand_only(owner: User, owner_api: APIClient, upload: Any) -> None:
    match_id = upload_one(upload, owner_api, with_notes(TEXT, NOTES))
    client = logged_in(owner)
    for hand, expected in ((1, 2), (2, 3)):
        [review] = page_reviews(client, match_id, hand)["reviews"]
        assert {c["hand"] for c in review["comments"]} == {hand}
        assert len(review["comments"]) == expected
        assert review["comment_count"] == 5  # the review's, over the whole match


def test_the_review_and_comment_lists_are_paged_and_comments_filter_by_hand(owner_api: APIClient, upload: Any) -> None:
    match_id = upload_one(upload, owner_api, with_notes(TEXT, NOTES))
    review_id = Review.objects.get(match_id=match_id).pk
    base = f"/api/matches/{match_id}/reviews/"
    listed = owner_api.get(base, {"page_size": 1}).json()
    assert (listed["count"], len(listed["results"]), listed["next"]) == (1, 1, None)
    page = owner_api.get(f"{base}{review_id}/comments/", {"page_size": 2}).json()
    assert (page["count"], len(page["results"])) == (5, 2) and page["next"]
    rest = owner_api.get(page["next"]).json()
    assert len(rest["results"]) == 2 and rest["previous"]
    hand_two = owner_api.get(f"{base}{review_id}/comments/", {"hand": 2}).json()
    assert [c["text"] for c in hand_two["results"]] == ["hand two", "hand two again", "and again"]
    assert owner_api.get(f"{base}{review_id}/comments/", {"hand": 0}).status_code == 400


@override_settings(BURACO_MAX_COMMENTS_PER_MATCH=4)
def test_a_record_with_more_notes_than_a_match_holds_is_refused_at_the_note_past_the_cap(
    owner_api: APIClient, upload: Any
) -> None:
    text = with_notes(TEXT, NOTES)
    response = upload(owner_api, ("notes.brn", text))
    assert response.status_code == 400, response.content
    [error] = response.json()["errors"]
    assert error["file"] == "notes.brn" and "at most 4 notes" in error["message"]
    assert text.splitlines()[error["line"] - 1].strip().startswith(("[[hands.notes]]", "ply", "{"))
    assert not Match.objects.exists() and not Comment.objects.exists()


def test_a_match_takes_no_comment_past_the_cap(
    owner_api: APIClient, coach_api: APIClient, coach: User, upload: Any, settings: Any
) -> None:
    match_id = upload_one(upload, owner_api, with_notes(TEXT, NOTES))
    records_services.match_share_with(match=Match.objects.get(pk=match_id), user=coach)
    settings.BURACO_MAX_COMMENTS_PER_MATCH = 6
    review_id = coach_api.post(f"/api/matches/{match_id}/reviews/").json()["id"]
    url = f"/api/matches/{match_id}/reviews/{review_id}/comments/"
    assert coach_api.post(url, {"hand": 1, "ply": 1, "text": "the sixth"}, format="json").status_code == 201
    refused = coach_api.post(url, {"hand": 1, "ply": 2, "text": "the seventh"}, format="json")
    assert refused.status_code == 409 and "6 comments" in refused.json()["message"]
    assert Comment.objects.filter(review__match_id=match_id).count() == 6


@override_settings(BURACO_THROTTLE_RATES={"review": "3/min"})
def test_review_and_comment_writes_are_rate_limited(owner_api: APIClient, upload: Any) -> None:
    match_id = upload_one(upload, owner_api, TEXT)
    review_id = owner_api.post(f"/api/matches/{match_id}/reviews/").json()["id"]
    url = f"/api/matches/{match_id}/reviews/{review_id}/comments/"
    assert [owner_api.post(url, {"hand": 1, "ply": n, "text": f"c{n}"}, format="json").status_code
            for n in range(3)] == [201, 201, 429]
    assert owner_api.get(url).status_code == 200  # reading is not limited


def test_the_owner_removes_a_coach_s_review_after_the_sharing_ended(
    owner_api: APIClient, coach_api: APIClient, stranger_api: APIClient, coach: User, upload: Any
) -> None:
    match_id = upload_one(upload, owner_api, TEXT)
    match = Match.objects.get(pk=match_id)
    records_services.match_share_with(match=match, user=coach)
    review_id = coach_api.post(f"/api/matches/{match_id}/reviews/").json()["id"]
    coach_api.post(f"/api/matches/{match_id}/reviews/{review_id}/comments/", {"hand": 1, "ply": 1, "text": "x"},
                   format="json")
    records_services.match_unshare_with(match=match, user=coach)
    url = f"/api/matches/{match_id}/reviews/{review_id}/"
    assert coach_api.delete(url).status_code == 404  # no longer reads the match
    assert stranger_api.delete(url).status_code == 404
    assert owner_api.delete(url).status_code == 204
    assert not Review.objects.filter(pk=review_id).exists() and not Comment.objects.exists()


def test_a_coach_removes_their_own_review_but_not_the_owner_s(
    owner_api: APIClient, coach_api: APIClient, coach: User, upload: Any
) -> None:
    match_id = upload_one(upload, owner_api, with_notes(TEXT, NOTES))
    records_services.match_share_with(match=Match.objects.get(pk=match_id), user=coach)
    record_review = Review.objects.get(match_id=match_id).pk
    own = coach_api.post(f"/api/matches/{match_id}/reviews/").json()["id"]
    assert coach_api.delete(f"/api/matches/{match_id}/reviews/{record_review}/").status_code == 403
    assert coach_api.delete(f"/api/matches/{match_id}/reviews/{own}/").status_code == 204
    assert owner_api.delete(f"/api/matches/{match_id}/reviews/{record_review}/").status_code == 204


def test_a_record_s_notes_are_labelled_as_the_record_s_in_the_api_and_the_page(
    owner: User, owner_api: APIClient, upload: Any
) -> None:
    match_id = upload_one(upload, owner_api, with_notes(TEXT, NOTES))
    review_id = Review.objects.get(match_id=match_id).pk
    listed = owner_api.get(f"/api/matches/{match_id}/reviews/{review_id}/comments/").json()["results"]
    assert {(c["author_name"], c["author"], c["source"]) for c in listed} == {("Marta", "ana", "record"),
                                                                              ("Luis", "ana", "record")}
    [review] = page_reviews(logged_in(owner), match_id, 1)["reviews"]
    assert {c["source"] for c in review["comments"]} == {"record"}
