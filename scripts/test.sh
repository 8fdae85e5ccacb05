#!/usr/bin/env bash
# Set up (if needed) with the [test] extra and run pytest: scripts/test.sh [pytest args...]
set -euo pipefail

ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd -P)"

bash "$ROOT/scripts/setup.sh" test

cd "$ROOT"
export PATH="$ROOT/.venv/bin:$PATH"

rc=0
"$ROOT/.venv/bin/python" -m pytest -q "$@" || rc=$?

if ((rc == 5)); then
    echo "test: error: pytest collected no tests (exit 5); treating as failure" >&2
    exit 1
fi
exit "$rc"
