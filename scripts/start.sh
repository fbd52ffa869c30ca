#!/usr/bin/env bash
# Install the app's packages and the package itself (editable: a notebook anywhere can import
# attnviz), then start it on http://localhost:8501 (options pass through: --server.port 8600)
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install -q --disable-pip-version-check -r requirements.txt -e .
python -m pip install -q --disable-pip-version-check --no-deps -r requirements-nodeps.txt
exec python -m attnviz.ui.serve "$@"
