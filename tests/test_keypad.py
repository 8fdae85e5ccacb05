"""The keypad entry of an open prompt, a pure reducer, tested on key sequences: what is
typed (digits, Backspace, the keypad's + - * / .), what Enter hands over, the claim of
an interrupt and its confirmation, Space on called numbers, Esc and / 3, answers from
another channel, and what refusals and accepted answers leave behind."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from narrator.host.keypad import AskStop
from narrator.host.keypad import AskUndo
from narrator.host.keypad import Claim
from narrator.host.keypad import Effect
from narrator.host.keypad import End
from narrator.host.keypad import Entry
from narrator.host.keypad import Heard
from narrator.host.keypad import Interrupt
from narrator.host.keypad import Submit
from narrator.host.keypad import judged
from narrator.host.keypad import press
from narrator.host.keypad import refused
from narrator.host.keypad import taken
from narrator.ports import BACKSPACE
from narrator.ports import ENTER
from narrator.ports import INTERRUPT
from narrator.ports import UNDO
from narrator.ports import Attempt
from narrator.rules.alliance.prompts import candidates_prompt
from narrator.rules.alliance.prompts import explode_prompt
from narrator.rules.alliance.prompts import hunter_prompt
from narrator.rules.alliance.prompts import order_prompt
from narrator.rules.answers import SeatAnswer
from narrator.rules.onenight import OneNightSwitches
from narrator.rules.onenight import high_inquisitor_prompt
from narrator.rules.phases import day
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Seat
from narrator.rules.prompts import Tag
from narrator.rules.prompts import seat_prompt
from narrator.rules.sport_mafia import shoot_prompt

LIVING = tuple(range(1, 11))
VOTE = seat_prompt(Tag(day(1), "vote", 3), (3,), 10, LIVING)


def keyed(
    entry: Entry | None,
    keys: Sequence[str | Attempt],
    *,
    enter_ends: bool = False,
    calling: bool = False,
    called: Seat | None = None,
) -> tuple[Entry | None, list[Effect]]:
    """``keys`` pressed one after the other: the entry they leave, the effects in order."""
    effects: list[Effect] = []
    for key in keys:
        entry, effect = press(entry, key, enter_ends=enter_ends, calling=calling, called=called)
        if effect is not None:
            effects.append(effect)
    return entry, effects


def test_digits_and_enter_hand_over_the_typed_answer() -> None:
    entry, effects = keyed(Entry(VOTE), ["1", "0", ENTER])
    assert effects == [Submit("10", "10")]
    assert entry == Entry(VOTE)  # what was typed is handed over, not kept


def test_backspace_takes_back_the_last_key_only() -> None:
    entry, effects = keyed(Entry(VOTE), ["1", "3", BACKSPACE])
    assert entry is not None and entry.typed == "1" and not effects
    entry, effects = keyed(entry, [BACKSPACE, BACKSPACE, "7", ENTER])  # one too many: nothing
    assert effects == [Submit("7", "7")]


def test_the_keypad_signs_are_typed_and_read_by_the_prompt() -> None:
    order = order_prompt(1, 5, (4, 6), 12)
    assert keyed(Entry(order), ["4", "+", ENTER])[1] == [Submit("4 +", "4+")]
    two = candidates_prompt(1, LIVING, 10)
    assert keyed(Entry(two), ["2", ".", "5", ENTER])[1] == [Submit("2 5", "2.5")]
    assert keyed(Entry(two), ["2", " ", "5", ENTER])[1] == [Submit("2 5", "2 5")]
    inquisitor = high_inquisitor_prompt(1, 5, OneNightSwitches())
    assert keyed(Entry(inquisitor), ["*", "1", "3", ENTER])[1] == [Submit("center 1 3", "*13")]
    entry, _ = keyed(Entry(VOTE), ["/", "-"])
    assert entry is not None and entry.typed == "/-"


def test_an_empty_enter_ends_a_speech_and_does_nothing_elsewhere() -> None:
    assert keyed(Entry(VOTE), [ENTER], enter_ends=True)[1] == [End()]
    assert keyed(Entry(VOTE), [" ", ENTER], enter_ends=True)[1] == [End()]  # blanks only
    entry, effects = keyed(Entry(VOTE), [ENTER])
    assert entry == Entry(VOTE) and not effects
    assert keyed(None, [ENTER], enter_ends=True)[1] == [End()]  # a speech without a prompt


def test_keys_without_a_prompt_are_inert() -> None:
    entry, effects = keyed(None, ["5", BACKSPACE, ENTER, " "])
    assert entry is None and not effects


def test_esc_and_undo_ask_the_table_and_keep_what_is_typed() -> None:
    entry, effects = keyed(Entry(VOTE), ["4", INTERRUPT, UNDO])
    assert effects == [AskStop(), AskUndo()]
    assert entry is not None and entry.typed == "4"
    assert keyed(None, [INTERRUPT, UNDO])[1] == [AskStop(), AskUndo()]


def test_a_refusal_stays_on_screen_until_the_next_key_typed() -> None:
    entry: Entry | None = refused(Entry(VOTE), "seat 11 does not exist")
    entry, _ = keyed(entry, [BACKSPACE])
    assert entry is not None and entry.reason  # Backspace leaves it
    entry, _ = keyed(entry, ["2"])
    assert entry is not None and entry.reason == "" and entry.typed == "2"


def test_an_accepted_answer_clears_the_entry_and_later_enters_are_still_handed_over() -> None:
    entry = taken(replace(Entry(VOTE), typed="4"), SeatAnswer(4))
    assert (entry.answered, entry.answer, entry.typed) == (True, SeatAnswer(4), "")
    entry2, effects = keyed(entry, ["5", ENTER])
    assert effects == [Submit("5", "5")]  # the rules refuse it: already answered
    assert entry2 is not None and entry2.answer == SeatAnswer(4)
    assert judged(Entry(VOTE), None, "why") == refused(Entry(VOTE), "why")
    assert judged(Entry(VOTE), SeatAnswer(2), "") == taken(Entry(VOTE), SeatAnswer(2))


def test_each_shooter_enters_his_shot_and_the_last_one_hands_over_all() -> None:
    shoot = shoot_prompt(1, (2, 5, 9), LIVING)
    entry, effects = keyed(Entry(shoot), ["3", ENTER, "7"])
    assert effects == [Submit(None, "3")]  # one shooter's entry: nothing to judge yet
    assert entry is not None and entry.parts == ("3",) and entry.shown == "3 7"
    entry, effects = keyed(entry, [ENTER, "3", ENTER])
    assert effects == [Submit(None, "7"), Submit("3 7 3", "3")]
    assert entry is not None and entry.parts == () and entry.shown == ""
    answered = taken(Entry(shoot), SeatAnswer(3))
    assert keyed(answered, ["4", ENTER])[1] == [Submit("4", "4")]  # no more parts once answered


def test_an_interrupt_is_claimed_aloud_then_confirmed_by_an_empty_enter() -> None:
    explode = explode_prompt(Tag(day(1), "explode", 2), 2, (8,), 12)
    speech = Entry(None, interrupt=explode)
    entry, effects = keyed(speech, ["*", "8", ENTER], enter_ends=True)
    assert effects == [Claim("8 2")] and entry is not None and entry.typed == ""
    waiting = replace(entry, claim="8 2", claim_until=10.0)  # the table said the claim
    entry, effects = keyed(waiting, [ENTER], enter_ends=True)
    assert effects == [Interrupt("8 2")] and entry is not None and entry.claim is None
    # Something typed while the claim waits is no confirmation (and no answer here).
    entry, effects = keyed(waiting, ["3", ENTER], enter_ends=True)
    assert not effects and entry is not None and entry.claim == "8 2"
    entry, effects = keyed(Entry(None, interrupt=replace(explode, claim=None)), ["*", "8", ENTER])
    assert effects == [Interrupt("8 2")]  # no claim line: judged at once


def test_typed_text_without_a_prompt_is_dropped_at_enter_during_a_speech() -> None:
    explode = explode_prompt(Tag(day(1), "explode", 2), 2, (8,), 12)
    entry, effects = keyed(Entry(None, interrupt=explode), ["5", ENTER], enter_ends=True)
    assert not effects and entry is not None and entry.typed == ""


def test_space_presses_the_number_being_called() -> None:
    calls = shoot_prompt(1, (2, 5), LIVING, calls=True)
    entry, effects = keyed(Entry(calls), [" ", "4", ENTER], calling=True, called=6)
    assert not effects and entry is not None and entry.presses == (6,) and entry.typed == ""
    entry, _ = keyed(entry, [" "], calling=True, called=None)  # before the first call
    assert entry is not None and entry.presses == (6, None)
    assert keyed(Entry(calls), [" "], calling=False)[0] == Entry(calls)  # nothing is called
    done = taken(Entry(calls), SeatAnswer(3))
    assert keyed(done, [" "], calling=True, called=6)[0] == done  # answered: no more


def test_a_spoken_answer_is_heard_only_for_its_open_day_prompt() -> None:
    assert keyed(Entry(VOTE), [Attempt(VOTE.id, "4")])[1] == [Heard("4")]
    assert keyed(Entry(VOTE), [Attempt("d1.vote.2", "4")])[1] == []  # another prompt's
    said = [Attempt("d1.vote.2", "4", ends=True)]
    assert keyed(Entry(VOTE), said, enter_ends=True)[1] == [End()]  # «…спасибо»: it ends
    assert keyed(Entry(VOTE), said)[1] == []
    assert keyed(Entry(VOTE), [Attempt(VOTE.id, "", ends=True)], enter_ends=True)[1] == [End()]
    ended = [Attempt(VOTE.id, "4", ends=True)]
    assert keyed(Entry(VOTE), ended, enter_ends=True)[1] == [Heard("4", ends=True)]
    night = high_inquisitor_prompt(1, 5, OneNightSwitches())
    assert keyed(Entry(night), [Attempt(night.id, "3")])[1] == []  # never by voice at night
    assert keyed(Entry(night), [Attempt(night.id, "3", source="text")])[1] == [Heard("3")]
    assert keyed(None, [Attempt(VOTE.id, "4")])[1] == []


def test_a_blind_prompt_hands_over_like_any_other() -> None:
    """The table answers every attempt at it with the same line: the reducer does not
    tell them apart either."""
    shot: Prompt = replace(hunter_prompt(1, 4, LIVING, 10), blind=True)
    assert keyed(Entry(shot), ["7", ENTER])[1] == [Submit("7", "7")]
    assert keyed(Entry(shot), ["4", ENTER])[1] == [Submit("4", "4")]


def test_keys_that_cannot_be_printed_are_dropped() -> None:
    entry, effects = keyed(Entry(VOTE), ["\x1b", "\t", "2"])
    assert entry is not None and entry.typed == "2" and not effects
