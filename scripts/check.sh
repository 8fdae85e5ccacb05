#!/usr/bin/env bash
# The lint checks: ruff (lint and format) and mypy, strict on the package.
# A missing tool is an error, not a skip.  scripts/test.sh runs this first.
set -euo pipefail

ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd -P)"
cd "$ROOT"
PY="$ROOT/.venv/bin/python"

die() { printf 'check: error: %s\n' "$*" >&2; exit 1; }

[[ -x "$PY" ]] || die "no .venv: run scripts/setup.sh test first"
for module in ruff mypy; do
    "$PY" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('$module') is None)" ||
        die "$module is not installed in .venv (scripts/setup.sh test installs it)"
done

rc=0
step() {
    printf 'check: %s\n' "$*"
    "$@" || rc=1
}
step "$PY" -m ruff check narrator tests scripts
step "$PY" -m ruff format --check narrator tests scripts
step "$PY" -m mypy --strict narrator
step "$PY" -m mypy tests
((rc == 0)) || die "a check failed (above)"
