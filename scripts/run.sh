#!/usr/bin/env bash
# Set up (if needed) and run the main job.
#   scripts/run.sh                 a narrated game of «Ночь оборотня» at this keyboard, or,
#                                  when nobody is at the keyboard, a narrated demo game
#                                  (to the speakers; with no sound device, to an Ogg file)
#   scripts/run.sh ARGS...         narrator play ARGS... (e.g. sport_mafia --lang en --voice)
set -euo pipefail

ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd -P)"

bash "$ROOT/scripts/setup.sh"

NARRATOR="$ROOT/.venv/bin/narrator"
# The default game's lines in the default voice, rendered once here (later runs find them
# cached): its first game starts warm. No voice to render with is said there and in the game.
"$NARRATOR" voice build --lang ru --variant onenight || true
if (($# > 0)); then
    exec "$NARRATOR" play "$@"
fi
if [[ -t 0 ]]; then
    exec "$NARRATOR" play onenight --voice
fi
exec "$NARRATOR" demo onenight
