"""The end screen: the story of the game that just ended, told in words.

Every seat's card and the centre cards, then each phase: who did what at night (the
answer and what it was shown, as it was shown), and who left and why. It holds every
secret of the game, so it is shown only once the game has ended.
"""

from __future__ import annotations

from collections.abc import Sequence

from narrator.host.words import secret_text
from narrator.rules import codec
from narrator.rules.core import Eliminate
from narrator.rules.prompts import Seat
from narrator.story import Act
from narrator.story import Seen
from narrator.story import Story
from narrator.voice.catalog import Catalog
from narrator.voice.catalog import phase_in_words


def end_screen(story: Story, catalog: Catalog) -> tuple[str, list[str]]:
    """The end screen's title (who won) and its lines."""

    def t(key: str, **params: object) -> str:
        return catalog.text(key, params)

    outcome = story.outcome
    winner = t(f"winner.{outcome.winner}") if outcome.winner else "—"
    lines = [
        t("reveal.seat", seat=seat, role=t(f"role.{role}"))
        for seat, role in sorted(outcome.reveal.items())
    ]
    lines += [
        t("reveal.center", index=i, role=t(f"role.{role}"))
        for i, role in enumerate(story.deal.center, start=1)
    ]
    return t("screen.winner", winner=winner), lines + _timeline(story, catalog)


def _timeline(story: Story, catalog: Catalog) -> list[str]:
    def t(key: str, **params: object) -> str:
        return catalog.text(key, params)

    def who(seats: Sequence[Seat]) -> str:
        """«шериф (8)», «мафия (3, 6)»: the seats with the card each was dealt."""
        return "; ".join(
            f"{t(f'role.{role}')} ({', '.join(map(str, held))})"
            for role, held in story.by_card(seats).items()
        )

    lines: list[str] = []
    for chapter in story.chapters:
        when = phase_in_words(catalog, chapter.phase)
        before: Act | Seen | None = None  # what was told just before, in this phase
        for moment in chapter.moments:
            if isinstance(moment, Eliminate):  # told in the phase it names
                cause = t(f"cause.{moment.cause}")
                gone = t("screen.player", seat=moment.seat)
                lines.append(f"{phase_in_words(catalog, moment.phase)}: {gone} — {cause}")
                before = None
            elif isinstance(moment, Act) and moment.at_night:
                answer = codec.shown(moment.answer, t)
                key = f"timeline.{moment.tag.action}"
                said = f", {t(key)}: {answer}" if key in catalog.lines else f" → {answer}"
                lines.append(f"{when}: {who(moment.seats)}{said}")
                before = moment
            elif isinstance(moment, Seen):
                found = _answered_by(before, moment)
                looked = found.answer if found is not None else None
                if moment.shown.secret.kind != "roles":
                    looked = None  # «проверка: 1 — ДА»: the seat is named already
                secret = secret_text(catalog, moment.tag, moment.shown.secret, looked)
                if found is not None:  # «…, проверка: 1 — ДА»
                    lines[-1] += f" — {secret}"
                else:
                    lines.append(f"{when}: {who(moment.to)} — {secret}")
                before = moment
    return lines


def _answered_by(before: Act | Seen | None, seen: Seen) -> Act | None:
    """The night answer told just before ``seen``, if ``seen`` is what it found out."""
    if isinstance(before, Act) and before.tag.action == seen.tag.action:
        return before if before.seats == seen.to else None
    return None
