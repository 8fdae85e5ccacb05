"""The table loop: drives a variant script in real time for people at a table.

Windows last their full length whatever happens; secrets appear only inside the
owner's window and the screen (with its scroll-back) is wiped before the sleep
line; keys pressed when nothing is asked are discarded without a trace.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from narrator.drive import Driver
from narrator.host.ports import BACKSPACE, ENTER, INTERRUPT, Clock, Keys, Screen, Voice
from narrator.record import GameRecord
from narrator.rules.answers import Answer
from narrator.rules.core import DealCard, Outcome, Prompt, Say, Secret, Show, Timer, Wake
from narrator.rules.errors import NarratorError
from narrator.voice.catalog import Catalog

_LOGGER = logging.getLogger(__name__)

TICK = 0.1  # how often countdowns are redrawn, seconds
DEMO_WINDOW_S = 3.0
DEMO_DISCUSSION_S = 5.0


class GameStopped(Exception):
    """The table confirmed that it wants to stop the game."""


def keypad_text(typed: str) -> str:
    """Turn keypad input into an answer text: ``0`` nobody, ``*13`` centre cards 1 and 3."""
    text = typed.strip()
    if text == "0":
        return "none"
    if text[:1] in {"*", "c", "C", "."} and text[1:].replace(" ", "").isdigit():
        return "center " + " ".join(text[1:].replace(" ", ""))
    return text


def bar(left: float, total: float, width: int = 20) -> str:
    filled = round(width * left / total) if total > 0 else 0
    return "█" * filled + "░" * (width - filled)


@dataclass
class TableSettings:
    game: str
    players: int
    lang: str = "ru"
    seed: int | None = None
    options: dict[str, Any] = field(default_factory=dict)
    answer_s: float = 60.0
    demo: bool = False
    record_dir: Path | None = None


class TableDriver(Driver):
    """Meets every step of the script at a real table with a clock."""

    def __init__(
        self,
        catalog: Catalog,
        record: GameRecord,
        *,
        voice: Voice,
        screen: Screen,
        keys: Keys,
        clock: Clock,
        answer_s: float,
    ) -> None:
        super().__init__(catalog, record)
        self.voice = voice
        self.screen = screen
        self.keys = keys
        self.clock = clock
        self.answer_s = answer_s
        self._window: Wake | None = None
        self._window_end = 0.0
        self._window_prompt: Prompt | None = None
        self._window_title = ""
        self._last_line = ""
        self._reason = ""

    def t(self, key: str, **params: object) -> str:
        return self.catalog.text(key, params)

    # --- spoken lines ------------------------------------------------------------------

    def say(self, key: str, text: str) -> None:
        self._last_line = text
        self.voice.say(text)
        self._discard_keys()

    def _discard_keys(self) -> None:
        """Wrong-time input is inert: read and drop whatever was typed."""
        while (key := self.keys.read(0)) is not None:
            if key == INTERRUPT:
                self._confirm_stop()

    # --- wake windows --------------------------------------------------------------------

    def wake(self, step: Wake) -> None:
        self._window = step
        self._window_end = self.clock.now() + step.seconds
        self._window_prompt = None
        self._window_title = self._last_line
        self.keys.expect(None)
        self.screen.clear()
        self.screen.line(self._window_title)
        self.screen.line(self.t("screen.keys"))

    def ask(self, prompt: Prompt) -> Answer:
        self.record.add("prompt", id=prompt.id, seats=list(prompt.seats))
        if self._window is not None:
            self._window_prompt = prompt
            deadline = self._window_end
            label = ""
        else:
            deadline = self.clock.now() + self.answer_s
            label = self._label(prompt)
        self.keys.expect(prompt)
        typed = ""
        shown_reason = ""
        while (left := deadline - self.clock.now()) > 0:
            self.screen.status(self._status(left, deadline, label, typed, shown_reason))
            key = self.keys.read(min(TICK, left))
            if key is None:
                continue
            if key == INTERRUPT:
                self._confirm_stop()
            elif key == ENTER:
                if not typed.strip():
                    continue
                answer = self.attempt(prompt, keypad_text(typed), answered=False)
                typed = ""
                if answer is not None:
                    self.screen.line(f"{label} {answer} — {self.t('screen.accepted')}".strip())
                    return answer
                shown_reason = self._reason
            elif key == BACKSPACE:
                typed = typed[:-1]
            elif key.isprintable():
                typed += key
                shown_reason = ""
        self.screen.status("")
        return self.expire(prompt)

    def _label(self, prompt: Prompt) -> str:
        if prompt.id.startswith("d") and ".vote." in prompt.id and prompt.seats:
            return self.t("screen.vote_for", seat=prompt.seats[0])
        return self.t("screen.answer_for", prompt=prompt.id)

    def _status(self, left: float, deadline: float, label: str, typed: str, reason: str) -> str:
        total = self._window.seconds if self._window is not None else self.answer_s
        parts = [bar(left, total), self.t("screen.remaining", seconds=f"{left:4.1f}")]
        if label:
            parts.append(label)
        parts.append(self.t("screen.entry", text=typed + "_"))
        if reason:
            parts.append(self.t("screen.rejected", reason=reason))
        return "  ".join(parts)

    def rejected(self, prompt: Prompt, text: str, error: NarratorError) -> None:
        """Silent rejection: a reason on screen only, the window keeps running."""
        self._reason = self.t(error.key, **error.params) if error.key else str(error)

    def show(self, step: Show) -> None:
        self.screen.line("")
        self.screen.line(">>> " + self._secret_text(step.secret) + " <<<")

    def _secret_text(self, secret: Secret) -> str:
        if secret.kind == "roles":
            names = tuple(self.t(f"role.{r}") for r in secret.values)
            return self.t("screen.secret_roles", roles=", ".join(names))
        if secret.kind == "seats":
            if not secret.values:
                return self.t("screen.secret_lone")
            return self.t("screen.secret_seats", seats=", ".join(secret.values))
        return self.t("screen.secret_token", token=" ".join(secret.values))

    def sleep(self) -> None:
        """Run the window to its full length, refusing late answers, then wipe the screen."""
        answered = self._window_prompt
        self.keys.expect(None)
        typed = ""
        reason = ""
        while (left := self._window_end - self.clock.now()) > 0:
            self.screen.status(self._status(left, self._window_end, "", typed, reason))
            key = self.keys.read(min(TICK, left))
            if key is None:
                continue
            if key == INTERRUPT:
                self._confirm_stop()
            elif answered is None:
                continue  # nobody is awake to answer: input is inert
            elif key == ENTER and typed.strip():
                self.attempt(answered, keypad_text(typed), answered=True)
                typed, reason = "", self._reason
            elif key == BACKSPACE:
                typed = typed[:-1]
            elif key.isprintable():
                typed += key
        self._window = None
        self._window_prompt = None
        self.screen.clear()
        self.screen.line(self.t("screen.asleep"))

    # --- dealing, timers ---------------------------------------------------------------------

    def _wait_enter(self) -> None:
        while True:
            key = self.keys.read(TICK)
            if key == INTERRUPT:
                self._confirm_stop()
            elif key == ENTER:
                return

    def deal_card(self, step: DealCard) -> None:
        self.keys.expect(None)
        self.screen.clear()
        self.screen.line(self.t("screen.deal_wait", seat=step.seat))
        self._wait_enter()
        names = ", ".join(self.t(f"role.{r}") for r in step.secret.values)
        self.screen.line("")
        self.screen.line(">>> " + self.t("screen.deal_card", roles=names) + " <<<")
        self.screen.line(self.t("screen.deal_hide"))
        self.keys.expect(None)
        self._wait_enter()
        self.screen.clear()

    def timer(self, step: Timer) -> None:
        """A public countdown; Enter ends it early. Warnings are spoken on time."""
        end = self.clock.now() + step.seconds
        warnings = sorted(self.timer_warnings(step), reverse=True)
        self.keys.expect(None)
        while (left := end - self.clock.now()) > 0:
            while warnings and left <= warnings[0][0]:
                self.carry_out(Say(warnings.pop(0)[1]))
            minutes, seconds = divmod(int(left + 0.999), 60)
            remaining = f"{minutes}:{seconds:02d}"
            self.screen.status(
                f"{bar(left, step.seconds)}  " + self.t("screen.discussion", remaining=remaining)
            )
            key = self.keys.read(min(TICK, left))
            if key == INTERRUPT:
                self._confirm_stop()
            elif key == ENTER:
                break
        self.screen.status("")

    # --- stopping ----------------------------------------------------------------------------

    def _confirm_stop(self) -> None:
        self.screen.line("")
        self.screen.line(self.t("screen.confirm_quit"))
        while True:
            key = self.keys.read(TICK)
            if key in {"y", "Y", "д", "Д", INTERRUPT}:
                raise GameStopped
            if key is not None:
                self.screen.line(self.t("screen.resumed"))
                return

    def finished(self, outcome: Outcome) -> None:
        winner = self.t(f"winner.{outcome.winner}") if outcome.winner else "—"
        self.screen.line("")
        self.screen.line(self.t("screen.winner", winner=winner))


def play_at_table(settings: TableSettings) -> int:
    """Build the table from settings, play one whole game, keep its record."""
    from narrator.host.demo import DemoKeys
    from narrator.host.journal import Journal, default_record_dir
    from narrator.host.terminal import PrintVoice, RealClock, Terminal
    from narrator.rules.core import shuffled_deal
    from narrator.rules.registry import check_players, get_variant, make_switches
    from narrator.voice.catalog import load_catalog

    variant = get_variant(settings.game)
    check_players(variant, settings.players)
    options = dict(settings.options)
    if settings.demo:
        options.setdefault("window_s", DEMO_WINDOW_S)
        options.setdefault("discussion_s", DEMO_DISCUSSION_S)
    switches = make_switches(variant, options)
    catalog = load_catalog(settings.lang)
    seed = settings.seed if settings.seed is not None else random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    deal = shuffled_deal(variant.composition(settings.players, switches), settings.players, rng)
    journal = Journal(settings.record_dir or default_record_dir(), variant.name)
    record = GameRecord(journal.append)
    record.start(
        game=variant.name,
        lang=settings.lang,
        seed=seed,
        players=settings.players,
        options=switches.model_dump(),
        deal={"seats": list(deal.seats), "center": list(deal.center)},
    )
    with Terminal() as terminal:
        keys: Keys = DemoKeys(random.Random(seed + 1)) if settings.demo else terminal
        if settings.demo:
            terminal.line(catalog.text("screen.demo"))
        driver = TableDriver(
            catalog,
            record,
            voice=PrintVoice(terminal),
            screen=terminal,
            keys=keys,
            clock=RealClock(),
            answer_s=settings.answer_s,
        )
        try:
            driver.run(variant.new_game(deal, switches, rng))
        except (GameStopped, KeyboardInterrupt):
            record.add("aborted", phase=driver.phase)
            terminal.line(catalog.text("screen.quit"))
            terminal.line(catalog.text("screen.record", {"path": journal.path}))
            return 130
        except Exception as error:
            record.add("crashed", phase=driver.phase, error=repr(error))
            raise
        finally:
            journal.close()
        terminal.line(catalog.text("screen.record", {"path": journal.path}))
    return 0
