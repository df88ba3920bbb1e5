"""A client generated from /api/schema/ works, as a third party would make it: the schema is
fetched from the running service, openapi-python-client generates a client from it (with
docs/openapi-python-client.yaml, the README's configuration) printing no warning, every module
of the client imports, and a whole flow runs through the generated functions alone against
the live server: sign-up, a token, a raw TOML upload, its verdict, findings, timeline, a try, a
review with a comment, sharing and unsharing, the review's export.
"""

from __future__ import annotations

import importlib
import io
import os
import pkgutil
import subprocess
import sys
import urllib.request
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from django.contrib.auth.models import User

from buraco.notation import dumps, loads
from buraco.selfplay import play_match

ROOT = Path(__file__).resolve().parents[2]
GENERATOR = Path(sys.executable).with_name("openapi-python-client")
PACKAGE = "buraco_records_client"

pytestmark = pytest.mark.django_db(transaction=True)




def _generate(live_url: str, where: Path) -> tuple[ModuleType, str]:
    schema = where / "schema.json"
    with urllib.request.urlopen(f"{live_url}/api/schema/?format=json", timeout=30) as response:
        schema.write_bytes(response.read())
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(
        [str(GENERATOR), "generate", "--path", str(schema), "--meta", "none", "--overwrite",
         "--output-path", str(where / PACKAGE), "--config", str(ROOT / "docs" / "openapi-python-client.yaml")],
        capture_output=True, text=True, env=env, timeout=300, cwd=where,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    sys.path.insert(0, str(where))
    return importlib.import_module(PACKAGE), output


def _every_module(package: ModuleType) -> list[str]:
    names = []
    for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
        importlib.import_module(info.name)  # a NameError (Unset) here was one of the probe's findings
        names.append(info.name)
    return names


def _ok(response: Any, *codes: int) -> Any:
    assert response.status_code in codes, (response.status_code, response.content[:500])
    return response.parsed


def test_a_generated_client_imports_and_runs_the_whole_flow(live_server: Any, tmp_path: Path) -> None:
    package, output = _generate(live_server.url, tmp_path)
    assert "warning" not in output.lower(), output
    assert len(_every_module(package)) > 60

    from buraco_records_client import AuthenticatedClient, Client  # type: ignore[import-not-found]
    from buraco_records_client.api.auth import auth_signup_create, auth_token_create  # type: ignore[import-not-found]
    from buraco_records_client.api.findings import findings_retrieve  # type: ignore[import-not-found]
    from buraco_records_client.api.matches import (  # type: ignore[import-not-found]
        matches_create,
        matches_findings_retrieve,
        matches_hands_timeline_retrieve,
        matches_hands_try_create,
        matches_retrieve,
        matches_reviews_comments_create,
        matches_reviews_create,
        matches_reviews_export_retrieve,
        matches_share_link_create,
        matches_shared_with_create,
        matches_shared_with_destroy,
    )
    from buraco_records_client.api.players import players_retrieve  # type: ignore[import-not-found]
    from buraco_records_client.models import (  # type: ignore[import-not-found]
        CommentInput,
        ShareWith,
        SignupInput,
        TokenInput,
        TryInput,
    )
    from buraco_records_client.types import File  # type: ignore[import-not-found]

    anonymous = Client(base_url=live_server.url, raise_on_unexpected_status=True)
    signed = _ok(auth_signup_create.sync_detailed(
        client=anonymous, body=SignupInput(username="gen", password="table-for-four-7")), 201)
    token = _ok(auth_token_create.sync_detailed(
        client=anonymous, body=TokenInput(username="gen", password="table-for-four-7")), 200).token
    assert token == signed.token
    wrong = auth_token_create.sync_detailed(client=anonymous, body=TokenInput(username="gen", password="nope"))
    assert wrong.status_code == 401 and wrong.parsed.message
    client = AuthenticatedClient(base_url=live_server.url, token=token, prefix="Token")

    text = dumps(play_match("cerrado", players=2, hands=1, seed=971, mistakes=1.0))
    accepted = _ok(matches_create.sync_detailed(
        client=client, body=File(payload=io.BytesIO(text.encode()), file_name="one.brn", mime_type="application/toml"),
        idempotency_key="flow-1"), 202)
    match_id = accepted.id
    match = _ok(matches_retrieve.sync_detailed(match_id, client=client), 200)
    assert match.status.value == "verified" and match.players == list(loads(text).players)
    assert match.hands[0].scores is not None and match.totals == match.hands[0].scores

    findings = _ok(matches_findings_retrieve.sync_detailed(match_id, client=client), 200)
    assert findings.analysis.status.value == "done" and any(f.kind == "scoring-mistake" for f in findings.results)
    from buraco_records_client.models import FindingsRetrieveKind, FindingsRetrieveOrdering

    explored = _ok(findings_retrieve.sync_detailed(client=client, kind=FindingsRetrieveKind("scoring-mistake"),
                                                   ordering=FindingsRetrieveOrdering("-points")), 200)
    assert explored.count == sum(f.kind == "scoring-mistake" for f in findings.results) > 0
    assert all(row.match == match_id and row.replay.startswith(f"/matches/{match_id}/") for row in explored.results)
    player = _ok(players_retrieve.sync_detailed(str(loads(text).players[0]), client=client), 200)
    assert player.matches == 1 and player.site.players == 2
    timeline = _ok(matches_hands_timeline_retrieve.sync_detailed(match_id, 1, client=client), 200)
    # Typed, from the engine's schema (buraco.schema): entries, their operations by kind, the error.
    assert len(timeline.states) == len(loads(text).hands[0].actions) + 1 and timeline.error is None
    assert timeline.states[0].action is None and timeline.states[0].ply == 0
    first = timeline.states[1]
    assert type(first.operation).__name__ == "OperationDrew" and first.operation.seat == 1 and first.action == "p1 draw"
    assert first.step == "play" and isinstance(first.hands.additional_properties["1"], list)
    tried = _ok(matches_hands_try_create.sync_detailed(match_id, 1, client=client, body=TryInput(ply=0, actions=["p1 draw"])), 200)
    assert tried.complete and len(tried.results) == 1  # sent once, answered once
    assert tried.results[0].entry.ply == 1 and type(tried.results[0].entry.operation).__name__ == "OperationDrew"
    refused = _ok(matches_hands_try_create.sync_detailed(match_id, 1, client=client, body=TryInput(ply=0, actions=["p2 draw"])), 200)
    assert not refused.complete and refused.results[0].error.kind == "illegal" and refused.results[0].error.message

    review = _ok(matches_reviews_create.sync_detailed(match_id, client=client), 201)
    comment = _ok(matches_reviews_comments_create.sync_detailed(
        match_id, review.id, client=client, body=CommentInput(hand=1, ply=2, text="keep the sevens")), 201)
    assert (comment.hand, comment.ply, comment.text) == (1, 2, "keep the sevens")
    again = _ok(matches_reviews_create.sync_detailed(match_id, client=client), 200)
    assert again.id == review.id

    User.objects.create_user("coach", password="pw-coach-123456")
    _ok(matches_shared_with_create.sync_detailed(match_id, client=client, body=ShareWith(username="COACH")), 204)
    assert list(User.objects.get(username="coach").shared_matches.values_list("pk", flat=True)) == [match_id]
    _ok(matches_shared_with_destroy.sync_detailed(match_id, "coach", client=client), 204)
    assert not User.objects.get(username="coach").shared_matches.exists()
    link = _ok(matches_share_link_create.sync_detailed(match_id, client=client), 201)
    assert _ok(matches_share_link_create.sync_detailed(match_id, client=client), 200).share_token == link.share_token

    exported = _ok(matches_reviews_export_retrieve.sync_detailed(match_id, review.id, client=client), 200)
    record = loads(exported.payload.read())
    assert [(n.ply, n.text) for n in record.hands[0].notes] == [(2, "keep the sevens")]
