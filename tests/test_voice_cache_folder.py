"""No test writes speech to the user's cache: tests/conftest.py gives the run its own."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from narrator.listen import corpus
from narrator.voice.tts import SpeechCache
from narrator.voice.tts import default_cache_folder


@pytest.mark.skipif(
    bool(os.environ.get("NARRATOR_TEST_CACHE")), reason="NARRATOR_TEST_CACHE names the folder"
)
def test_the_speech_cache_of_a_test_run_is_not_the_users() -> None:
    users = Path.home() / ".cache"
    runs = Path(os.environ["XDG_CACHE_HOME"])
    assert runs.name.startswith("narrator-test-cache-")  # made by this run, removed after it
    for folder in (default_cache_folder(), corpus.default_folder()):
        assert not folder.is_relative_to(users), folder
        assert folder.is_relative_to(runs), folder
    # A cache made without a folder, as a game makes it, renders there.
    assert SpeechCache("ru", voice="espeak:zle/ru").folder == default_cache_folder()
