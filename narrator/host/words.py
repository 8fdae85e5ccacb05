"""What the table's screen says in words, in the game's language: the keys hint of a
night window, a secret as its owner sees it, a question and its accepted answer."""

from __future__ import annotations

from narrator.rules import codec
from narrator.rules.answers import Answer
from narrator.rules.answers import CenterAnswer
from narrator.rules.answers import SeatAnswer
from narrator.rules.core import Secret
from narrator.rules.core import Timer
from narrator.rules.prompts import Prompt
from narrator.rules.prompts import Tag
from narrator.voice.catalog import Catalog


def window_hint(catalog: Catalog, game: str, tag: Tag) -> str:
    """The key of a night window's keys hint: the window's own (which role wakes is
    public), true for every answer it takes and the same whether its role is held, in the
    centre, dead or absent; one with nothing to type says so (sport mafia's meeting)."""
    hints = (f"keys.{game}_{tag.phase}_{tag.action}", f"keys.{game}_{tag.action}", f"keys.{game}")
    return next((key for key in hints if key in catalog.lines), "screen.keys")


def question_of(label: str) -> str:
    """«Слово игроку номер 1.» of «Слово игроку номер 1. Enter без цифр — «Спасибо».»: the
    page line of an accepted answer names the question, not the keys of the moment."""
    question, keys, _ = label.partition(". Enter")
    return f"{question}." if keys else label


def secret_text(catalog: Catalog, tag: Tag, secret: Secret, answer: Answer | None = None) -> str:
    """The secret in words; cards seen are named by what ``answer`` looked at."""

    def t(key: str, **params: object) -> str:
        return catalog.text(key, params)

    if secret.kind == "roles":
        roles = ", ".join(t(f"role.{r}") for r in secret.values)
        if isinstance(answer, SeatAnswer):
            own = f"shown.{tag.action}_seat"  # the spirit's: the card he took from there
            key = own if own in catalog.lines else "screen.secret_seat_roles"
            return t(key, seat=answer.seat, roles=roles)
        if isinstance(answer, CenterAnswer):
            cards = ", ".join(str(card) for card in answer.cards)
            return t("screen.secret_center_roles", cards=cards, roles=roles)
        return t("screen.secret_roles", roles=roles)
    if secret.kind == "seats":
        action = tag.action
        if not secret.values:
            alone = f"shown.{action}_alone"
            return t(alone if alone in catalog.lines else "screen.secret_lone")
        key = f"shown.{action}" if f"shown.{action}" in catalog.lines else "shown.seats"
        return t(key, seats=", ".join(secret.values))
    verdict = t(f"secret.{secret.values[0]}")
    if isinstance(answer, SeatAnswer):  # a check: whom it is about
        return t("screen.secret_seat_token", seat=answer.seat, verdict=verdict)
    return verdict


def window_label(catalog: Catalog, game: str, prompt: Prompt) -> str:
    """A night question's own words, for a window that asks more than one (the
    witch's potion, then her poison); none for the others."""
    key = f"prompt.{game}.{prompt.action}"
    return catalog.text(key) if key in catalog.lines else ""


def prompt_label(catalog: Catalog, game: str, prompt: Prompt) -> str:
    """The on-screen question: ``prompt.<game>.<action>`` or ``prompt.<action>``."""
    action, about = prompt.tag.action, prompt.tag.about
    seat = "" if about is None else about
    for key in (f"prompt.{game}.{action}", f"prompt.{action}"):
        if key in catalog.lines:
            return catalog.text(key, {"seat": seat})
    return catalog.text("screen.answer_for", {"prompt": prompt.id})


def timer_label(catalog: Catalog, timer: Timer) -> str:
    """A countdown's words: its own (``label.<action>``), else a discussion's."""
    key = f"label.{timer.tag.action}"
    return catalog.text(
        key if key in catalog.lines else "label.discussion", {"seat": timer.seat or ""}
    )


def accepted_line(catalog: Catalog, label: str, answer: Answer) -> str:
    """«4 — Принято.», after the question by day."""
    shown = codec.shown(answer, catalog.word)
    return f"{question_of(label)} {shown} — {catalog.text('screen.accepted')}".strip()
