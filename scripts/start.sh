#!/usr/bin/env bash
# Install the app's packages and start it on http://localhost:8501
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install -q --disable-pip-version-check -r requirements.txt
python -m pip install -q --disable-pip-version-check --no-deps -r requirements-nodeps.txt
exec python -m attnviz.ui.serve "$@"
