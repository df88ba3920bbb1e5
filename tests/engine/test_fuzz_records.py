"""The reader fuzz run of bench/fuzz.py, small: mutated real records (and random input)
through ``loads``, then ``verify`` and the way back on what loads.

What is asserted is only what the bench asserts: never a crash, always a clear error with
its position (line and column inside the text, or hand and ply), and what loads is written
back and read again the same. The mutations are the bench's, driven by hypothesis
(derandomized: the same examples every run). ``python bench/fuzz.py --cases 100000`` is the
big run.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.fuzz import (
    MAX_INPUT,
    TEXT_MUTATORS,
    Mutator,
    Seed,
    Verdict,
    build_corpus,
    check_reader,
    flip_bytes,
    random_input,
)

SEEDS = build_corpus(seeds_per_set=1)
MUTATORS = [mutator for mutator, _ in TEXT_MUTATORS]
FUZZ = settings(max_examples=500, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def assert_clear(verdict: Verdict) -> None:
    assert verdict.problem is None, f"{verdict.problem}\n{verdict.detail}"


@FUZZ
@given(
    seed=st.sampled_from(SEEDS),
    mutators=st.lists(st.sampled_from(MUTATORS), min_size=1, max_size=3),
    rng=st.randoms(use_true_random=False),
    form=st.sampled_from(("bytes", "text", "damaged bytes")),
    format=st.sampled_from((None, None, None, "toml", "json")),
)
def test_a_mutated_record_is_read_or_refused_at_a_place(
    seed: Seed, mutators: list[Mutator], rng: random.Random, form: str, format: str | None
) -> None:
    text = seed.text
    for mutator in mutators:
        mutated = mutator(text, rng, SEEDS)
        text = mutated if len(mutated) <= MAX_INPUT else text  # as the bench: repeats of repeats are undone
    data: str | bytes = text
    if form == "damaged bytes":
        data = flip_bytes(text.encode("utf-8", "surrogatepass"), rng)
    elif form == "bytes" and not any("\ud800" <= c <= "\udfff" for c in text):
        data = text.encode("utf-8")
    assert_clear(check_reader(data, format))


@settings(FUZZ, max_examples=150)
@given(rng=st.randoms(use_true_random=False))
def test_random_input_is_refused_at_a_place(rng: random.Random) -> None:
    assert_clear(check_reader(random_input(rng)))


@settings(FUZZ, max_examples=len(SEEDS))
@given(seed=st.sampled_from(SEEDS))
def test_every_record_of_the_corpus_reads_and_verifies(seed: Seed) -> None:
    verdict = check_reader(seed.text.encode("utf-8"))
    assert_clear(verdict)
    assert verdict.outcome in ("legal", "legal, scores differ"), verdict.outcome
