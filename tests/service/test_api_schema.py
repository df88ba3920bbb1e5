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
    "/api/matches/{match_id}/shared-with/": {"post", "delete"},
    "/api/matches/{match_id}/hands/{number}/timeline/": {"get"},
    "/api/matches/{match_id}/hands/{number}/states/{ply}/": {"get"},
    "/api/matches/{match_id}/hands/{number}/try/": {"post"},
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
        "/api/matches/{match_id}/hands/{number}/timeline/",
        "/api/matches/{match_id}/hands/{number}/states/{ply}/",
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
