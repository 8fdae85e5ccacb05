#!/usr/bin/env bash
# Set up (if needed) with the [test] extra, run the lint checks (scripts/check.sh), then
# pytest, printing the 15 slowest tests at the end.
#
#   scripts/test.sh [pytest args...]        the default tier (what CI runs)
#   scripts/test.sh --all [pytest args...]  every tier: default, slow and terminal
set -euo pipefail

ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd -P)"

tier=()
if [[ "${1:-}" == "--all" ]]; then
    shift
    tier=(-m "")  # overrides pyproject's `-m "not terminal and not slow"`
fi

bash "$ROOT/scripts/setup.sh" test

cd "$ROOT"
export PATH="$ROOT/.venv/bin:$PATH"

bash "$ROOT/scripts/check.sh"

rc=0
# Parallel workers (pytest-xdist): most of the suite's time is games waiting on the wall
# clock, and every worker has its own PulseAudio server, tmux sockets, state and cache
# folders (tests/conftest.py, tests/pulse.py). NARRATOR_TEST_WORKERS=0 runs in one process.
workers=(-n "${NARRATOR_TEST_WORKERS:-4}" --dist loadgroup)
"$ROOT/.venv/bin/python" -m pytest -q --durations=15 "${workers[@]}" "${tier[@]}" "$@" || rc=$?

if ((rc == 5)); then
    echo "test: error: pytest collected no tests (exit 5); treating as failure" >&2
    exit 1
fi
exit "$rc"
