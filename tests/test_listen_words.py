"""Recognised text → answer texts, and the grammar of each day prompt, in ru and en."""

from __future__ import annotations

import pytest

from narrator.listen.words import ARMED_S
from narrator.listen.words import UNKNOWN
from narrator.listen.words import Reading
from narrator.listen.words import grammar
from narrator.listen.words import interpret
from narrator.listen.words import is_day_prompt
from narrator.listen.words import lexicon_for
from narrator.rules.answers import AnswerKind
from narrator.rules.answers import Nobody
from narrator.rules.errors import ConfigError
from narrator.rules.onenight import OneNightSwitches
from narrator.rules.onenight import vote_prompt
from narrator.rules.phases import day
from narrator.rules.phases import night
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Tag
from narrator.rules.prompts import seat_prompt
from narrator.rules.sport_mafia import _seat_prompt
from narrator.rules.sport_mafia import count_prompt
from narrator.voice.numbers import english
from narrator.voice.numbers import russian

RUSSIAN, ENGLISH, KOREAN = (lexicon_for(lang) for lang in ("ru", "en", "ko"))


def nominate(speaker: int = 1, living: tuple[int, ...] = tuple(range(1, 11))) -> Prompt:
    return _seat_prompt(Tag(day(1), "nominate", speaker), speaker, living, mark="nominate")


VOTE_3 = Tag(day(2), "vote", 3)


def prompt(accepts: set[AnswerKind], options: tuple[str, ...], tag: Tag = VOTE_3) -> Prompt:
    return Prompt(
        tag=tag,
        seats=(3,),
        accepts=frozenset(accepts),
        seat_count=10,
        default=Nobody(),
        options=options,
        check=lambda answer: None,
    )


HALLOWEEN_VOTE = prompt({AnswerKind.SEAT, AnswerKind.ABSTAIN}, ("1", "2", "4", "abstain"))
YES_NO = prompt({AnswerKind.YES_NO}, ("yes", "no"), Tag(day(1), "badge_yes"))


def answer(text: str, p: Prompt | None, lang: str = "ru", armed: bool = False) -> str | None:
    return interpret(text, p, lexicon_for(lang), armed=armed).answer


# --- numbers ---------------------------------------------------------------------------------


def test_the_lexicons_spell_numbers_like_the_narrator() -> None:
    for n in range(13):
        assert RUSSIAN.number_word(n) == russian(n)
        assert ENGLISH.number_word(n) == english(n)


@pytest.mark.parametrize("n", range(1, 11))
def test_a_seat_number_alone_is_a_vote(n: int) -> None:
    vote = (
        count_prompt(Tag(day(1), "vote", 4), 9)
        if n <= 9
        else count_prompt(Tag(day(1), "vote", 4), 10)
    )
    assert answer(russian(n), vote) == str(n)
    assert answer(english(n), vote, "en") == str(n)
    onenight = vote_prompt(voter=11 if n != 11 else 1, players=12, sw=OneNightSwitches())
    assert answer(russian(n), onenight) == str(n)


def test_hand_counts_take_zero_and_nobody() -> None:
    hands = count_prompt(Tag(day(1), "vote", 4), 9)
    assert answer("ноль", hands) == "0"
    assert answer("никто", hands) == "0"
    assert answer("nobody", hands, "en") == "0"
    assert answer("пять рук", hands) is None  # «рук» is not a table word: unclear
    assert interpret("пять рук", hands, RUSSIAN).unclear


# --- nominations --------------------------------------------------------------------------------


def test_a_nomination_needs_its_phrase() -> None:
    p = nominate()
    assert answer("я выставляю игрока номер семь", p) == "7"
    assert answer("выставляю семь", p) == "7"
    assert answer("i nominate player number seven", p, "en") == "7"
    assert answer("семь", p) is None  # talk about seven inside a speech is not a nomination
    assert not interpret("семь", p, RUSSIAN).unclear
    assert answer("seven", p, "en") is None


def test_a_nomination_after_a_pause() -> None:
    p = nominate()
    first = interpret("я выставляю игрока номер", p, RUSSIAN)
    assert first.arms and first.answer is None and not first.unclear
    assert answer("семь", p, armed=True) == "7"
    # Speech outside the grammar in between («я выставляю игрока», «[unk]», «семь»: a
    # pause, a word not heard, the number) is no "say it again", and the number still counts.
    between = interpret(UNKNOWN, p, RUSSIAN, armed=True)
    assert between.answer is None and not between.unclear and not between.arms
    assert interpret(f"выставляю {UNKNOWN}", p, RUSSIAN).unclear  # the number was not heard


def test_a_reading_keeps_a_nomination_armed_for_its_window_only() -> None:
    """The one arming rule the table, `narrator hear` and the corpus all read with."""
    reading = Reading(nominate(), RUSSIAN)
    assert reading.read("я выставляю игрока номер", 10.0).arms
    assert reading.read("семь", 10.0 + ARMED_S - 0.1).answer == "7"
    assert reading.read("восемь", 10.0 + ARMED_S - 0.05).answer is None  # an answer disarms
    late = Reading(nominate(), RUSSIAN)
    late.read("я выставляю игрока номер", 0.0)
    assert late.read("семь", ARMED_S).answer is None  # the pause was too long: talk


def test_the_last_phrase_counts_and_talk_before_it_does_not_matter() -> None:
    p = nominate()
    assert answer(f"{UNKNOWN} семь {UNKNOWN} я выставляю игрока номер три", p) == "3"


def test_nobody_and_zero_at_a_nomination() -> None:
    p = nominate()
    assert answer("выставляю никого", p) == "none"
    assert answer("выставляю ноль", p) == "none"  # the keypad's 0


# --- words ---------------------------------------------------------------------------------


def test_abstain_and_nobody() -> None:
    assert answer("воздерживаюсь", HALLOWEEN_VOTE) == "abstain"
    assert answer("никого", HALLOWEEN_VOTE) == "abstain"  # where only abstaining is possible
    assert answer("abstain", HALLOWEEN_VOTE, "en") == "abstain"
    assert answer("ноль", HALLOWEEN_VOTE) == "abstain"
    assert answer("no one", nominate(), "en", armed=True) == "none"


def test_yes_and_no() -> None:
    assert answer("да", YES_NO) == "yes"
    assert answer("за", YES_NO) == "yes"
    assert answer("против", YES_NO) == "no"
    assert answer("нет", YES_NO) == "no"
    assert answer("yes", YES_NO, "en") == "yes"
    assert answer("against", YES_NO, "en") == "no"
    assert interpret("да нет", YES_NO, RUSSIAN).unclear


def test_za_is_a_filler_where_no_yes_no_is_asked() -> None:
    hands = count_prompt(Tag(day(1), "vote", 4), 9)
    assert answer("голосую за пять", hands) == "5"
    assert answer("i vote for five", hands, "en") == "5"


def test_thanks_ends_a_speech_and_repeat_asks_again() -> None:
    heard = interpret("спасибо", None, RUSSIAN)
    assert heard.end and heard.answer is None and not heard.unclear
    assert interpret("thank you", None, ENGLISH).end
    assert interpret("повторите", None, RUSSIAN).repeat
    assert interpret("repeat", count_prompt(Tag(day(1), "vote", 1), 9), ENGLISH).repeat
    # «Спасибо» ends a speech only as the whole utterance: with a nomination
    # or talk around it, the speech goes on.
    both = interpret("выставляю семь спасибо", nominate(), RUSSIAN)
    assert both.answer == "7" and not both.end
    assert not interpret("семь", None, RUSSIAN).end
    assert not interpret(f"спасибо {UNKNOWN} {UNKNOWN}", None, RUSSIAN).end
    assert not interpret("thank you seven", None, ENGLISH).end


def test_unclear_speech_types_nothing() -> None:
    hands = count_prompt(Tag(day(1), "vote", 4), 9)
    two = interpret("пять шесть", hands, RUSSIAN)  # two people talking
    assert two.answer is None and two.unclear
    unknown = interpret(f"{UNKNOWN} пять", hands, RUSSIAN)
    assert unknown.answer is None and unknown.unclear
    noise = interpret(UNKNOWN, hands, RUSSIAN)
    assert noise.answer is None and noise.unclear  # at a question: «не расслышал»
    fillers = interpret(
        "i vote for", vote_prompt(voter=4, players=5, sw=OneNightSwitches()), ENGLISH
    )
    assert fillers.answer is None and fillers.unclear  # fillers alone: no answer in it
    talk = interpret(UNKNOWN, nominate(), RUSSIAN)  # in a speech, talk is no answer
    assert talk.answer is None and not talk.unclear
    assert interpret("", hands, RUSSIAN) == interpret("", hands, RUSSIAN)


def test_numbers_outside_the_table() -> None:
    vote = vote_prompt(voter=1, players=5, sw=OneNightSwitches())
    assert answer("двенадцать", vote) is None  # seat 12 does not exist at five players


def test_case_and_yo_do_not_matter() -> None:
    assert answer("НИКТО", count_prompt(Tag(day(1), "vote", 1), 3)) == "0"
    assert interpret("Спасибо", None, RUSSIAN).end
    assert interpret("повторитё", None, RUSSIAN).repeat  # «ё» is read as «е»


# --- grammars -----------------------------------------------------------------------------


def test_the_grammar_has_the_table_s_seats_and_only_the_words_valid_now() -> None:
    p = nominate(speaker=2, living=(1, 2, 3, 5, 8))
    words = grammar(p, RUSSIAN, speech=True)  # a nomination is made in one's speech
    assert {"один", "три", "пять", "восемь"} <= set(words)
    # The speaker himself and dead seats are heard, so that the rules refuse them with
    # their reason (left out, «четыре» was heard as another seat, "four" as "for").
    assert {"два", "четыре", "десять"} <= set(words)
    assert "одиннадцать" not in words  # no such seat at ten players
    assert "я выставляю игрока номер" in words and "никого" in words and "ноль" in words
    assert {"спасибо", "повтори", UNKNOWN} <= set(words)
    assert "да" not in words and "воздерживаюсь" not in words


def test_thanks_is_listened_for_only_where_it_ends_something() -> None:
    vote = seat_prompt(Tag(day(1), "vote"), (), 10, range(1, 11))
    assert "спасибо" not in grammar(vote, RUSSIAN)  # "six" was heard as "thanks"
    assert "thanks" not in grammar(vote, ENGLISH) and "repeat" in grammar(vote, ENGLISH)
    assert "спасибо" in grammar(vote, RUSSIAN, speech=True)  # a countdown runs


def test_hand_count_grammar() -> None:
    words = grammar(count_prompt(Tag(day(1), "vote", 4), 3), ENGLISH)
    assert {"zero", "one", "two", "three", "nobody"} <= set(words)
    assert "four" not in words and "i nominate" not in words


def test_a_speech_without_a_question_listens_for_thanks_only() -> None:
    words = set(grammar(None, RUSSIAN))
    assert {"спасибо", "повтори"} <= words
    assert not words & set(RUSSIAN.numbers)


def test_night_prompts_are_never_spoken() -> None:
    asked = prompt({AnswerKind.SEAT}, ("1",), Tag(night(1), "mafia"))
    assert not is_day_prompt(asked)
    assert is_day_prompt(nominate())


def test_every_lexicon_is_complete() -> None:
    for lexicon in (RUSSIAN, ENGLISH, KOREAN):
        assert sorted(lexicon.numbers.values()) == list(range(13))
        assert lexicon.required_words()
        for key in ("ready", "heard", "unclear", "off", "lost"):
            assert lexicon.message(key, text="x", answer="1", reason="r")
        assert "sphinx" in lexicon.message("experimental", engine="sphinx")
    with pytest.raises(ConfigError, match="languages: ru, en, ko"):
        lexicon_for("de")


def test_a_word_outside_the_grammar_is_shown_as_an_ellipsis() -> None:
    """«[unk]» on the screen would be read as markup and vanish: «не расслышал («»)»."""
    from narrator.listen.keys import shown

    assert shown(UNKNOWN) == "…"
    assert shown(f"я выставляю игрока {UNKNOWN}") == "я выставляю игрока …"
    assert shown("два") == "два"
