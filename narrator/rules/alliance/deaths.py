"""What follows a death (docs/games/alliance.md §4.7, §4.12): lovers, the win check, the
badge, the hunter's shot and the last words.

A win is checked right after each death batch (with its lovers), before the badge, the
hunter's shot and the last words.  After every announcement that contains a death a fixed
public pause (``hunter_s``) lets a hunter who may shoot do so; the pause and its input field
are the same when nobody can shoot, so they reveal nothing.

Both can come twice in one day (a death at dawn and an exile; a sheriff who receives the
badge and dies the same day).  Prompt ids stay unique within a game: the second time, the
id carries the seat it is about, ``d<k>.ability.<seat>`` (the first seat of the death batch
the pause follows) and ``d<k>.badge.<seat>`` (the sheriff who passes the badge).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from narrator.rules import kit
from narrator.rules import phases
from narrator.rules.alliance.prompts import badge_prompt
from narrator.rules.alliance.prompts import hunter_prompt
from narrator.rules.alliance.prompts import no_shot_prompt
from narrator.rules.alliance.resolution import may_shoot
from narrator.rules.alliance.roles import EXPLODED
from narrator.rules.alliance.roles import HUNTER
from narrator.rules.alliance.roles import LOVE
from narrator.rules.alliance.roles import SHOT
from narrator.rules.alliance.roles import WEREWOLF
from narrator.rules.alliance.table import Death
from narrator.rules.alliance.table import Table
from narrator.rules.answers import SeatAnswer
from narrator.rules.core import Badge
from narrator.rules.core import Eliminate
from narrator.rules.core import Flow
from narrator.rules.core import Outcome
from narrator.rules.core import Say
from narrator.rules.core import Timer
from narrator.rules.phases import PhaseId
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Seat
from narrator.rules.prompts import Tag
from narrator.rules.prompts import remembered


def announce_night(table: Table, deaths: Sequence[Death]) -> Flow[list[Death]]:
    """«Этой ночью погиб(ли) …» in seat order (causes unnamed), or «мирная ночь»."""
    seats = tuple(death.seat for death in deaths)
    if not seats:
        yield Say("alliance.peaceful_night")
        return []
    if len(seats) == 1:
        yield Say("alliance.night_death", {"seat": seats[0]})
    else:
        yield Say("alliance.night_deaths", {"seats": seats})
    batch = yield from fall(table, deaths)
    return batch


def fall(table: Table, deaths: Sequence[Death]) -> Flow[list[Death]]:
    """Seats leave the game; a lover still alive follows at once with the same rights."""
    batch: list[Death] = []
    for death in deaths:
        if death.seat not in table.alive:
            continue
        batch.append(death)
        yield from _leave(table, death)
    for death in list(batch):
        partner = table.partner(death.seat)
        if partner is not None and partner in table.alive:
            yield Say("alliance.love_death", {"seat": partner})
            follower = Death(partner, death.phase, LOVE, death.words)
            batch.append(follower)
            yield from _leave(table, follower)
    return batch


def _leave(table: Table, death: Death) -> Flow[None]:
    table.alive.remove(death.seat)
    table.fallen_today.append(death.seat)
    shown = WEREWOLF if death.cause == EXPLODED else None
    yield Eliminate(death.seat, death.phase, death.cause, shown)
    return None


def settle(table: Table, day: int, batch: Sequence[Death]) -> Flow[Outcome | None]:
    """A death batch announced: its aftermath, then the last words of those who have them."""
    words: list[Seat] = []
    outcome = yield from aftermath(table, day, batch, words)
    if outcome is not None:
        return outcome
    yield from last_words(table, day, words)
    return None


def aftermath(
    table: Table, day: int, batch: Sequence[Death], words: list[Seat], *, pause: bool = True
) -> Flow[Outcome | None]:
    """After a death batch: the win check, the badge, the hunter's pause and shot.

    ``words`` collects the seats that get last words, in order.
    """
    if not batch:
        return None
    outcome = yield from check(table, phases.day(day))
    if outcome is not None:
        return outcome
    if table.sheriff is not None and table.sheriff not in table.alive:
        yield from badge(table, day)
    words.extend(death.seat for death in batch if death.words)
    if not pause:
        return None
    hunter = next(
        (
            death
            for death in batch
            if table.role(death.seat) == HUNTER
            and may_shoot(death.cause, table.sw.hunter_shoots_on_love_death)
        ),
        None,
    )
    yield Say("alliance.ability")
    tag = table.once_more(phases.day(day), "ability", batch[0].seat)
    prompt = (
        _hunter_pause(day, hunter.seat, tuple(table.alive), table.players)
        if hunter is not None
        else _no_shot_pause(day, table.players, tag)
    )
    answer = yield Timer(tag, table.sw.hunter_s, None, (), prompt=prompt)
    if hunter is None or not isinstance(answer, SeatAnswer):
        return None
    yield Say("alliance.hunter_shot", {"hunter": hunter.seat, "seat": answer.seat})
    shot = yield from fall(table, [Death(answer.seat, phases.day(day), SHOT, hunter.words)])
    outcome = yield from aftermath(table, day, shot, words, pause=False)
    return outcome


# A public pause: whatever is typed, the table reacts alike, hunter or not.
def _hunter_pause(day: int, hunter: Seat, living: tuple[Seat, ...], players: int) -> Prompt:
    return replace(hunter_prompt(day, hunter, living, players), blind=True)


@remembered
def _no_shot_pause(day: int, players: int, tag: Tag) -> Prompt:
    return replace(no_shot_prompt(day, players, tag), blind=True)


def badge(table: Table, day: int) -> Flow[None]:
    """The dead sheriff passes the badge to a living player or destroys it (4.7-2)."""
    sheriff = table.sheriff
    assert sheriff is not None
    tag = table.once_more(phases.day(day), "badge", sheriff)
    yield Say("alliance.badge_call")
    answer = yield Timer(
        tag,
        table.sw.badge_s,
        sheriff,
        (),
        prompt=badge_prompt(day, sheriff, tuple(table.alive), table.players, tag),
        until_answer=True,
    )
    if isinstance(answer, SeatAnswer):
        table.sheriff = answer.seat
        yield Badge(answer.seat)
        yield Say("alliance.badge_passed", {"seat": answer.seat})
    else:
        table.sheriff = None
        yield Badge(None)
        yield Say("alliance.badge_destroyed")
    return None


def last_words(table: Table, day: int, seats: Sequence[Seat]) -> Flow[None]:
    for seat in seats:
        yield Say("alliance.last_words", {"seat": seat})
        yield Timer(Tag(phases.day(day), "last_word", seat), table.sw.last_words_s, seat)
    return None


def check(table: Table, phase: PhaseId) -> Flow[Outcome | None]:
    """The win check; when it holds, the winner is named and every card revealed."""
    winner = table.winner()
    if winner is None:
        return None
    yield Say(f"alliance.win_{winner}")
    sheriff = table.sheriff if table.sheriff in table.alive else None
    outcome = yield from kit.reveal(table.roles, winner, phase, sheriff=sheriff)
    return outcome
