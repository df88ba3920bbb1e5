"""One unpack budget for the whole request, checked from the zips' headers
(``ZipInfo.file_size``) before any member is unpacked: several zips share it."""

from __future__ import annotations

import io
import zipfile
from typing import Any

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from records import services
from records.models import Match

from .conftest import record_text, zip_of


def _padded_zip(name: str, size: int) -> bytes:
    """A zip whose one member unpacks to ``size`` bytes (compressing to almost nothing)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{name}.brn", b" " * size)
    return buffer.getvalue()


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000)  # the budget: 4 x 1000 bytes unpacked in all
def test_several_zips_share_one_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[str] = []
    original = zipfile.ZipFile.read

    def spy(self: zipfile.ZipFile, name: Any, pwd: Any = None) -> bytes:
        read.append(str(getattr(name, "filename", name)))
        return original(self, name, pwd)

    monkeypatch.setattr(zipfile.ZipFile, "read", spy)
    files = [services.UploadedFile(f"z{i}.zip", _padded_zip(f"m{i}", 900)) for i in range(5)]  # 4,500 bytes
    with pytest.raises(services.UploadError) as raised:
        services.expand_upload(files)
    assert "unpacks to more" in raised.value.errors[0]["message"]
    assert read == [], "nothing is unpacked before the headers are checked"

    # Within the budget: all are read.
    assert len(services.expand_upload(files[:4])) == 4


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000)
def test_plain_files_count_against_the_same_budget() -> None:
    files = [services.UploadedFile("z.zip", _padded_zip("m", 900)) for _ in range(3)]
    files.append(services.UploadedFile("plain.brn", b" " * 999))
    files.append(services.UploadedFile("plain2.brn", b" " * 999))
    with pytest.raises(services.UploadError):
        services.expand_upload(files)


@override_settings(BURACO_MAX_UPLOAD_RECORDS=3)
def test_the_record_limit_is_checked_from_the_headers_too() -> None:
    zipped = zip_of({f"m{i}.brn": "x" for i in range(4)})
    with pytest.raises(services.UploadError) as raised:
        services.expand_upload([services.UploadedFile("many.zip", zipped)])
    assert "at most 3 records" in raised.value.errors[0]["message"]


def test_the_api_refuses_zips_over_the_budget_and_stores_nothing(owner_api: APIClient, upload: Any) -> None:
    with override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=4000):
        response = upload(owner_api, *[(f"z{i}.zip", _padded_zip(f"m{i}", 3900)) for i in range(5)])
    assert response.status_code == 400
    assert "unpacks to more" in response.json()["errors"][0]["message"]
    assert not Match.objects.exists()


def test_zips_within_the_budget_still_upload(owner_api: APIClient, upload: Any) -> None:
    zips = [(f"z{i}.zip", zip_of({f"m{i}.brn": record_text(hands=1, seed=600 + i)})) for i in range(3)]
    response = upload(owner_api, *zips)
    assert response.status_code == 202, response.content[:300]
    assert response.json()["total"] == 3
