"""End to end under CI: a match uploaded through the API is verified, then analysed, by a real
worker on PostgreSQL; its findings are what `python -m buraco analyze --json` prints."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from .conftest import ROOT, record_text, requires_broker, requires_postgres
from .helpers import named

pytestmark = [pytest.mark.worker, pytest.mark.postgres, requires_postgres, requires_broker]


def cli_findings(path: Path) -> list[dict[str, Any]]:
    """`python -m buraco analyze --json FILE`: one JSON object per finding per line."""
    result = subprocess.run(
        [sys.executable, "-m", "buraco", "analyze", "--json", str(path)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def wait_for_analysis(client: APIClient, match_id: int, seconds: float = 240) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    detail: dict[str, Any] = {}
    while time.monotonic() < deadline:
        detail = client.get(f"/api/matches/{match_id}/").json()
        if detail["analysis"]["status"] in ("done", "failed"):
            return detail
        time.sleep(0.3)
    raise AssertionError(f"match {match_id} was not analysed in {seconds} s: {detail}")


def test_a_worker_verifies_then_analyses_an_upload(worker: Any, owner_api: APIClient, tmp_path: Path) -> None:
    text = record_text("burraco", players=2, hands=2, seed=62, mistakes=1.0)
    path = tmp_path / "match.brn"
    path.write_text(text)
    response = owner_api.post("/api/matches/", {"file": named(text, "match.brn")}, format="multipart")
    # Answered before the job ends (a fast worker may have claimed it meanwhile).
    assert response.status_code == 202 and response.json()["status"] in ("pending", "verifying")
    match_id = response.json()["id"]

    detail = wait_for_analysis(owner_api, match_id)
    assert detail["status"] == "verified"
    assert detail["analysis"]["status"] == "done"

    expected = cli_findings(path)
    assert expected, "the CLI finds the planted scoring mistakes"
    keys = ["hand", "ply", "seat", "side", "kind", "points", "message", "witness", "cause"]
    body = owner_api.get(f"/api/matches/{match_id}/findings/?page_size=500").json()
    assert [{k: f[k] for k in keys} for f in body["results"]] == [{k: f[k] for k in keys} for f in expected]
    assert all(f["file"] == str(path) for f in expected)

    status = owner_api.get("/api/status/").json()
    assert status["queues"]["analysis"]["waiting"] == 0
    assert status["jobs"]["analyze"] == {"done": 1}
