"""/api/matches/{id}/reviews/...: coaching reviews of a match, their comments on plies and the
threads under them, for the owner and a coach the match is shared with; read by whoever may
read the match (a share link too), and nothing at all to anyone else."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from records import services as records_services
from records.models import Match
from reviews import services
from reviews.models import MAX_TEXT, TAGS, Comment, Review

from .conftest import _client_for, record_text
from .helpers import (
    fast_passwords,  # noqa: F401  (a fixture)
    upload_one,
)

pytestmark = pytest.mark.usefixtures("fast_passwords")

TEXT = record_text("cerrado", hands=2, seed=71)
PERSONAS = ["owner", "coach", "link holder", "stranger", "anonymous"]


@pytest.fixture
def match(owner_api: APIClient, upload: Any, coach: User) -> Match:
    match = Match.objects.get(pk=upload_one(upload, owner_api, TEXT))
    records_services.match_share_with(match=match, user=coach)
    records_services.share_link_create(match=match)
    match.refresh_from_db()
    return match


@pytest.fixture
def review(match: Match, coach: User) -> Review:
    return services.review_open(match=match, author=coach)[0]


@pytest.fixture
def comment(review: Review, coach: User) -> Comment:
    return services.comment_create(review=review, author=coach, hand=1, ply=3, text="Why not meld here?", tag="mistake")


def client_of(request: Any, persona: str) -> APIClient:
    if persona in ("link holder", "anonymous"):
        return APIClient()
    return _client_for(request.getfixturevalue(persona))


def url(match: Match, persona: str, path: str = "") -> str:
    """A reviews URL of the match, with the share link for its holder."""
    share = f"?share={match.share_token}" if persona == "link holder" else ""
    return f"/api/matches/{match.pk}/reviews/{path}{share}"


def plies_of(match: Match, hand: int) -> int:
    return len(match.hands.get(number=hand).actions)


# --- the permission matrix --------------------------------------------------------------

READS = {"owner": 200, "coach": 200, "link holder": 200, "stranger": 404, "anonymous": 404}


@pytest.mark.parametrize("persona", PERSONAS)
@pytest.mark.parametrize("path", ["", "{review}/", "{review}/comments/", "{review}/export/"])
def test_it_lets_whoever_may_read_the_match_read_its_reviews(
    request: Any, match: Match, comment: Comment, persona: str, path: str
) -> None:
    response = client_of(request, persona).get(url(match, persona, path.format(review=comment.review_id)))
    assert response.status_code == READS[persona], response.content
    if response.status_code == 404:
        assert set(response.json()) == {"message", "extra"}


@pytest.mark.parametrize(
    "persona,expected", [("owner", 201), ("coach", 201), ("link holder", 403), ("stranger", 404), ("anonymous", 404)]
)
def test_it_lets_the_owner_and_the_coach_start_a_review(request: Any, match: Match, persona: str, expected: int) -> None:
    response = client_of(request, persona).post(url(match, persona))
    assert response.status_code == expected, response.content
    if expected == 201:
        body = response.json()
        assert body["author"] == body["author_name"] == request.getfixturevalue(persona).username
        assert body["source"] == "api" and body["finished"] is False and body["comments"] == []
    else:
        assert set(response.json()) == {"message", "extra"}
        assert not Review.objects.filter(match=match).exists()


@pytest.mark.parametrize(
    "persona,expected", [("owner", 403), ("coach", 200), ("link holder", 403), ("stranger", 404), ("anonymous", 404)]
)
def test_it_lets_only_the_reviews_author_finish_it(
    request: Any, match: Match, review: Review, persona: str, expected: int
) -> None:
    response = client_of(request, persona).patch(url(match, persona, f"{review.pk}/"), {"finished": True}, format="json")
    assert response.status_code == expected, response.content
    review.refresh_from_db()
    assert review.finished is (expected == 200)


@pytest.mark.parametrize(
    "persona,expected", [("owner", 403), ("coach", 201), ("link holder", 403), ("stranger", 404), ("anonymous", 404)]
)
def test_it_lets_only_the_reviews_author_comment_in_it(
    request: Any, match: Match, review: Review, persona: str, expected: int
) -> None:
    response = client_of(request, persona).post(
        url(match, persona, f"{review.pk}/comments/"), {"hand": 1, "ply": 0, "text": "The deal"}, format="json"
    )
    assert response.status_code == expected, response.content
    assert review.comments.count() == (1 if expected == 201 else 0)


@pytest.mark.parametrize(
    "persona,expected", [("owner", 201), ("coach", 201), ("link holder", 403), ("stranger", 404), ("anonymous", 404)]
)
def test_it_lets_the_owner_and_the_comments_coach_reply(
    request: Any, match: Match, comment: Comment, persona: str, expected: int
) -> None:
    response = client_of(request, persona).post(
        url(match, persona, f"{comment.review_id}/comments/{comment.pk}/replies/"), {"text": "Good point"}, format="json"
    )
    assert response.status_code == expected, response.content
    assert comment.replies.count() == (1 if expected == 201 else 0)


def test_it_never_lets_a_stranger_holding_the_link_write(stranger_api: APIClient, match: Match, comment: Comment) -> None:
    share = f"?share={match.share_token}"
    base = f"/api/matches/{match.pk}/reviews/"
    assert stranger_api.get(f"{base}{share}").status_code == 200
    writes = [
        stranger_api.post(f"{base}{share}"),
        stranger_api.patch(f"{base}{comment.review_id}/{share}", {"finished": True}, format="json"),
        stranger_api.post(f"{base}{comment.review_id}/comments/{share}", {"hand": 1, "ply": 0, "text": "x"}, format="json"),
        stranger_api.post(f"{base}{comment.review_id}/comments/{comment.pk}/replies/{share}", {"text": "x"}, format="json"),
    ]
    assert [r.status_code for r in writes] == [403, 403, 403, 403]
    assert all(set(r.json()) == {"message", "extra"} for r in writes)


def test_it_does_not_tell_a_stranger_that_a_review_exists(stranger_api: APIClient, match: Match, comment: Comment) -> None:
    base = f"/api/matches/{match.pk}/reviews/"
    existing = stranger_api.get(f"{base}{comment.review_id}/")
    missing = stranger_api.get(f"{base}{comment.review_id + 1000}/")
    assert existing.status_code == missing.status_code == 404
    assert existing.json() == missing.json()
    other = stranger_api.get(f"/api/matches/{match.pk + 1000}/reviews/")
    assert other.status_code == 404


def test_it_lets_anyone_read_the_reviews_of_a_public_match_but_not_write(
    stranger_api: APIClient, anonymous_api: APIClient, match: Match, comment: Comment
) -> None:
    Match.objects.filter(pk=match.pk).update(visibility="public")
    base = f"/api/matches/{match.pk}/reviews/"
    assert stranger_api.get(base).json()["results"][0]["comment_count"] == 1
    assert anonymous_api.get(f"{base}{comment.review_id}/comments/").status_code == 200
    assert stranger_api.post(base).status_code == 403
    assert anonymous_api.post(base).status_code == 403


def test_it_answers_404_for_a_review_of_another_match(
    owner_api: APIClient, upload: Any, match: Match, comment: Comment
) -> None:
    other = upload_one(upload, owner_api, record_text("cerrado", hands=1, seed=72))
    assert owner_api.get(f"/api/matches/{other}/reviews/{comment.review_id}/").status_code == 404
    response = owner_api.post(f"/api/matches/{match.pk}/reviews/{comment.review_id}/comments/{comment.pk + 1000}/replies/",
                              {"text": "x"}, format="json")
    assert response.status_code == 404


def test_it_stops_a_coach_whose_sharing_ended(coach_api: APIClient, match: Match, review: Review, coach: User) -> None:
    records_services.match_unshare_with(match=match, user=coach)
    response = coach_api.post(f"/api/matches/{match.pk}/reviews/{review.pk}/comments/",
                              {"hand": 1, "ply": 0, "text": "x"}, format="json")
    assert response.status_code == 404


# --- threads -----------------------------------------------------------------------------


def test_it_keeps_the_owner_and_the_coach_answering_each_other_under_a_comment(
    owner_api: APIClient, coach_api: APIClient, match: Match, comment: Comment
) -> None:
    base = f"/api/matches/{match.pk}/reviews/{comment.review_id}/comments/"
    assert owner_api.post(f"{base}{comment.pk}/replies/", {"text": "I feared the discard"}, format="json").status_code == 201
    assert coach_api.post(f"{base}{comment.pk}/replies/", {"text": "It was safe: the 7 is dead"}, format="json").status_code == 201
    [listed] = owner_api.get(base).json()["results"]
    assert (listed["hand"], listed["ply"], listed["tag"], listed["author"]) == (1, 3, "mistake", "coach")
    assert [(r["author"], r["text"]) for r in listed["replies"]] == [
        ("ana", "I feared the discard"), ("coach", "It was safe: the 7 is dead"),
    ]
    detail = coach_api.get(f"/api/matches/{match.pk}/reviews/{comment.review_id}/").json()
    assert detail["comments"] == [listed] and detail["comment_count"] == 1


def test_it_keeps_another_coach_out_of_a_thread(match: Match, comment: Comment) -> None:
    other = User.objects.create_user("coach2", password="pw-coach2-123456")
    records_services.match_share_with(match=match, user=other)
    response = _client_for(other).post(
        f"/api/matches/{match.pk}/reviews/{comment.review_id}/comments/{comment.pk}/replies/", {"text": "x"}, format="json"
    )
    assert response.status_code == 403
    assert "reply" in response.json()["message"]


def test_it_lists_comments_in_hand_and_ply_order(coach_api: APIClient, match: Match, review: Review) -> None:
    base = f"/api/matches/{match.pk}/reviews/{review.pk}/comments/"
    for hand, ply in [(2, 1), (1, 5), (1, 2)]:
        assert coach_api.post(base, {"hand": hand, "ply": ply, "text": f"{hand}/{ply}"}, format="json").status_code == 201
    assert [(c["hand"], c["ply"]) for c in coach_api.get(base).json()["results"]] == [(1, 2), (1, 5), (2, 1)]


# --- finished -------------------------------------------------------------------------------


def test_it_takes_no_comments_on_a_finished_review_until_its_author_reopens_it(
    owner_api: APIClient, coach_api: APIClient, match: Match, comment: Comment
) -> None:
    base = f"/api/matches/{match.pk}/reviews/{comment.review_id}/"
    finished = coach_api.patch(base, {"finished": True}, format="json")
    assert finished.status_code == 200 and finished.json()["finished"] is True
    refused = coach_api.post(f"{base}comments/", {"hand": 1, "ply": 1, "text": "one more"}, format="json")
    assert refused.status_code == 409
    assert "finished" in refused.json()["message"] and set(refused.json()) == {"message", "extra"}
    # The thread stays open: the owner may still answer.
    assert owner_api.post(f"{base}comments/{comment.pk}/replies/", {"text": "thanks"}, format="json").status_code == 201
    assert coach_api.patch(base, {"finished": False}, format="json").json()["finished"] is False
    assert coach_api.post(f"{base}comments/", {"hand": 1, "ply": 1, "text": "one more"}, format="json").status_code == 201


def test_it_shows_whether_a_review_is_finished_in_the_list(coach_api: APIClient, match: Match, review: Review) -> None:
    coach_api.patch(f"/api/matches/{match.pk}/reviews/{review.pk}/", {"finished": True}, format="json")
    assert [r["finished"] for r in coach_api.get(f"/api/matches/{match.pk}/reviews/").json()["results"]] == [True]


def test_it_names_the_field_of_a_bad_patch(coach_api: APIClient, match: Match, review: Review) -> None:
    response = coach_api.patch(f"/api/matches/{match.pk}/reviews/{review.pk}/", {"finished": "maybe"}, format="json")
    assert response.status_code == 400
    assert "finished" in response.json()["extra"]["fields"]
    assert response.json()["message"].startswith("the request is not valid: finished")


# --- bounds ---------------------------------------------------------------------------------


def bad_comments(match: Match) -> list[tuple[dict[str, Any], str]]:
    last = plies_of(match, 2)
    return [
        ({"hand": 1, "ply": 0, "text": "x" * (MAX_TEXT + 1)}, "text"),
        ({"hand": 1, "ply": 0, "text": ""}, "text"),
        ({"hand": 1, "ply": 0}, "text"),
        ({"hand": 1, "ply": 0, "text": "x", "tag": "brilliant"}, "tag"),
        ({"hand": 0, "ply": 0, "text": "x"}, "hand"),
        ({"hand": 3, "ply": 0, "text": "x"}, "hand"),
        ({"hand": "one", "ply": 0, "text": "x"}, "hand"),
        ({"hand": 1, "ply": -1, "text": "x"}, "ply"),
        ({"hand": 2, "ply": last + 1, "text": "x"}, "ply"),
        ({"ply": 0, "text": "x"}, "hand"),
    ]


def test_it_refuses_a_comment_out_of_bounds_naming_the_field(coach_api: APIClient, match: Match, review: Review) -> None:
    base = f"/api/matches/{match.pk}/reviews/{review.pk}/comments/"
    for body, field in bad_comments(match):
        response = coach_api.post(base, body, format="json")
        assert response.status_code == 400, (body, response.content)
        assert list(response.json()["extra"]["fields"]) == [field], body
        assert response.json()["message"].startswith(f"the request is not valid: {field}: "), body
    assert not review.comments.exists()


def test_it_takes_a_comment_at_the_edges(coach_api: APIClient, match: Match, review: Review) -> None:
    base = f"/api/matches/{match.pk}/reviews/{review.pk}/comments/"
    edges = [
        {"hand": 1, "ply": 0, "text": "x" * MAX_TEXT},
        {"hand": 2, "ply": plies_of(match, 2), "text": "the last ply", "tag": ""},
        *({"hand": 1, "ply": 1, "text": tag, "tag": tag} for tag in TAGS),
    ]
    for body in edges:
        assert coach_api.post(base, body, format="json").status_code == 201, body
    assert review.comments.count() == len(edges)


def test_it_refuses_a_reply_too_long_or_empty(owner_api: APIClient, match: Match, comment: Comment) -> None:
    base = f"/api/matches/{match.pk}/reviews/{comment.review_id}/comments/{comment.pk}/replies/"
    for text in ["x" * (MAX_TEXT + 1), ""]:
        response = owner_api.post(base, {"text": text}, format="json")
        assert response.status_code == 400
        assert list(response.json()["extra"]["fields"]) == ["text"]
    assert owner_api.post(base, {"text": "x" * MAX_TEXT}, format="json").status_code == 201


# --- the schema -------------------------------------------------------------------------------


def test_it_describes_every_reviews_endpoint_in_the_schema(db: Any) -> None:
    paths = APIClient().get("/api/schema/", {"format": "json"}).json()["paths"]
    review = "/api/matches/{match_id}/reviews/{review_id}/"
    expected = {
        "/api/matches/{match_id}/reviews/": {"get", "post"},
        review: {"get", "patch"},
        f"{review}comments/": {"get", "post"},
        f"{review}comments/{{comment_id}}/replies/": {"post"},
        f"{review}export/": {"get"},
    }
    for path, methods in expected.items():
        assert methods <= set(paths[path]), path
        for method in methods:
            assert "404" in paths[path][method]["responses"], (path, method)
