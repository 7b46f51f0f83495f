#!/usr/bin/env python3
"""Checks the built wheel and sdist (scripts/ci.sh runs it after `python3 -m build`).

The wheel must carry the package with its ``py.typed`` marker (PEP 561: without it type checkers
ignore the annotations), the generated models and methods, and metadata naming the one runtime
dependency with Debian 12's floor; the sdist must carry what rebuilds the wheel and regenerates
it (the generator), the tests and the examples. Standard library only.

    python3 scripts/check_dist.py dist
"""

from __future__ import annotations

import email.parser
import sys
import tarfile
import zipfile
from pathlib import Path

WHEEL_FILES = [
    "lightbox/__init__.py",
    "lightbox/py.typed",
    "lightbox/_generated/models.py",
    "lightbox/_generated/resources.py",
    "lightbox/_webhooks.py",
    "lightbox/_uploads.py",
]
SDIST_FILES = [
    "pyproject.toml",
    "README.md",
    "src/lightbox/py.typed",
    "scripts/generate.py",
    "examples/quickstart.py",
    "examples/incremental_sync.py",
    "tests/conftest.py",
]


def main(dist: Path) -> int:
    problems: list[str] = []
    (wheel,) = dist.glob("lightbox_client-*.whl")
    (sdist,) = dist.glob("lightbox_client-*.tar.gz")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        problems += [f"{wheel.name} lacks {f}" for f in WHEEL_FILES if f not in names]
        (meta_name,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        meta = email.parser.Parser().parsestr(zf.read(meta_name).decode())
        requires = meta.get_all("Requires-Dist") or []
        if [r for r in requires if "extra ==" not in r] != ["httpx>=0.23"]:
            problems.append(f"{wheel.name} requires {requires}, expected only httpx>=0.23 (Debian 12's)")
        if meta["Requires-Python"] != ">=3.11":
            problems.append(f"{wheel.name} says Requires-Python {meta['Requires-Python']}")
        # The repository's LICENSE: Apache-2.0, as every package of it says.
        if meta["License"] != "Apache-2.0" or "License :: OSI Approved :: Apache Software License" not in (
            meta.get_all("Classifier") or []
        ):
            problems.append(f"{wheel.name} says License {meta['License']}, expected Apache-2.0")
        if meta["Name"] != "lightbox-client":
            problems.append(f"{wheel.name} is named {meta['Name']}")
        stray = sorted(n for n in names if "__pycache__" in n or "/tests/" in n)
        problems += [f"{wheel.name} should not ship {n}" for n in stray]
    with tarfile.open(sdist) as tf:
        members = {n.split("/", 1)[1] for n in tf.getnames() if "/" in n}
        problems += [f"{sdist.name} lacks {f}" for f in SDIST_FILES if f not in members]
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    print(f"{wheel.name}: {len(names)} files, py.typed, Requires-Dist httpx>=0.23; {sdist.name}: {len(members)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "dist")))
