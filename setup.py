"""The compiled build: the engine, the seat view and the built-in heuristic strategies compiled with mypyc.

Everything else of the package is in pyproject.toml. The same source runs as plain Python: where mypyc or a C
compiler is missing (or ``PALAIS_PURE_BUILD=1``), the install goes on without the extensions and says so once.
Each compiled module's source hash is recorded in ``palais_sim/_build.json``; at import, ``palais_sim._build``
refuses to run a compiled module whose source changed since (it runs the pure Python instead, with one warning).
"""

from __future__ import annotations

import hashlib
import json
import os
import runpy
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).parent
BUILD_RECORD = "palais_sim/_build.json"
# The list lives in palais_sim/_build.py, which decides at import whether the compiled modules may run.
_BUILD = runpy.run_path(str(ROOT / "palais_sim" / "_build.py"))
COMPILED: tuple[str, ...] = _BUILD["COMPILED_SOURCES"]
GROUP: str = _BUILD["GROUP"]
C_DIR = "build"  # where mypyc writes its C files and headers (its default, named here for the include path below)


def say(message: str) -> None:
    print(f"palais-sim: {message}", file=sys.stderr, flush=True)


def source_hashes() -> dict[str, str]:
    return {path: hashlib.sha256((ROOT / path).read_bytes()).hexdigest() for path in COMPILED}


def compiled_extensions() -> list:
    if os.environ.get("PALAIS_PURE_BUILD"):
        say("PALAIS_PURE_BUILD is set: installing the pure Python engine")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError as exc:
        say(f"mypyc is not available ({exc}): installing the pure Python engine")
        return []
    try:
        # Modules outside the compiled list are type-checked through their imports only; the analytics' libraries
        # (polars, reached through palais_sim.games) are not in the isolated build environment: read them as Any.
        options = ["--ignore-missing-imports"]
        # One C file per module (multi_file) instead of one of 12 MB: a clean build took 76 s against 98 s on one
        # loaded core, and the engine is as fast.
        extensions = mypycify(
            [*options, *COMPILED], opt_level="3", debug_level="0", group_name=GROUP, multi_file=True, target_dir=C_DIR
        )
    except BaseException as exc:  # noqa: BLE001 - mypyc exits on type errors; the pure engine still works
        say(f"mypyc could not compile the engine ({exc!r}): installing the pure Python engine")
        return []
    # mypyc writes the group's headers beside the group's module (build/palais_sim/ for "palais_sim._compiled") but
    # its per-module C files, in build/, include them by bare name: give gcc that folder too.
    group_headers = str(Path(C_DIR, *GROUP.split(".")[:-1]))
    for extension in extensions:
        extension.include_dirs.append(group_headers)
        # a * b + c stays two roundings, as in the Python source: where the target has fused multiply-add (aarch64,
        # or an -march that enables it) gcc and clang would otherwise fuse them and the compiled games would differ
        extension.extra_compile_args = [*(extension.extra_compile_args or []), "-ffp-contract=off"]
        extension.optional = True  # no C compiler: build_ext skips them and the pure Python runs
    return extensions


class BuildRecordingExt(build_ext):
    """build_ext that records which modules were compiled from which source, next to the package."""

    def build_extension(self, ext) -> None:  # noqa: ANN001 - setuptools' Extension
        # An older build's library must not pass for this one: an extension that fails to compile now (they are
        # optional) leaves no file behind, and the record below says the engine is not compiled.
        Path(self.get_ext_fullpath(ext.name)).unlink(missing_ok=True)
        super().build_extension(ext)

    def run(self) -> None:
        super().run()
        built = all(Path(self.get_ext_fullpath(ext.name)).exists() for ext in self.extensions)
        record = {"compiled": built and bool(self.extensions), "sources": source_hashes() if built else {}}
        targets = {Path(self.build_lib) / BUILD_RECORD}
        if self.inplace:
            targets.add(ROOT / BUILD_RECORD)
        for target in targets:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        say("compiled the engine with mypyc" if record["compiled"] else "no C compiler: the pure Python engine")


setup(ext_modules=compiled_extensions(), cmdclass={"build_ext": BuildRecordingExt})
