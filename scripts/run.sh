#!/usr/bin/env bash
# Set up (if needed) and start a game: scripts/run.sh [narrator play args...]
# Default: onenight --players 5 --text
set -euo pipefail

ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd -P)"

bash "$ROOT/scripts/setup.sh"

if (($# == 0)); then
    set -- onenight --players 5 --text
fi
exec "$ROOT/.venv/bin/narrator" play "$@"
