#!/usr/bin/env bash
# Everything CI checks for the Python library (npm run test:python at the repository's root):
# the generator's --check (the package matches the OpenAPI document, every operation has a
# method), mypy --strict on the package and its examples, the pytest suite against a real server,
# a wheel and an sdist, and the wheel installed in a fresh virtual environment running the
# examples against a server.
#
# Debian 12 packages: python3-httpx python3-pytest python3-pytest-asyncio python3-build
# python3-hatchling python3-venv mypy. PYTHON defaults to /usr/bin/python3, the interpreter that
# sees them (the first python3 on PATH may be another one).
set -euo pipefail
PY=${PYTHON:-/usr/bin/python3}
cd "$(dirname "$0")/.."

echo "== generator --check"
"$PY" scripts/generate.py --check

echo "== mypy --strict"
"$PY" -m mypy --strict src examples

echo "== pytest"
"$PY" -m pytest -q

echo "== build (wheel + sdist)"
rm -rf dist
# --no-isolation: use Debian's hatchling (no index reachable); --skip-dependency-check: Debian's
# hatchling lacks python3-editables, which only editable installs need.
"$PY" -m build --no-isolation --skip-dependency-check --outdir dist . >/dev/null
ls dist

echo "== the wheel in a fresh virtual environment"
VENV=$(mktemp -d)
trap 'rm -rf "$VENV"' EXIT
"$PY" -m venv --system-site-packages "$VENV"   # sees Debian's httpx
"$VENV/bin/python" -m pip install --quiet --no-index --no-deps dist/lightbox_client-*.whl
"$VENV/bin/python" -m pip check >/dev/null 2>&1 || true
"$PY" scripts/run_example.py "$VENV/bin/python"
