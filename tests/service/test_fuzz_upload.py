"""The upload-path fuzz run of bench/fuzz.py, small: POST /api/matches/ with mutated
records as files, several files, zips (of mutated members, and damaged), raw and
form-encoded bodies, then the tables and the answer judged.

What is asserted is only what the bench asserts: never a 5xx or an exception; a 202 stores
every new match with all its hands and verifies it (no job failed, the match reads back);
a 400 names each file with a line and column (or hand and ply, or the limit or zip
problem) and stores nothing. Each case is made from its own seed (``upload-<number>``), ten
cases a test (an account is made per test: its password hash costs more than a case). ``python bench/fuzz.py --cases 0 --upload-cases 10000`` is the big run.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from rest_framework.test import APIClient

from bench.fuzz import UploadCase, UploadChecker, build_corpus, client_post, make_upload_case

SEEDS = build_corpus(seeds_per_set=1)
CASES = 300
PER_TEST = 10


@pytest.mark.parametrize("first", range(0, CASES, PER_TEST))
def test_an_upload_is_stored_whole_or_refused_naming_its_place(
    first: int, owner_api: APIClient, upload: Any, django_capture_on_commit_callbacks: Any
) -> None:
    def post(case: UploadCase) -> Any:
        if case.body is None:
            return upload(owner_api, *case.files, **case.fields)
        with django_capture_on_commit_callbacks(execute=True):
            return client_post(owner_api, case)

    checker = UploadChecker(owner_api, post)
    for number in range(first, first + PER_TEST):
        case = make_upload_case(random.Random(f"upload-{number}"), SEEDS, number)
        verdict = checker.check(case)
        assert verdict.problem is None, f"case {number}: {case.how[:500]}\n{verdict.problem}\n{verdict.detail}"
