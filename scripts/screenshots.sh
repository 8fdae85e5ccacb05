#!/usr/bin/env bash
# Refresh the screenshots of the table screen in docs/ (headless textual pilot).
set -euo pipefail
ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd -P)"
cd "$ROOT"
NARRATOR_SCREENSHOTS="$ROOT/docs" .venv/bin/python -m pytest -q -p no:cacheprovider \
    tests/test_tui.py -k whole_onenight
