"""A record's [[hands.notes]] and a review: the notes of an uploaded record show as a review
of its annotator; a review exports into the record as notes (GET .../reviews/{id}/export/),
and the exported record uploaded again brings the same comments back."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from buraco.notation import Note, dumps, loads
from records import services as records_services
from records.models import Match
from reviews.models import Comment, Review

from .conftest import record_text
from .helpers import (
    fast_passwords,  # noqa: F401  (a fixture)
    upload_one,
)

pytestmark = pytest.mark.usefixtures("fast_passwords")

TEXT = record_text("cerrado", hands=2, seed=81)
NOTES = {  # hand number: its notes
    1: (Note(0, "Marta", "A deal rich in jokers"), Note(4, "Marta", "Take the discard pile here", "missed-canasta")),
    2: (Note(2, "Luis", "Well kept", "good"),),
}


def with_notes(text: str, notes: dict[int, tuple[Note, ...]], annotator: str | None = "Marta") -> str:
    record = loads(text)
    hands = tuple(replace(hand, notes=notes.get(number, ())) for number, hand in enumerate(record.hands, start=1))
    metadata = tuple((k, v) for k, v in record.metadata if k != "annotator")
    if annotator is not None:
        metadata = (*metadata, ("annotator", annotator))
    return dumps(replace(record, hands=hands, metadata=metadata))


def comments_of(client: APIClient, match_id: int, review_id: int) -> list[tuple[int, int, str, str, str]]:
    """(hand, ply, author name, text, tag) of each of a review's comments, as the API lists them."""
    listed = client.get(f"/api/matches/{match_id}/reviews/{review_id}/comments/").json()["results"]
    return [(c["hand"], c["ply"], c["author_name"], c["text"], c["tag"]) for c in listed]


def record_review(client: APIClient, match_id: int) -> dict[str, Any]:
    [review] = [r for r in client.get(f"/api/matches/{match_id}/reviews/").json()["results"] if r["source"] == "record"]
    return dict(review)


EXPECTED = [
    (1, 0, "Marta", "A deal rich in jokers", ""),
    (1, 4, "Marta", "Take the discard pile here", "missed-canasta"),
    (2, 2, "Luis", "Well kept", "good"),
]


# --- notes at upload -------------------------------------------------------------------------


def test_it_shows_a_records_notes_as_a_review_of_its_annotator(owner_api: APIClient, upload: Any, owner: User) -> None:
    match_id = upload_one(upload, owner_api, with_notes(TEXT, NOTES))
    review = record_review(owner_api, match_id)
    assert (review["author"], review["author_name"], review["finished"], review["comment_count"]) == ("ana", "Marta", False, 3)
    assert comments_of(owner_api, match_id, review["id"]) == EXPECTED
    assert Comment.objects.filter(review_id=review["id"], author=owner).count() == 3


def test_it_names_a_review_after_its_first_note_when_the_record_has_no_annotator(owner_api: APIClient, upload: Any) -> None:
    match_id = upload_one(upload, owner_api, with_notes(TEXT, {2: NOTES[2]}, annotator=None))
    assert record_review(owner_api, match_id)["author_name"] == "Luis"


def test_it_keeps_a_notes_own_tag_and_ply_as_the_record_writes_them(owner_api: APIClient, upload: Any) -> None:
    odd = {1: (Note(999, "", "past the end", "lucky"),)}
    match_id = upload_one(upload, owner_api, with_notes(TEXT, odd))
    review = record_review(owner_api, match_id)
    assert comments_of(owner_api, match_id, review["id"]) == [(1, 999, "Marta", "past the end", "lucky")]


def test_it_makes_no_review_of_a_record_without_notes(owner_api: APIClient, upload: Any) -> None:
    match_id = upload_one(upload, owner_api, TEXT)
    assert owner_api.get(f"/api/matches/{match_id}/reviews/").json()["results"] == []


def test_it_reads_the_notes_once_when_the_same_record_is_uploaded_again(owner_api: APIClient, upload: Any) -> None:
    text = with_notes(TEXT, NOTES)
    first = upload_one(upload, owner_api, text)
    second = upload(owner_api, ("again.brn", text))
    assert second.json()["duplicate"] is True and second.json()["id"] == first
    assert Review.objects.filter(match_id=first).count() == 1


def test_it_reads_the_notes_of_each_record_of_a_batch(owner_api: APIClient, upload: Any) -> None:
    texts = [with_notes(TEXT, NOTES), with_notes(record_text("cerrado", hands=1, seed=82), {1: NOTES[2]})]
    response = upload(owner_api, ("a.brn", texts[0]), ("b.brn", texts[1]))
    assert response.status_code == 202, response.content
    ids = [m["id"] for m in response.json()["matches"]]
    assert [Review.objects.get(match_id=i).comments.count() for i in ids] == [3, 1]


def test_it_shows_the_record_review_to_a_coach_and_a_link_holder_only_as_the_match(
    owner_api: APIClient, coach_api: APIClient, stranger_api: APIClient, upload: Any, coach: User
) -> None:
    match_id = upload_one(upload, owner_api, with_notes(TEXT, NOTES))
    match = Match.objects.get(pk=match_id)
    records_services.match_share_with(match=match, user=coach)
    token, _ = records_services.share_link_create(match=match)
    assert record_review(coach_api, match_id)["author_name"] == "Marta"
    assert APIClient().get(f"/api/matches/{match_id}/reviews/?share={token}").json()["results"][0]["comment_count"] == 3
    assert stranger_api.get(f"/api/matches/{match_id}/reviews/").status_code == 404


# --- export and re-import --------------------------------------------------------------------


@pytest.fixture
def coached(owner_api: APIClient, coach_api: APIClient, upload: Any, coach: User) -> tuple[int, int]:
    """A match of the owner with the record's notes, shared with the coach, and the coach's review."""
    match_id = upload_one(upload, owner_api, with_notes(TEXT, NOTES))
    records_services.match_share_with(match=Match.objects.get(pk=match_id), user=coach)
    review_id = coach_api.post(f"/api/matches/{match_id}/reviews/").json()["id"]
    base = f"/api/matches/{match_id}/reviews/{review_id}/comments/"
    for body in [
        {"hand": 2, "ply": 1, "text": "Discard the \"safe\" 7\nnot the K", "tag": "mistake"},
        {"hand": 1, "ply": 0, "text": "Plan for the clean canasta"},
        {"hand": 1, "ply": 3, "text": "Why wait?", "tag": "question"},
    ]:
        assert coach_api.post(base, body, format="json").status_code == 201
    comment = Comment.objects.filter(review_id=review_id).first()
    assert comment is not None
    owner_api.post(f"{base}{comment.pk}/replies/", {"text": "replies stay here"}, format="json")
    return match_id, review_id


COACHED = [
    (1, 0, "coach", "Plan for the clean canasta", ""),
    (1, 3, "coach", "Why wait?", "question"),
    (2, 1, "coach", "Discard the \"safe\" 7\nnot the K", "mistake"),
]


def test_it_exports_a_review_as_the_canonical_record_with_its_comments_as_notes(
    coach_api: APIClient, coached: tuple[int, int]
) -> None:
    match_id, review_id = coached
    response = coach_api.get(f"/api/matches/{match_id}/reviews/{review_id}/export/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/toml")
    assert "attachment" in response["Content-Disposition"]
    exported = loads(response.content)
    assert dict(exported.metadata)["annotator"] == "coach"
    assert [[(n.ply, n.author, n.text, n.tag) for n in hand.notes] for hand in exported.hands] == [
        [(0, "coach", "Plan for the clean canasta", None), (3, "coach", "Why wait?", "question")],
        [(1, "coach", "Discard the \"safe\" 7\nnot the K", "mistake")],
    ]
    # Apart from its notes and annotator, the record is the match's canonical BRN.
    canonical = loads(coach_api.get(f"/api/matches/{match_id}/brn/").content)
    assert [replace(h, notes=()) for h in exported.hands] == [replace(h, notes=()) for h in canonical.hands]
    assert exported.players == canonical.players and exported.variant == canonical.variant
    assert response.content.decode() == dumps(exported)  # canonical text


def test_it_brings_the_comments_back_when_the_export_is_uploaded_again(
    owner_api: APIClient, coach_api: APIClient, upload: Any, coached: tuple[int, int]
) -> None:
    match_id, review_id = coached
    text = coach_api.get(f"/api/matches/{match_id}/reviews/{review_id}/export/").content
    reviews = Review.objects.filter(match_id=match_id).count()
    # While the coach's review holds those comments, uploading its export again changes nothing.
    response = upload(owner_api, ("reviewed.brn", text))
    assert (response.json()["id"], response.json()["duplicate"], response.json()["file"]) == (match_id, True, "reviewed.brn")
    assert "review" not in response.json() and Review.objects.filter(match_id=match_id).count() == reviews
    # Once that review is gone, the export brings its comments back to the match it came from.
    assert owner_api.delete(f"/api/matches/{match_id}/reviews/{review_id}/").status_code == 204
    again = upload(owner_api, ("reviewed.brn", text)).json()
    assert again["id"] == match_id and again["duplicate"] is True  # not a second copy of the match
    review = dict(owner_api.get(f"/api/matches/{match_id}/reviews/{again['review']}/").json())
    assert review["author_name"] == "coach" and review["author"] == "ana" and review["source"] == "record"
    assert comments_of(owner_api, match_id, review["id"]) == COACHED
    assert Match.objects.filter(owner__username="ana").count() == 1


def test_it_brings_the_comments_back_for_another_user_uploading_the_export(
    coach_api: APIClient, stranger_api: APIClient, upload: Any, coached: tuple[int, int]
) -> None:
    match_id, review_id = coached
    text = coach_api.get(f"/api/matches/{match_id}/reviews/{review_id}/export/").content
    theirs = upload_one(upload, stranger_api, text)
    review = record_review(stranger_api, theirs)
    assert review["author"] == "stranger" and review["author_name"] == "coach"
    assert comments_of(stranger_api, theirs, review["id"]) == COACHED


def test_it_round_trips_the_records_own_notes(owner_api: APIClient, coach_api: APIClient, upload: Any,
                                              coached: tuple[int, int]) -> None:
    match_id, _ = coached
    review = record_review(owner_api, match_id)
    text = owner_api.get(f"/api/matches/{match_id}/reviews/{review['id']}/export/").content
    assert text.decode() == dumps(loads(text))
    again = upload_one(upload, coach_api, text)
    back = record_review(coach_api, again)
    assert back["author_name"] == "Marta"
    assert comments_of(coach_api, again, back["id"]) == EXPECTED


def test_it_exports_only_the_reviews_comments_not_the_records_notes(coach_api: APIClient, coached: tuple[int, int]) -> None:
    match_id, review_id = coached
    exported = loads(coach_api.get(f"/api/matches/{match_id}/reviews/{review_id}/export/").content)
    authors = {n.author for hand in exported.hands for n in hand.notes}
    assert authors == {"coach"}


def test_it_lets_a_link_holder_export_but_not_a_stranger(stranger_api: APIClient, coached: tuple[int, int]) -> None:
    match_id, review_id = coached
    token, _ = records_services.share_link_create(match=Match.objects.get(pk=match_id))
    path = f"/api/matches/{match_id}/reviews/{review_id}/export/"
    assert stranger_api.get(path).status_code == 404
    assert APIClient().get(f"{path}?share={token}").status_code == 200
