"""Getting an account from the API (the README's one-minute tour works as written), raw
uploads sent as curl sends them by default, the record as uploaded, and the schema in a
browser."""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

import pytest
import yaml
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from records.models import Match

from .conftest import ROOT, record_text
from .helpers import (
    as_json,
    fast_passwords,  # noqa: F401  (a fixture)
    upload_one,
)

pytestmark = pytest.mark.usefixtures("fast_passwords")


# --- sign up -----------------------------------------------------------------------------


def test_it_makes_an_account_and_answers_its_token(anonymous_api: APIClient) -> None:
    response = anonymous_api.post("/api/auth/signup/", {"username": "bia", "password": "a-long-Pass-9876"}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["username"] == "bia" and body["token"]
    assert User.objects.get(username="bia").check_password("a-long-Pass-9876")
    me = APIClient()
    me.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    assert me.get("/api/matches/?mine=true").status_code == 200


@pytest.mark.parametrize(("password", "said"), [
    ("short", "too short"),
    ("password123", "too common"),
    ("3141592653589", "entirely numeric"),
    ("bianca-bianca", "too similar"),
])
def test_it_checks_the_password_with_djangos_validators(anonymous_api: APIClient, password: str, said: str) -> None:
    response = anonymous_api.post("/api/auth/signup/", {"username": "bianca-bianca", "password": password}, format="json")
    assert response.status_code == 400
    assert said in response.json()["message"]
    assert response.json()["extra"]["fields"]["password"]
    assert not User.objects.filter(username="bianca-bianca").exists()


def test_it_refuses_a_username_taken_whatever_the_case(owner: User, anonymous_api: APIClient) -> None:
    response = anonymous_api.post("/api/auth/signup/", {"username": "ANA", "password": "a-long-Pass-9876"}, format="json")
    assert response.status_code == 400
    assert "taken" in response.json()["message"]


def test_it_refuses_a_signup_without_a_password(anonymous_api: APIClient) -> None:
    response = anonymous_api.post("/api/auth/signup/", {"username": "bia"}, format="json")
    assert response.status_code == 400 and "password" in response.json()["message"]


def readme_tour() -> list[list[str]]:
    """The curl commands of the README's "The API in one minute", as argument lists."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## The API in one minute", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    commands = []
    for line in section.splitlines():
        line = line.split("   #", 1)[0].strip()
        if "curl" in line:
            line = line[line.index("curl"):].rstrip(")").replace(" | jq -r .token", "")
            commands.append(shlex.split(line))
    return commands


def test_it_runs_the_readmes_one_minute_tour(anonymous_api: APIClient, upload: Any) -> None:
    commands = readme_tour()
    signup, token_request = commands[0], commands[1]
    assert signup[-1].endswith("/api/auth/signup/") and token_request[-1].endswith("/api/auth/token/")
    fields = json.loads(signup[signup.index("--json") + 1])  # curl --json: a JSON body, as the API reads
    assert set(fields) == {"username", "password"}

    made = anonymous_api.post("/api/auth/signup/", fields, format="json")
    assert made.status_code == 201, made.content
    token = anonymous_api.post("/api/auth/token/", fields).json()["token"]
    assert token == made.json()["token"]

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    upload_line = commands[2]
    example = next(arg for arg in upload_line if arg.startswith("files=@")).removeprefix("files=@")
    match_id = upload_one(upload, client, (ROOT / example).read_bytes(), example.rsplit("/", 1)[-1])
    for command in commands[3:]:
        url = command[-1]
        path = re.sub(r"^https?://[^/]+", "", url).replace("/11/", f"/{match_id}/")
        response = client.get(path)
        assert response.status_code == 200, (path, response.content)


# --- raw uploads with curl's default content type -----------------------------------------


def test_it_reads_a_form_encoded_body_as_the_record(owner_api: APIClient) -> None:
    text = record_text(hands=1, seed=601)
    response = owner_api.post("/api/matches/", text, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 202, response.content
    match = Match.objects.get(pk=response.json()["id"])
    assert bytes(match.source) == text.encode()


def test_it_reads_a_form_encoded_json_record_too(owner_api: APIClient) -> None:
    text = as_json(record_text(hands=1, seed=602))
    response = owner_api.post("/api/matches/", text, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 202, response.content


def test_it_says_which_content_type_to_send_when_a_form_encoded_body_is_no_record(owner_api: APIClient) -> None:
    flattened = record_text(hands=1, seed=603).replace("\n", "")  # what curl -d @file does to a file
    response = owner_api.post("/api/matches/", flattened, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400
    body = response.json()
    assert body["errors"] and "line" in body["errors"][0]
    assert "--data-binary" in body["extra"]["hint"] and "application/toml" in body["extra"]["hint"]
    assert not Match.objects.exists()


def test_it_gives_no_hint_for_a_record_sent_with_its_own_content_type(owner_api: APIClient) -> None:
    response = owner_api.post("/api/matches/", "not a record", content_type="application/toml")
    assert response.status_code == 400 and "hint" not in response.json()["extra"]


# --- the record as uploaded ------------------------------------------------------------


def test_it_gives_back_the_bytes_as_uploaded_with_the_original_name(owner_api: APIClient, upload: Any) -> None:
    text = record_text(hands=1, seed=604).replace('event = "self-play"', 'event = "Caf\u00e9 \\u0000 night"  ', 1)
    raw = text.encode() + b"\n# trailing comment, kept\r\n"
    match_id = upload_one(upload, owner_api, raw, "thursday club.brn")
    response = owner_api.get(f"/api/matches/{match_id}/source/")
    assert response.status_code == 200
    assert response.content == raw
    assert response["Content-Type"].startswith("application/toml")
    assert 'filename="thursday club.brn"' in response["Content-Disposition"]


def test_it_gives_back_a_json_upload_as_json(owner_api: APIClient, upload: Any) -> None:
    text = as_json(record_text(hands=1, seed=605))
    match_id = upload_one(upload, owner_api, text, "m.json")
    response = owner_api.get(f"/api/matches/{match_id}/source/")
    assert response.content == text.encode() and response["Content-Type"].startswith("application/json")


def test_it_names_a_zip_members_source_after_the_member(owner_api: APIClient, upload: Any) -> None:
    from .conftest import zip_of

    texts = {"club/a.brn": record_text(hands=1, seed=606), "club/b.brn": record_text(hands=1, seed=607)}
    answer = upload(owner_api, ("week.zip", zip_of(texts))).json()
    first = next(m for m in answer["matches"] if m["file"].endswith("a.brn"))
    response = owner_api.get(f"/api/matches/{first['id']}/source/")
    assert response.content == texts["club/a.brn"].encode()
    assert 'filename="a.brn"' in response["Content-Disposition"]


@pytest.mark.parametrize(("persona", "code"), [("owner", 200), ("coach", 200), ("stranger", 404), ("anonymous", 404)])
def test_it_gives_the_source_to_whoever_may_read_the_match(
    request: Any, owner_api: APIClient, upload: Any, persona: str, code: int
) -> None:
    match_id = upload_one(upload, owner_api, record_text(hands=1, seed=608))
    owner_api.post(f"/api/matches/{match_id}/shared-with/", {"username": request.getfixturevalue("coach").username})
    client = request.getfixturevalue(f"{persona}_api")
    assert client.get(f"/api/matches/{match_id}/source/").status_code == code
    if persona == "anonymous":
        token = owner_api.post(f"/api/matches/{match_id}/share-link/").json()["share_token"]
        assert client.get(f"/api/matches/{match_id}/source/", {"share": token}).status_code == 200


# --- the schema in a browser --------------------------------------------------------------

BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"


def test_it_shows_the_schema_to_a_browser_instead_of_downloading_it(db: Any) -> None:
    response = Client().get("/api/schema/", HTTP_ACCEPT=BROWSER_ACCEPT)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    assert "attachment" not in response.get("Content-Disposition", "")
    page = response.content.decode()
    assert "openapi:" in page and "/api/docs/" in page and "?format=json" in page


def test_it_serves_the_schema_as_json_a_browser_shows(db: Any) -> None:
    response = Client().get("/api/schema/", {"format": "json"}, HTTP_ACCEPT=BROWSER_ACCEPT)
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["openapi"].startswith("3.")


def test_it_still_serves_yaml_to_tools(db: Any) -> None:
    response = Client().get("/api/schema/")
    assert "openapi" in response["Content-Type"]
    assert yaml.safe_load(response.content)["openapi"].startswith("3.")


def test_it_documents_the_new_endpoints(db: Any) -> None:
    schema = yaml.safe_load(Client().get("/api/schema/").content)
    assert "post" in schema["paths"]["/api/auth/signup/"]
    assert "get" in schema["paths"]["/api/matches/{match_id}/source/"]
