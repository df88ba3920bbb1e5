"""What a caller is told is only what they may read: /api/status/ counts, the share link on
the owner's page; an upload of nothing new leaves no batch waiting for ever."""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth.models import User
from rest_framework.test import APIClient

from records.models import Batch

from .conftest import record_text


def test_status_counts_only_what_the_caller_may_read(
    owner_api: APIClient, stranger_api: APIClient, anonymous_api: APIClient, upload: Any
) -> None:
    upload(owner_api, ("private.brn", record_text(hands=1, seed=501)))
    upload(owner_api, ("public.brn", record_text(hands=1, seed=502)), visibility="public")

    owner = owner_api.get("/api/status/").json()
    assert sum(owner["counts"].values()) == 2
    assert sum(owner["jobs"]["verify"].values()) == 2
    for client in (anonymous_api, stranger_api):
        body = client.get("/api/status/").json()
        assert sum(body["counts"].values()) == 1, body["counts"]
        assert sum(body["jobs"]["verify"].values()) == 1, body["jobs"]
        assert "queues" in body


def test_status_counts_a_match_shared_with_several_users_once(
    owner_api: APIClient, owner: User, coach: User, stranger: User, upload: Any
) -> None:
    match_id = upload(owner_api, ("a.brn", record_text(hands=1, seed=503)), visibility="public").json()["id"]
    for user in (coach, stranger):
        owner_api.post(f"/api/matches/{match_id}/shared-with/", {"username": user.username}, format="json")
    assert sum(owner_api.get("/api/status/").json()["counts"].values()) == 1


def test_an_upload_of_duplicates_only_leaves_no_pending_batch(owner_api: APIClient, upload: Any) -> None:
    files = [("a.brn", record_text(hands=1, seed=511)), ("b.brn", record_text(hands=1, seed=512))]
    first = upload(owner_api, *files).json()
    assert first["status"] == "pending" and first["total"] == 2

    again = upload(owner_api, *files)
    assert again.status_code == 202
    body = again.json()
    assert body["total"] == 0 and body["duplicates"] == 2
    assert body["status"] != "pending"
    assert all(m["duplicate"] for m in body["matches"])
    if body.get("batch") is not None:
        progress = owner_api.get(f"/api/batches/{body['batch']}/").json()
        assert progress["finished"] is True and progress["pending"] == 0
    assert Batch.objects.filter(total=0, matches__isnull=True).count() <= 1


def test_the_share_link_is_built_from_the_match_url_alone(owner: User, owner_api: APIClient, upload: Any) -> None:
    match_id = upload(owner_api, ("a.brn", record_text(hands=1, seed=521))).json()["id"]
    token = owner_api.post(f"/api/matches/{match_id}/share-link/").json()["share_token"]
    client = APIClient()
    client.force_login(owner)
    expected = f"http://testserver/matches/{match_id}/?share={token}"
    for query in ("", "?min_points=10", f"?share={token}", f"?min_points=10&share={token}"):
        page = client.get(f"/matches/{match_id}/{query}").content.decode()
        link = re.search(r'<a href="([^"]*)" id="share-link">([^<]*)</a>', page)
        assert link is not None, query
        assert link.group(1) == expected, (query, link.group(1))
        assert link.group(2) == expected, (query, link.group(2))
