"""Build hook: compile verify()'s hot modules with mypyc when a wheel is built.

Everything else about the package is declared in ``pyproject.toml``. The modules in
``COMPILED`` are compiled to C extensions with mypyc when a wheel (or an
``build_ext --inplace`` copy) is built; the ``.py`` sources ship beside them. The
pure-Python modules are the fallback, with the same behaviour and the same bytes:

* an editable install (``pip install -e .``) is never compiled, so that an edit of a
  ``.py`` file takes effect;
* ``VERITY_PURE=1`` builds a pure wheel on purpose;
* when mypyc cannot run or the C compiler fails, the build warns and goes on pure.

``VERITY_REQUIRE_COMPILED=1`` turns that last fallback into a build error (CI uses it to
check that the wheel it tests is the compiled one).
"""

from __future__ import annotations

import os
import sys
import traceback

from setuptools import Distribution, setup
from setuptools.command.build_ext import build_ext

#: The modules verify() and check_answer() spend their time in, compiled with mypyc. The
#: public functions and classes live in modules that stay Python (mypyc drops docstrings
#: and checks argument types before the functions' own checks could answer).
COMPILED = [
    "verity/core/engine.py",
    "verity/core/gates.py",
    "verity/core/trusted.py",
    "verity/text/aliases.py",
    "verity/text/align.py",
    "verity/text/normalize.py",
    "verity/text/numbers.py",
    "verity/text/segment.py",
    "verity/text/suggest.py",
    "verity/text/tokens.py",
]


def _say(message: str) -> None:
    print(f"verity build: {message}", file=sys.stderr, flush=True)


class _CompilingDistribution(Distribution):
    """Has extension modules (so the wheel is tagged for this platform and build_ext
    runs), which :class:`_BuildExt` replaces with the mypyc ones or drops."""

    def has_ext_modules(self) -> bool:
        return os.environ.get("VERITY_PURE") != "1"


class _BuildExt(build_ext):
    def finalize_options(self) -> None:
        self._pure = self._pure_reason()
        if self._pure is None:
            try:
                from mypyc.build import mypycify

                self.distribution.ext_modules = mypycify(
                    COMPILED, opt_level="3", group_name="verity"
                )
            except Exception as exc:  # no mypyc, or its type check failed
                self._pure = self._failed(exc)
        super().finalize_options()

    def _pure_reason(self) -> str | None:
        if self.editable_mode:
            return "editable install"
        if os.environ.get("VERITY_PURE") == "1":
            return "VERITY_PURE=1"
        return None

    def run(self) -> None:
        if self._pure is not None:
            _say(f"{self._pure}: pure-Python modules (nothing compiled)")
            return
        try:
            super().run()
        except Exception as exc:  # no C compiler: the pure modules still work
            self._pure = self._failed(exc)
            self._drop_built()
            return
        _say(f"compiled {len(COMPILED)} modules with mypyc")

    def _failed(self, exc: Exception) -> str:
        if os.environ.get("VERITY_REQUIRE_COMPILED") == "1":
            raise exc
        traceback.print_exc()
        _say(f"mypyc compilation failed ({type(exc).__name__}: {exc}); building pure Python")
        return "compilation failed"

    def _drop_built(self) -> None:
        """Remove whatever part of the compiled set was built: all of it or none ships."""
        for ext in self.extensions:
            path = self.get_ext_fullpath(ext.name)
            if os.path.exists(path):
                os.remove(path)
        self.extensions = []
        self.distribution.ext_modules = []


setup(distclass=_CompilingDistribution, cmdclass={"build_ext": _BuildExt}, ext_modules=[])
