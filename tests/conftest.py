"""Suite-wide guards (any ERROR log line fails the test that wrote it), the toy game, and
state and cache folders of the run's own instead of the user's."""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from collections.abc import Iterator

import pytest

from narrator.rules.registry import register

# A game that exists only in the tests (tests/toy_variant.py, its lines in tests/lines/).
register("toy", "tests.toy_variant")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "terminal: whole games in a real terminal (tmux), minutes each"
    )
    config.addinivalue_line(
        "markers",
        "slow: a real-time repetition of a behaviour the default tier already covers",
    )
    # The keys of sealed game records (narrator.host.journal) go to a folder of this run,
    # inherited by every narrator the tests start, not to the user's state folder.
    _STATE.append(tempfile.mkdtemp(prefix="narrator-test-state-"))
    os.environ["XDG_STATE_HOME"] = _STATE[0]
    # So do the speech files (narrator.voice.tts.default_cache_folder) and the listening
    # corpus: no test writes to the user's cache, and no test's run time depends on what
    # it holds.  Lines rendered by one test are there for the next ones of the run.
    # NARRATOR_TEST_CACHE names a folder to keep between runs instead (warm runs).
    kept = os.environ.get("NARRATOR_TEST_CACHE")
    if kept:
        os.environ["XDG_CACHE_HOME"] = kept
    else:
        _STATE.append(tempfile.mkdtemp(prefix="narrator-test-cache-"))
        os.environ["XDG_CACHE_HOME"] = _STATE[-1]


def pytest_unconfigure(config: pytest.Config) -> None:
    for folder in _STATE:
        shutil.rmtree(folder, ignore_errors=True)


_STATE: list[str] = []


@pytest.fixture(autouse=True)
def _no_error_logs(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    yield
    errors = [r for r in caplog.get_records("call") if r.levelno >= logging.ERROR]
    assert not errors, f"ERROR log lines: {[r.getMessage() for r in errors]}"


@pytest.fixture(scope="session")
def pulse_audio() -> Iterator[dict[str, str]]:
    """A private PulseAudio server with null devices; PortAudio re-scanned to see them."""
    from tests.pulse import missing_tools
    from tests.pulse import portaudio_on
    from tests.pulse import pulse_server

    problem = missing_tools()
    if problem is not None:
        pytest.fail(problem)
    with pulse_server() as env, portaudio_on(env):
        yield env
