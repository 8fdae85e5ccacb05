"""The night of «Альянс дедукции» (docs/games/alliance.md §4.3–4.5): Cupid and the lovers,
guard, wolves, witch, seer, hunter.  Roles stay hidden at death, so each role in the deal is
called with the same words and window whether its holder lives or not (``call_dead_roles``)."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Sequence

from narrator.rules import kit
from narrator.rules import phases
from narrator.rules.alliance.prompts import cupid_prompt
from narrator.rules.alliance.prompts import guard_prompt
from narrator.rules.alliance.prompts import seer_prompt
from narrator.rules.alliance.prompts import witch_poison_prompt
from narrator.rules.alliance.prompts import witch_save_prompt
from narrator.rules.alliance.prompts import wolves_prompt
from narrator.rules.alliance.resolution import night_deaths
from narrator.rules.alliance.roles import CUPID
from narrator.rules.alliance.roles import GUARD
from narrator.rules.alliance.roles import HUNTER
from narrator.rules.alliance.roles import SEER
from narrator.rules.alliance.roles import WEREWOLF
from narrator.rules.alliance.roles import WITCH
from narrator.rules.alliance.table import Death
from narrator.rules.alliance.table import Table
from narrator.rules.answers import Answer
from narrator.rules.answers import SeatAnswer
from narrator.rules.answers import SeatsAnswer
from narrator.rules.answers import YesNo
from narrator.rules.chance import drawn_seats
from narrator.rules.core import NO_SEAT
from narrator.rules.core import Ask
from narrator.rules.core import Decoy
from narrator.rules.core import Flow
from narrator.rules.core import Phase
from narrator.rules.core import Say
from narrator.rules.core import Secret
from narrator.rules.core import Show
from narrator.rules.core import Wake
from narrator.rules.core import asked_of_nobody
from narrator.rules.core import decoy
from narrator.rules.kit import window
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Seat
from narrator.rules.prompts import Tag


def night_of(table: Table, night: int) -> Flow[list[Death]]:
    """Every call of the night in order; the deaths it causes, announced at dawn."""
    yield Phase(phases.night(night))
    yield Say("alliance.night_falls")
    if night == 1 and table.seats_with(CUPID):
        yield from cupid_call(table)
    guarded = yield from guard_call(table, night)
    victim = yield from wolves_call(table, night)
    saved, poisoned = yield from witch_call(table, night, victim)
    yield from seer_call(table, night)
    yield from hunter_call(table, night, poisoned)
    deaths = night_deaths(victim, guarded, saved, poisoned, table.lovers)
    return [Death(seat, phases.night(night), cause, night == 1) for seat, cause in deaths]


def cupid_call(table: Table) -> Flow[None]:
    """Cupid binds two lovers (a pair drawn at random if he does not), who then meet."""
    sw = table.sw
    drawn = yield drawn_seats("n1.lovers_drawn", range(1, table.players + 1), 2, table.players)
    if not isinstance(drawn, SeatsAnswer):
        raise TypeError(f"n1.lovers_drawn: the driver gave {drawn!r}, not two seats")
    default = sorted(s for s in drawn.seats if s is not None)
    awake = table.living_with(CUPID)
    pair = yield from window(
        "alliance.cupid_wake",
        Wake(Tag(phases.night(1), "cupid"), sw.window(sw.cupid_s), awake),
        "alliance.cupid_sleep",
        choose_lovers(table, awake, (default[0], default[1])),
    )
    table.lovers = pair
    lovers = Tag(phases.night(1), "lovers")
    yield from window(
        "alliance.lovers_wake",
        Wake(lovers, sw.window(sw.lovers_s), pair),
        "alliance.lovers_sleep",
        kit.steps(
            Show(lovers, (pair[0],), Secret.seats((pair[1],))),
            Show(lovers, (pair[1],), Secret.seats((pair[0],))),
        ),
    )
    return None


def choose_lovers(
    table: Table, awake: Sequence[Seat], pair: tuple[Seat, Seat]
) -> Flow[tuple[Seat, Seat]]:
    for cupid in awake:
        answer = yield Ask(cupid_prompt(cupid, table.players, pair))
        if isinstance(answer, SeatsAnswer):
            first, second = sorted(s for s in answer.seats if s is not None)
            pair = (first, second)
    return pair


def guard_call(table: Table, night: int) -> Flow[Seat | None]:
    guarded = yield from table.call(
        GUARD,
        Tag(phases.night(night), "guard"),
        table.sw.guard_s,
        lambda awake: protect(table, night, awake),
        decoy(guard_prompt(night, NO_SEAT, tuple(table.alive), None, table.players)),
    )
    return guarded


def protect(table: Table, night: int, awake: Sequence[Seat]) -> Flow[Seat | None]:
    target: Seat | None = None
    for guard in awake:
        answer = yield Ask(
            guard_prompt(night, guard, tuple(table.alive), table.guarded, table.players)
        )
        target = answer.seat if isinstance(answer, SeatAnswer) else None
        table.guarded = target  # a skip clears the ban (D-12)
    return target


def wolves_call(table: Table, night: int) -> Flow[Seat | None]:
    sw = table.sw
    wolves = table.living_with(WEREWOLF)
    first = night == 1
    victim = yield from window(
        "alliance.wolves_wake_first" if first else "alliance.wolves_wake",
        Wake(
            Tag(phases.night(night), "wolves"),
            sw.window(sw.wolves_first_s if first else sw.wolves_s),
            wolves,
            meet=first,  # «Оборотни, проснитесь и узнайте друг друга» (docs/games/alliance.md §4.4)
        ),
        "alliance.wolves_sleep",
        hunt(table, night, wolves),
    )
    return victim


def hunt(table: Table, night: int, wolves: Sequence[Seat]) -> Flow[Seat | None]:
    if not wolves:
        return None
    answer = yield Ask(wolves_prompt(night, wolves, tuple(table.alive), table.players))
    return answer.seat if isinstance(answer, SeatAnswer) else None


def witch_call(table: Table, night: int, victim: Seat | None) -> Flow[tuple[bool, Seat | None]]:
    """One window, the victim on screen while the antidote lasts, save first (4.4)."""
    potions = yield from table.call(
        WITCH,
        Tag(phases.night(night), "witch_save"),
        table.sw.witch_s,
        lambda awake: brew(table, night, awake, victim),
        Decoy(witch_questions(table, night)),
    )
    return (False, None) if potions is None else potions


def witch_questions(table: Table, night: int) -> Callable[[tuple[Answer, ...]], Prompt | None]:
    """The witch's two questions asked of nobody: both potions left, a victim anyone
    (what only the witch knows is left out), one potion a night as the switch says."""
    sw, players, alive = table.sw, table.players, tuple(table.alive)
    save = asked_of_nobody(witch_save_prompt(night, NO_SEAT, NO_SEAT, True, "always", players))

    def questions(answers: tuple[Answer, ...]) -> Prompt | None:
        if not answers:
            return save
        if len(answers) > 1:
            return None
        saved = isinstance(answers[0], YesNo) and answers[0].yes
        poison = witch_poison_prompt(
            night, NO_SEAT, alive, True, saved, sw.witch_both_same_night, players
        )
        return asked_of_nobody(poison)

    return questions


def brew(
    table: Table, night: int, awake: Sequence[Seat], victim: Seat | None
) -> Flow[tuple[bool, Seat | None]]:
    """The witch's window is named by its first prompt, and so is the victim shown in it."""
    sw = table.sw
    tag = Tag(phases.night(night), "witch_save")
    saved, poisoned = False, None
    for witch in awake:
        if table.antidote or sw.witch_sees_victim_after_antidote:
            shown = Secret.seats((victim,)) if victim is not None else Secret.token("none")
            yield Show(tag, (witch,), shown)
        if table.antidote:
            answer = yield Ask(
                witch_save_prompt(
                    night, witch, victim, table.antidote, sw.witch_self_save, table.players
                )
            )
            if isinstance(answer, YesNo) and answer.yes:
                saved, table.antidote = True, False
        if table.poison:
            answer = yield Ask(
                witch_poison_prompt(
                    night,
                    witch,
                    tuple(table.alive),
                    table.poison,
                    saved,
                    sw.witch_both_same_night,
                    table.players,
                )
            )
            if isinstance(answer, SeatAnswer):
                poisoned, table.poison = answer.seat, False
    return saved, poisoned


def seer_call(table: Table, night: int) -> Flow[None]:
    sw, living = table.sw, tuple(table.alive)
    yield from kit.check_call(
        ("alliance.seer_wake", "alliance.seer_sleep"),
        Tag(phases.night(night), "seer"),
        sw.window(sw.seer_s),
        table.called(SEER, sw.call_dead_roles),
        prompt=lambda seer: seer_prompt(night, seer, living, table.players),
        verdict=lambda seat: "werewolf" if table.role(seat) == WEREWOLF else "good",
        verdicts=("good", "werewolf"),
    )
    return None


def hunter_call(table: Table, night: int, poisoned: Seat | None) -> Flow[None]:
    """The shooting status: «не можешь стрелять» exactly when poisoned tonight (4.4)."""
    sw = table.sw
    tag = Tag(phases.night(night), "hunter")

    def status(awake: tuple[Seat, ...]) -> Flow[None]:
        for hunter in awake:
            yield Show(
                tag, (hunter,), Secret.token("cannot_shoot" if hunter == poisoned else "can_shoot")
            )
        return None

    yield from table.call(HUNTER, tag, sw.hunter_status_s, status, wanted=sw.hunter_status_call)
    return None
