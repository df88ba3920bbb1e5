"""The searches compiled: the same source, built by mypyc into C extensions, used only
when they were built from the sources as they are now.

The analysis spends its time in four modules (:data:`MODULES`: the turn judges, the
canasta and going-out searches, the plays they propose), pure Python that the whole
engine shares. mypyc, mypy's compiler, turns that typed source into C extensions that
run the same lines with a quarter to a third less CPU (docs/benchmarks.md, thirty-eighth
round).
``python -m buraco.analysis.compiled`` (``make`` runs it) builds them into
``__compiled__/`` beside the sources, with a stamp: the digest of the sources they were
built from. The package puts that directory ahead of its own on its ``__path__`` (see
:func:`search_path`) only where the stamp matches the sources read now, so an edited
source is never shadowed by an older build: without a build, or with an older one, the
analysis runs interpreted, with the same answers.

``BURACO_COMPILED`` chooses: ``auto`` (the default) uses a fresh build where there is
one; ``off`` never does (the tests that replace a search's method to test a bound run
so, as do the doctests: a compiled function shows doctest no docstring); ``required``
refuses to import the analysis without one (CI, so that the tests run what the service
runs).

Nothing here but :func:`build` needs more than the standard library; it needs mypy
(mypyc) and setuptools, and a C compiler.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import sysconfig
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import TypeVar

# The modules compiled, by name in this package: the searches and what they call most.
MODULES: tuple[str, ...] = ("search", "exits", "turns", "proposals")
DIRECTORY = "__compiled__"  # beside the sources, as __pycache__ is
STAMP = "sources.sha256"
MODES = ("auto", "off", "required")
# The extension that holds the compiled modules' code; each module's own is a shim into it.
GROUP = "searches"

_PACKAGE_DIR = Path(__file__).resolve().parent

C = TypeVar("C", bound=type)


def python_class(cls: C) -> C:
    """Keep ``cls`` a Python class where its module is compiled. mypyc compiles a class
    under any decorator it does not know as a Python class (whose instances keep a
    ``__dict__``, may be made by ``object.__new__`` and weakly referred to), with its
    methods still compiled; any other class becomes a C type with fixed fields. A search's
    :class:`~buraco.analysis.search.Start` needs that: it keeps what it works out in its
    ``__dict__``, and its walks hold it weakly.

    >>> @python_class
    ... class Table:
    ...     pass
    >>> Table.__name__
    'Table'
    """
    return cls


def mode(environ: Mapping[str, str] = os.environ) -> str:
    """``BURACO_COMPILED`` as ``environ`` sets it, checked (``auto`` when unset).

    >>> mode({}), mode({"BURACO_COMPILED": "off"})
    ('auto', 'off')
    >>> mode({"BURACO_COMPILED": "fast"})
    Traceback (most recent call last):
    ...
    ValueError: BURACO_COMPILED='fast': expected one of auto, off, required
    """
    chosen = environ.get("BURACO_COMPILED", "auto").strip().lower() or "auto"
    if chosen not in MODES:
        raise ValueError(f"BURACO_COMPILED={chosen!r}: expected one of {', '.join(MODES)}")
    return chosen


def sources_digest(package_dir: Path = _PACKAGE_DIR) -> str:
    """The sha256 of the engine's sources and of the Python that builds them (hex): what a
    build's stamp must hold to be used. Every module of the engine counts, not only the
    compiled ones: mypyc builds in what it knows of the modules they import (a constant
    declared ``Final`` is copied in, say)."""
    engine = package_dir.parent
    digest = hashlib.sha256(sys.implementation.cache_tag.encode() + b"\0")
    for source in sorted(engine.rglob("*.py")):
        if DIRECTORY in source.parts:
            continue
        digest.update(source.relative_to(engine).as_posix().encode() + b"\0" + source.read_bytes() + b"\0")
    return digest.hexdigest()


def fresh(package_dir: Path = _PACKAGE_DIR) -> bool:
    """Is there a build of the compiled modules made from their sources as they are now?"""
    try:
        stamp = (package_dir / DIRECTORY / STAMP).read_text().strip()
    except OSError:
        return False
    return stamp == sources_digest(package_dir)


def search_path(package_dir: Path = _PACKAGE_DIR) -> list[str]:
    """What the package puts ahead of its ``__path__``: the build's directory when
    :func:`mode` allows it and the build is :func:`fresh`, else nothing."""
    chosen = mode()
    if chosen == "off":
        return []
    if fresh(package_dir):
        return [str(package_dir / DIRECTORY)]
    if chosen == "required":
        raise ImportError(
            f"BURACO_COMPILED=required, but {package_dir / DIRECTORY} holds no build of the analysis's "
            f"sources as they are now: build it with `make compiled` (BURACO_COMPILED=off python -m buraco.analysis.compiled)"
        )
    return []


def loaded(modules: Sequence[ModuleType]) -> bool:
    """Are these modules the compiled ones (extensions, not sources)?

    >>> loaded([hashlib])
    False
    """
    suffix = _ext_suffix()
    return all(str(getattr(module, "__file__", "") or "").endswith(suffix) for module in modules)


def build(package_dir: Path = _PACKAGE_DIR) -> Path:
    """Compile :data:`MODULES` with mypyc into ``__compiled__/`` and stamp the build; the
    directory. The old build goes first, and the stamp is written last: a build cut off
    halfway is never taken for a fresh one."""
    from mypyc.build import mypycify
    from setuptools import Distribution  # type: ignore[import-untyped]

    target = package_dir / DIRECTORY
    digest = sources_digest(package_dir)
    shutil.rmtree(target, ignore_errors=True)
    root = package_dir.parent.parent  # the directory holding the buraco package
    with tempfile.TemporaryDirectory(prefix="buraco-mypyc-") as work:
        sources = [str((package_dir / f"{name}.py").relative_to(root)) for name in MODULES]
        previous = Path.cwd()
        os.chdir(root)  # mypyc names the modules by their paths from here
        try:
            extensions = mypycify(sources, opt_level="3", target_dir=str(Path(work) / "c"),
                                  group_name=f"buraco.analysis.{GROUP}")
            distribution = Distribution({"name": "buraco-analysis-compiled", "ext_modules": extensions,
                                         "packages": [], "py_modules": []})
            command = distribution.get_command_obj("build_ext")
            command.build_lib = str(Path(work) / "lib")
            command.build_temp = str(Path(work) / "temp")
            distribution.run_command("build_ext")
        finally:
            os.chdir(previous)
        built = sorted((Path(work) / "lib" / "buraco" / "analysis").glob("*" + _ext_suffix()))
        if len(built) != len(MODULES) + 1:
            raise RuntimeError(f"mypyc built {[p.name for p in built]}, expected {len(MODULES)} modules and their group")
        staging = package_dir / f"{DIRECTORY}.partial"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir()
        for path in built:
            shutil.copy2(path, staging / path.name)
        (staging / STAMP).write_text(digest + "\n")
        staging.rename(target)
    return target


def _ext_suffix() -> str:
    return str(sysconfig.get_config_var("EXT_SUFFIX") or ".so")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m buraco.analysis.compiled [--if-stale]``: build, and say where; with
    ``--if-stale``, only where there is no fresh build. A build that fails says why and
    leaves the analysis interpreted (exit 1). (make runs it with ``BURACO_COMPILED=off``:
    the package it belongs to is imported first, and must not ask for the build it makes.)"""
    args = list(sys.argv[1:] if argv is None else argv)
    if "--if-stale" in args and fresh():
        (_PACKAGE_DIR / DIRECTORY / STAMP).touch()  # newer than the sources again, for make
        print(f"the compiled analysis in {_PACKAGE_DIR / DIRECTORY} is up to date")
        return 0
    try:
        target = build()
    except Exception as error:  # noqa: BLE001 - no compiler, no mypyc: the analysis runs interpreted
        print(f"could not compile the analysis ({type(error).__name__}: {error}); it runs interpreted", file=sys.stderr)
        return 1
    print(f"compiled the analysis into {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
