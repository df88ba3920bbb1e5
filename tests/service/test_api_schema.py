"""/api/schema/ is an OpenAPI 3 document describing every endpoint; /api/docs/ shows it."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import yaml
from django.contrib.staticfiles import finders
from rest_framework.test import APIClient

from .conftest import record_text
from .helpers import fast_passwords  # noqa: F401  (a fixture)

pytestmark = pytest.mark.usefixtures("fast_passwords")

HTTP_METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}

ENDPOINTS = {
    "/api/matches/": {"get", "post"},
    "/api/matches/{match_id}/": {"get", "delete"},
    "/api/matches/{match_id}/report/": {"get"},
    "/api/matches/{match_id}/brn/": {"get"},
    "/api/matches/{match_id}/share-link/": {"post", "delete"},
    "/api/matches/{match_id}/share-link/rotate/": {"post"},
    "/api/matches/{match_id}/shared-with/": {"post"},
    "/api/matches/{match_id}/shared-with/{username}/": {"delete"},
    "/api/matches/{match_id}/hands/{hand}/timeline/": {"get"},
    "/api/matches/{match_id}/hands/{hand}/states/{ply}/": {"get"},
    "/api/matches/{match_id}/hands/{hand}/try/": {"post"},
    "/api/batches/{batch_id}/": {"get"},
    "/api/status/": {"get"},
}


@pytest.fixture
def schema(db: Any) -> dict[str, Any]:
    response = APIClient().get("/api/schema/")
    assert response.status_code == 200
    assert "openapi" in response["Content-Type"]
    document = yaml.safe_load(response.content)
    assert isinstance(document, dict)
    return document


def resolve(document: dict[str, Any], ref: str) -> Any:
    assert ref.startswith("#/"), ref
    node: Any = document
    for part in ref[2:].split("/"):
        assert isinstance(node, dict) and part in node, f"dangling $ref {ref}"
        node = node[part]
    return node


def refs(node: Any) -> list[str]:
    found = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                found.append(value)
            else:
                found.extend(refs(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(refs(value))
    return found


def operation(schema: dict[str, Any], path: str, method: str) -> dict[str, Any]:
    op = schema["paths"][path][method]
    assert isinstance(op, dict)
    return op


def parameters(schema: dict[str, Any], path: str, method: str) -> dict[tuple[str, str], dict[str, Any]]:
    found = {}
    for parameter in [*schema["paths"][path].get("parameters", []), *operation(schema, path, method).get("parameters", [])]:
        if "$ref" in parameter:
            parameter = resolve(schema, parameter["$ref"])
        found[(parameter["name"], parameter["in"])] = parameter
    return found


def test_it_serves_an_openapi_3_document(schema: dict[str, Any]) -> None:
    assert re.fullmatch(r"3\.\d+\.\d+", str(schema["openapi"]))
    assert schema["info"]["title"]
    assert schema["info"]["version"]
    assert isinstance(schema["paths"], dict) and schema["paths"]


def test_it_serves_the_same_document_as_json(schema: dict[str, Any], db: Any) -> None:
    response = APIClient().get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    assert json.loads(response.content) == schema


def test_it_describes_every_endpoint_and_method(schema: dict[str, Any]) -> None:
    for path, methods in ENDPOINTS.items():
        assert path in schema["paths"], path
        assert methods <= set(schema["paths"][path]), (path, set(schema["paths"][path]))


def test_it_gives_every_operation_responses_and_a_unique_id(schema: dict[str, Any]) -> None:
    seen = set()
    for path, item in schema["paths"].items():
        for method, op in item.items():
            if method not in HTTP_METHODS:
                continue
            assert op.get("responses"), (path, method)
            for code in op["responses"]:
                assert re.fullmatch(r"[1-5]\d\d|[1-5]XX|default", str(code)), (path, method, code)
            assert op["operationId"] not in seen, op["operationId"]
            seen.add(op["operationId"])


def test_it_declares_every_path_parameter(schema: dict[str, Any]) -> None:
    for path, item in schema["paths"].items():
        names = set(re.findall(r"\{(\w+)\}", path))
        for method in set(item) & HTTP_METHODS:
            declared = {name for name, where in parameters(schema, path, method) if where == "path"}
            assert declared == names, (path, method, declared)
            for name in names:
                assert parameters(schema, path, method)[(name, "path")]["required"] is True


def test_it_resolves_every_reference(schema: dict[str, Any]) -> None:
    found = refs(schema["paths"])
    assert found  # the serializers are described as components
    for ref in set(found) | set(refs(schema.get("components", {}))):
        assert isinstance(resolve(schema, ref), dict)


def test_it_documents_the_list_filters(schema: dict[str, Any]) -> None:
    query = parameters(schema, "/api/matches/", "get")
    assert {"variant", "player", "status", "date_from", "date_to", "batch", "mine"} <= {n for n, w in query if w == "query"}
    assert "brasil" in query[("variant", "query")]["schema"]["enum"]
    assert "invalid" in query[("status", "query")]["schema"]["enum"]


def test_it_documents_the_list_as_the_paged_answer_it_gives(schema: dict[str, Any]) -> None:
    query = {name for name, where in parameters(schema, "/api/matches/", "get") if where == "query"}
    assert "page" in query
    body = operation(schema, "/api/matches/", "get")["responses"]["200"]["content"]["application/json"]["schema"]
    if "$ref" in body:
        body = resolve(schema, body["$ref"])
    assert body.get("type") == "object"
    assert {"count", "next", "previous", "results"} <= set(body["properties"])


def documented_fields(schema: dict[str, Any], path: str, method: str, code: str) -> set[str]:
    body = operation(schema, path, method)["responses"][code]["content"]["application/json"]["schema"]
    if "$ref" in body:
        body = resolve(schema, body["$ref"])
    return set(body.get("properties", {}))


def test_it_documents_every_field_of_a_match(schema: dict[str, Any], owner_api: APIClient, upload: Any) -> None:
    answer = upload(owner_api, ("a.brn", record_text(hands=1, seed=401))).json()
    detail = owner_api.get(f"/api/matches/{answer['id']}/").json()
    assert set(detail) <= documented_fields(schema, "/api/matches/{match_id}/", "get", "200")


def test_it_documents_every_field_of_the_upload_answer(schema: dict[str, Any], owner_api: APIClient, upload: Any) -> None:
    answer = upload(owner_api, ("a.brn", record_text(hands=1, seed=402)), ("b.brn", record_text(hands=1, seed=403))).json()
    assert set(answer) <= documented_fields(schema, "/api/matches/", "post", "202")


def test_it_documents_every_way_to_upload(schema: dict[str, Any]) -> None:
    upload = operation(schema, "/api/matches/", "post")
    content = upload["requestBody"]["content"]
    assert {"multipart/form-data", "application/toml", "application/json"} <= set(content)
    assert {"202", "400"} <= {str(code) for code in upload["responses"]}


def test_it_documents_the_share_parameter_on_every_read(schema: dict[str, Any]) -> None:
    for path in (
        "/api/matches/{match_id}/",
        "/api/matches/{match_id}/report/",
        "/api/matches/{match_id}/brn/",
        "/api/matches/{match_id}/hands/{hand}/timeline/",
        "/api/matches/{match_id}/hands/{hand}/states/{ply}/",
    ):
        assert ("share", "query") in parameters(schema, path, "get"), path


def test_it_documents_token_and_session_authentication(schema: dict[str, Any]) -> None:
    schemes = schema["components"]["securitySchemes"]
    kinds = {(s["type"], s.get("in"), s.get("name")) for s in schemes.values()}
    assert ("apiKey", "header", "Authorization") in kinds  # Token ...
    assert ("apiKey", "cookie", "sessionid") in kinds


def test_it_serves_the_interactive_docs_page(db: Any) -> None:
    response = APIClient().get("/api/docs/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "swagger-ui" in page
    assert "/api/schema/" in page


def test_it_serves_the_docs_page_without_a_cdn(db: Any) -> None:
    page = APIClient().get("/api/docs/").content.decode()
    scripts = re.findall(r'<script src="([^"]+)"', page)
    assert scripts
    for src in scripts:
        assert not src.startswith(("http://", "https://", "//")), src
        assert finders.find(src.removeprefix("/static/")), src


# --- the schema says what the service answers (issue 8) ------------------------------------

ERROR_REF = "#/components/schemas/Error"
# Every operation may answer these: a session cookie the service cannot read (400, before any
# view), credentials that are not valid (401; sign-up and the token read none).
NO_CREDENTIALS = {("/api/auth/signup/", "post"), ("/api/auth/token/", "post")}
THROTTLED = {("/api/auth/signup/", "post"), ("/api/auth/token/", "post"), ("/api/matches/", "post")}


def operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, op) for path, item in schema["paths"].items() for method, op in item.items()
        if method in HTTP_METHODS
    ]


def test_the_schema_generates_without_a_warning(tmp_path: Any, db: Any) -> None:
    from django.core.management import call_command

    # The operationId matches_retrieve was used twice (the list and one match): a warning, and a
    # numbered matches_retrieve_2 that changed with the order of the URLs.
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yml"))


def test_the_list_and_one_match_have_their_own_operation_ids(schema: dict[str, Any]) -> None:
    assert operation(schema, "/api/matches/", "get")["operationId"] == "matches_list"
    assert operation(schema, "/api/matches/{match_id}/", "get")["operationId"] == "matches_retrieve"


def test_every_error_is_documented_as_the_one_json_error(schema: dict[str, Any]) -> None:
    for path, method, op in operations(schema):
        codes = {str(code) for code in op["responses"]}
        expected = {"400"} if (path, method) in NO_CREDENTIALS else {"400", "401"}
        if "{" in path:
            expected.add("404")
        if (path, method) in THROTTLED:
            expected.add("429")
        assert expected <= codes, (path, method, codes)
        for code, answer in op["responses"].items():
            if str(code).startswith(("4", "5")):
                assert answer["description"], (path, method, code)
                assert answer["content"] == {"application/json": {"schema": {"$ref": ERROR_REF}}}, (path, method, code)


def test_it_documents_retry_after_on_every_429(schema: dict[str, Any]) -> None:
    for path, method in THROTTLED:
        header = operation(schema, path, method)["responses"]["429"]["headers"]["Retry-After"]
        assert header["schema"]["type"] == "integer" and header["required"] is True


def test_it_documents_a_page_out_of_range_as_a_400_and_past_the_last_as_a_404(
    schema: dict[str, Any], owner_api: APIClient
) -> None:
    assert parameters(schema, "/api/matches/", "get")[("page", "query")]["schema"]["minimum"] == 1
    for page in (0, -1, "x"):
        response = owner_api.get("/api/matches/", {"page": page})
        assert response.status_code == 400 and response.json()["extra"]["fields"]["page"], page
    assert owner_api.get("/api/matches/", {"page": 2}).status_code == 404
    assert {"400", "404"} <= set(operation(schema, "/api/matches/", "get")["responses"])
    assert owner_api.get("/api/matches/", {"page_size": 0}).status_code == 400
    assert owner_api.get("/api/matches/", {"ordering": "owner"}).status_code == 400


@pytest.mark.parametrize("component", ["SignupInput", "ShareWith"])
def test_it_documents_what_a_username_may_be(schema: dict[str, Any], component: str) -> None:
    username = schema["components"]["schemas"][component]["properties"]["username"]
    assert username["minLength"] == 1 and username["maxLength"] == 150
    assert re.fullmatch(username["pattern"], "ana.b+c@d-e_f") and not re.search(username["pattern"], "a b")


@pytest.mark.parametrize("username", ["", "a b", "x" * 151])
def test_a_username_the_schema_refuses_is_refused(anonymous_api: APIClient, username: str) -> None:
    response = anonymous_api.post("/api/auth/signup/", {"username": username, "password": "a-long-Pass-9876"},
                                  format="json")
    assert response.status_code == 400 and "username" in response.json()["extra"]["fields"]


def test_it_documents_the_minimum_length_of_a_password(schema: dict[str, Any]) -> None:
    password = schema["components"]["schemas"]["SignupInput"]["properties"]["password"]
    assert password["minLength"] == 8 and password["maxLength"] == 128  # Django's MinimumLengthValidator


def test_it_documents_what_a_comment_and_a_reply_may_be(schema: dict[str, Any]) -> None:
    components = schema["components"]["schemas"]
    for name in ("CommentInput", "ReplyInput"):
        assert components[name]["properties"]["text"]["minLength"] == 1
    patch = operation(schema, "/api/matches/{match_id}/reviews/{review_id}/", "patch")["requestBody"]["content"]
    assert patch["application/json"]["schema"]["required"] == ["finished"]  # not a "partial" PATCH


def test_it_documents_uploads_as_files(schema: dict[str, Any]) -> None:
    upload = schema["components"]["schemas"]["Upload"]["properties"]
    assert upload["files"]["items"] == {"type": "string", "format": "binary"}
    assert upload["file"]["format"] == "binary"


def test_the_token_answers_what_the_schema_says(schema: dict[str, Any], owner: Any) -> None:
    op = operation(schema, "/api/auth/token/", "post")
    answer = op["responses"]["200"]["content"]["application/json"]["schema"]
    assert set(resolve(schema, answer["$ref"])["properties"]) == {"token"}
    assert "security" not in op or op["security"] == [{}]
    # A stale token sent along is no reason to refuse a new one.
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token stale-0000")
    response = client.post("/api/auth/token/", {"username": "ana", "password": "pw-ana-123456"}, format="json")
    assert response.status_code == 200 and set(response.json()) == {"token"}


# --- errors under /api/ are JSON, whatever DEBUG and the Accept header ----------------------------


def _json_error(response: Any, status: int) -> None:
    assert response.status_code == status, response.content[:200]
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    assert {"message", "extra"} <= set(response.json())


@pytest.mark.parametrize("path", ["/api/matches/abc/", "/api/nothing/", "/api/", "/api/matches/1/hands/x/timeline/"])
def test_an_unrouted_api_path_is_a_json_404_with_debug_on(anonymous_api: APIClient, settings: Any, path: str) -> None:
    settings.DEBUG = True  # Django's own 404 is then an HTML page
    _json_error(anonymous_api.get(path), 404)
    _json_error(anonymous_api.post(path), 404)  # not Django's HTML page for a missing CSRF token


def test_a_path_without_its_slash_is_redirected_or_named(anonymous_api: APIClient, settings: Any) -> None:
    settings.DEBUG = True  # Django's APPEND_SLASH answers a POST with an HTML 500 then
    response = anonymous_api.get("/api/matches", {"mine": "true"})
    assert response.status_code == 301 and response["Location"] == "/api/matches/?mine=true"
    response = anonymous_api.post("/api/matches")
    _json_error(response, 404)
    assert "/api/matches/" in response.json()["message"]


def test_an_error_is_json_to_a_browser_too(owner_api: APIClient) -> None:
    _json_error(owner_api.get("/api/matches/999999/", HTTP_ACCEPT="text/html"), 404)
    _json_error(owner_api.get("/api/schema/", {"format": "xml"}), 404)  # not YAML


def test_a_record_is_served_to_a_client_asking_for_toml(owner_api: APIClient, upload: Any) -> None:
    match_id = upload(owner_api, ("a.brn", record_text(hands=1, seed=404))).json()["id"]
    for path in (f"/api/matches/{match_id}/brn/", f"/api/matches/{match_id}/source/"):
        response = owner_api.get(path, HTTP_ACCEPT="application/toml")
        assert response.status_code == 200, (path, response.content[:200])  # was a 406
        assert response["Content-Type"].startswith("application/toml")
    _json_error(owner_api.get("/api/matches/999999/brn/", HTTP_ACCEPT="application/toml"), 404)


def test_a_player_name_holding_nul_is_a_404(owner_api: APIClient) -> None:
    _json_error(owner_api.get("/api/players/a%00b/summary/"), 404)  # PostgreSQL: was a 500
