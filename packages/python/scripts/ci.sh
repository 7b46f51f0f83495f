#!/usr/bin/env bash
# Everything CI checks for the Python library (npm run test:python at the repository's root):
# the generator's --check (the package matches the OpenAPI document, every operation has a
# method), mypy --strict on the package and its examples, the pytest suite against a real server
# (on SQLite, and again on PostgreSQL when LIGHTBOX_PY_DATABASE_URL or DATABASE_URL names one),
# a wheel and an sdist, and the wheel installed in a fresh virtual environment running the
# examples against a server.
#
# Debian 12 packages: python3-httpx python3-pytest python3-pytest-asyncio python3-build
# python3-hatchling python3-venv mypy. PYTHON defaults to /usr/bin/python3, the interpreter that
# sees them (the first python3 on PATH may be another one).
#
# `--lint-only` runs the static checks (the generator's --check and mypy: `./run lint` runs them),
# `--tests-only` the rest (`./run test` runs that).
set -euo pipefail
PY=${PYTHON:-/usr/bin/python3}
mode=all
case "${1:-}" in
  --lint-only) mode=lint ;;
  --tests-only) mode=tests ;;
  "") ;;
  *) echo "usage: ci.sh [--lint-only | --tests-only]" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."

# The Debian packages this needs, installed here when missing (CI runs as root on a fresh
# machine): one `apt-get update`, then one install. Elsewhere they are named in one line.
missing=()
has() { "$PY" -c "import $1" >/dev/null 2>&1; }
[ -x "$PY" ] || missing+=(python3)
has httpx || missing+=(python3-httpx)
has pytest || missing+=(python3-pytest)
has pytest_asyncio || missing+=(python3-pytest-asyncio)
has build || missing+=(python3-build)
has hatchling || missing+=(python3-hatchling)
has ensurepip || missing+=(python3-venv)
has mypy || missing+=(mypy)
if [ "${#missing[@]}" -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo -n"
  if command -v apt-get >/dev/null 2>&1 && { [ -z "$sudo" ] || sudo -n true 2>/dev/null; }; then
    echo "== installing ${missing[*]} (Debian packages)"
    # Another apt run on the machine (a parallel suite) holds the lock for a while: wait for it.
    $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
      --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "the Python library's checks need Debian's ${missing[*]}: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

if [ "$mode" != tests ]; then
  echo "== generator --check"
  # Against the document the app serves now (built in-process, as npm run client:types does), so the
  # check does not depend on packages/client/openapi.json having been regenerated; then against
  # that committed copy, which the generator reads by default.
  SERVED=$(mktemp)
  (cd ../.. && node --input-type=module -e "import { servedOpenApiDocument } from './scripts/lib/openapi-document.ts';
  process.stdout.write(JSON.stringify(await servedOpenApiDocument()));") >"$SERVED"
  "$PY" scripts/generate.py --check --document "$SERVED"
  rm -f "$SERVED"
  "$PY" scripts/generate.py --check

  echo "== mypy --strict"
  "$PY" -m mypy --strict src examples
fi
[ "$mode" != lint ] || exit 0

echo "== pytest (servers on SQLite)"
env -u LIGHTBOX_PY_DATABASE_URL "$PY" -m pytest -q

# Again on PostgreSQL when one is named (scripts/test-all passes CI's); DATABASE_URL serves too when
# this runs alone. The memory test moves gigabytes and does not depend on the database: once is enough.
PG_URL=${LIGHTBOX_PY_DATABASE_URL:-}
case "${DATABASE_URL:-}" in postgres://* | postgresql://*) PG_URL=${PG_URL:-$DATABASE_URL} ;; esac
if [ -n "$PG_URL" ]; then
  echo "== pytest (servers on PostgreSQL)"
  LIGHTBOX_PY_DATABASE_URL=$PG_URL "$PY" -m pytest -q --ignore=tests/test_memory.py
else
  echo "== pytest on PostgreSQL skipped: set LIGHTBOX_PY_DATABASE_URL=postgres://... to run it"
fi

echo "== build (wheel + sdist)"
rm -rf dist
# --no-isolation: use Debian's hatchling (no index reachable); --skip-dependency-check: Debian's
# hatchling lacks python3-editables, which only editable installs need.
"$PY" -m build --no-isolation --skip-dependency-check --outdir dist . >/dev/null
ls dist

echo "== the wheel and sdist hold what they must"
"$PY" scripts/check_dist.py dist

echo "== the wheel in a fresh virtual environment"
VENV=$(mktemp -d)
trap 'rm -rf "$VENV"' EXIT
# --system-site-packages: the venv sees Debian's httpx 0.23, so installing the wheel *with* its
# dependencies, offline, proves the floor (httpx>=0.23) is met by what Debian ships.
"$PY" -m venv --system-site-packages "$VENV"
"$VENV/bin/python" -m pip install --quiet --no-index dist/lightbox_client-*.whl
"$VENV/bin/python" -m pip show lightbox-client | grep -E '^(Name|Version|Requires):'
"$PY" scripts/run_example.py "$VENV/bin/python"
