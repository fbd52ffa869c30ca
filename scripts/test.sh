#!/usr/bin/env bash
# Install everything the tests need (Python packages, Debian's chromium and haproxy) and run every
# test.
# Usage: bash scripts/test.sh [extra pytest args]
#   quick loop (no model loads, no training to a target, no pages, no browser; under a minute):
#   bash scripts/test.sh -m "not slow and not browser"
set -euo pipefail
cd "$(dirname "$0")/.."

MISSING=()  # Debian packages: chromium (browser tests), haproxy (tests/deploy, deploy/start.sh),
# postgresql (the classroom store's tests start a server: tests/support/postgres.py)
command -v chromium >/dev/null 2>&1 || MISSING+=(chromium)
command -v haproxy >/dev/null 2>&1 || MISSING+=(haproxy)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || MISSING+=(postgresql)
if [ ${#MISSING[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${MISSING[@]}" >/dev/null
fi
# --no-compile: pip compiles every module it installs (about 50 of the 100 s an install takes on a
# 2-core machine); the tests import a fraction of them, each compiled once on its first import,
# so bytecode is written (PYTHONDONTWRITEBYTECODE, set on some machines, would compile it in
# every process again: 17 s instead of 7 s for the imports of one test process)
python -m pip install -q --no-compile --disable-pip-version-check -r requirements-test.txt
python -m pip install -q --no-compile --disable-pip-version-check --no-deps -r requirements-nodeps.txt
unset PYTHONDONTWRITEBYTECODE
# axe-core (npm, pinned in package.json and package-lock.json) for tests/browser/test_accessibility.py
if [ ! -f node_modules/axe-core/axe.min.js ]; then
  npm ci --silent --no-audit --no-fund
fi

python -m ruff check .
python -m ruff format --check .
python -m pytest "$@"
