#!/usr/bin/env bash
# Prepare a machine (Debian 12 / Ubuntu) to run narrator.
#
#   scripts/setup.sh            system packages + .venv with the project (editable)
#   scripts/setup.sh test       ... plus the [test] extra
#   scripts/setup.sh a b        ... plus the [a,b] extras
#
# Idempotent: system packages are only installed when missing, the venv is only
# created when missing, and pip is skipped when a stamp for the current
# pyproject.toml + extras exists. Works as root, or as a user with sudo.
set -euo pipefail

ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd -P)"
VENV="$ROOT/.venv"
export DEBIAN_FRONTEND=noninteractive

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

# A python is usable when it is >= 3.11 (pyproject requires-python) and can
# really create a venv with pip: on Debian `python3 -m venv --help` works
# without python3-venv, but creating the venv then fails for lack of ensurepip.
py_ok() {
    "$1" -m venv --help >/dev/null 2>&1 &&
        "$1" -c 'import sys, ensurepip; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1
}

find_python() {
    local cand
    for cand in "$(command -v python3 || true)" /usr/bin/python3; do
        if [[ -n "$cand" && -x "$cand" ]] && py_ok "$cand"; then
            printf '%s\n' "$cand"
            return 0
        fi
    done
    return 1
}

venv_ok() { [[ -x "$VENV/bin/python" ]] && "$VENV/bin/python" -c 'import sys' >/dev/null 2>&1; }

# ---- system packages ---------------------------------------------------------
PKGS=(espeak-ng festival festvox-ru festvox-us-slt-hts libportaudio2 libasound2-plugins pulseaudio pulseaudio-utils tmux)
# The test extra: a real browser for the phones' tests (Playwright drives Debian's chromium).
TEST_PKGS=(chromium)
if [[ ",$(IFS=,; printf '%s' "$*")," == *,test,* ]]; then
    PKGS+=("${TEST_PKGS[@]}")
fi
PYTHON="$(find_python || true)"
if [[ -z "$PYTHON" ]] && ! venv_ok; then
    PKGS=(python3 python3-venv python3-pip "${PKGS[@]}")
fi

is_installed() {
    dpkg -s "$1" 2>/dev/null | grep -q '^Status: install ok installed$'
}

if command -v dpkg >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    MISSING=()
    for pkg in "${PKGS[@]}"; do
        is_installed "$pkg" || MISSING+=("$pkg")
    done
    if ((${#MISSING[@]})); then
        SUDO=()
        if [[ "$(id -u)" -ne 0 ]]; then
            command -v sudo >/dev/null 2>&1 ||
                die "not root and no sudo; install these packages first: ${MISSING[*]}"
            SUDO=(sudo)
        fi
        say "installing system packages: ${MISSING[*]}"
        "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
        "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
            apt-get install -y -q --no-install-recommends "${MISSING[@]}"
    else
        say "system packages present"
    fi
else
    say "warning: no dpkg/apt-get; skipping system packages (${PKGS[*]})" >&2
fi

# ---- virtualenv --------------------------------------------------------------
if venv_ok; then
    say "using existing $VENV"
else
    [[ -n "$PYTHON" ]] || PYTHON="$(find_python || true)"
    [[ -n "$PYTHON" ]] || die "no python3 >= 3.11 with venv/ensurepip support found"
    if [[ -e "$VENV" ]]; then
        say "removing broken $VENV"
        rm -rf "$VENV"
    fi
    say "creating $VENV with $PYTHON ($("$PYTHON" -c 'import platform; print(platform.python_version())'))"
    "$PYTHON" -m venv "$VENV"
fi

# ---- project install ---------------------------------------------------------
EXTRAS="$(IFS=,; printf '%s' "$*")"
SPEC="."
[[ -z "$EXTRAS" ]] || SPEC=".[$EXTRAS]"

# The version lives in narrator/__init__.py (pyproject.toml reads it): a new one reinstalls.
HASH="$({ cat "$ROOT/pyproject.toml" "$ROOT/narrator/__init__.py"; printf '\nextras=%s\n' "$EXTRAS"; } | sha256sum | cut -c1-16)"
STAMP="$VENV/.installed-$HASH"

if [[ -f "$STAMP" ]]; then
    say "project already installed ($SPEC)"
else
    say "installing project: pip install -e \"$SPEC\""
    (cd "$ROOT" && "$VENV/bin/python" -m pip install --disable-pip-version-check -q -e "$SPEC")
    touch "$STAMP"
fi
say "done"
