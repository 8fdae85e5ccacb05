"""The full-screen table (textual): the Screen and Keys ports over one app.

The game runs in its own thread, exactly as in the text host; this module only
shows what the table loop tells it and passes keys back. Private things (a card,
a check, the digits typed at night) live on the *page*, which every ``clear``
wipes; the public log holds only what the narrator said.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import textwrap
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from typing import ClassVar

from rich.text import Text
from textual.app import App
from textual.app import ComposeResult
from textual.binding import Binding
from textual.binding import BindingType
from textual.containers import Vertical
from textual.containers import VerticalScroll
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Digits
from textual.widgets import ProgressBar
from textual.widgets import Static

from narrator.ports import BACKSPACE
from narrator.ports import ENTER
from narrator.ports import INTERRUPT
from narrator.ports import STOP_SIGNALS
from narrator.ports import UNDO
from narrator.ports import Live
from narrator.rules.core import PublicView
from narrator.screen.keys import STOP_GRACE_S
from narrator.screen.keys import PausableClock
from narrator.screen.keys import TuiKeys
from narrator.screen.remembered import SetupChoice
from narrator.screen.remembered import SetupValues
from narrator.screen.setup import SetupScreen
from narrator.voice.catalog import DAWN
from narrator.voice.catalog import Catalog
from narrator.voice.catalog import load_catalog
from narrator.voice.catalog import phase_in_words

if TYPE_CHECKING:
    from narrator.phones.at_table import PhoneLink

MIN_WIDTH, MIN_HEIGHT = 60, 20
# The fixed rows of the table page: phase bar, narrator line, seat ring, and the log's
# border plus its newest line; a prompt adds its label, bar, digits and reason; a secret
# adds its frame and padding around its lines.
FIXED_ROWS, LIVE_ROWS, SECRET_FRAME, PAGE_ROWS = 1 + 3 + 3 + 2, 6, 4, 8


# Keys that would change what the table hears at night: pausing stops the
# knocks and stretches the window, repeating says the wake line again. At night they do
# nothing (nor do / 1 and / 2), so a key press cannot tell the table that the called role
# is awake.
PAUSE_KEYS = frozenset({"p", "P", "з", "З"})
REPEAT_KEYS = frozenset({"r", "R", "к", "К"})
UNDO_KEYS = frozenset({"u", "U", "г", "Г"})  # take back the last day answer (the table asks)


class HelpScreen(ModalScreen[None]):
    """The keys, and the keypad's menu: 1 pause, 2 repeat, 3 take back, 0 stop.

    The same key closes it (``?``, Esc, Enter, q, or the keypad's ``/``).
    """

    CLOSE = frozenset({"escape", "question_mark", "q", "enter", "slash"})

    def __init__(
        self,
        text: str,
        stop: Callable[[], None] | None = None,
        pause: Callable[[], None] | None = None,
        repeat: Callable[[], None] | None = None,
        undo: Callable[[], None] | None = None,
    ) -> None:
        super().__init__()
        self.text = text
        self.menu = {"0": stop, "1": pause, "2": repeat, "3": undo}

    def on_key(self, event: Any) -> None:
        event.stop()  # the table behind must not take this press (it would reopen the help)
        if self.app.screen is not self:  # two quick keys: the first closed it already, and
            return  # a second dismissal would pop the table beneath
        if event.key in self.CLOSE:
            self.dismiss()
        elif (work := self.menu.get(event.key)) is not None:  # the keypad's P, R and Esc
            self.dismiss()
            work()

    def compose(self) -> ComposeResult:
        yield Static(self.text, id="help")


class TailLog(Widget):
    """What the narrator said, newest line at the bottom, always in sight.

    It draws, each time it is drawn, only the lines that fit the height it has then
    (wrapped to its width): it cannot show older lines when the page above it grows,
    not even for the frame between the page's growth and its own resize.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.lines: list[str] = []

    def add(self, line: str) -> None:
        self.lines.append(line)
        self.refresh()

    def render(self) -> Text:
        width, height = self.content_region.width, self.content_region.height
        if width <= 0 or height <= 0:
            return Text("")
        rows: list[str] = []
        for line in reversed(self.lines):
            rows[:0] = textwrap.wrap(line, width) or [""]
            if len(rows) >= height:
                break
        return Text("\n".join(rows[-height:]))


class TableApp(App[int]):
    """The table screen. ``game`` runs in a thread with this app's Screen and Keys."""

    # Ctrl+Q and Ctrl+C ask the same stop question as Esc instead of quitting at once, or
    # showing textual's English hint; on the set-up screen they leave.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "ask_stop", "stop", priority=True),
        Binding("ctrl+c", "ask_stop", "stop", priority=True, show=False),
    ]

    CSS = """
    Screen { background: #0b0b0e; color: #d8d8d8; }
    #phase { height: 1; background: #1b1b22; padding: 0 1; }
    #narrator { height: 3; content-align: center middle; text-style: bold; color: #f0e6c8; }
    #table { height: 3; content-align: center middle; }
    #live { height: auto; padding: 0 2; }
    #label { height: auto; content-align: center middle; }
    #countdown { width: 100%; }
    #typed { width: auto; }
    #reason { height: 1; color: #ff8a80; content-align: center middle; }
    #secret { height: auto; min-height: 3; border: heavy #e0b341; content-align: center middle;
              text-style: bold; color: #ffe08a; padding: 1 2; }
    #page { height: auto; padding: 0 2; color: #b8b8c8; }
    #log { height: 1fr; border-top: solid #333344; color: #9090a0; padding: 0 1; }
    #end { height: 1fr; border-top: solid #333344; color: #c8c8d0; padding: 0 1; }
    #help { width: 70; max-width: 100%; height: auto; max-height: 100%; border: round #888;
            padding: 1 2; background: #16161c; }
    HelpScreen { align: center middle; }
    #small { display: none; width: 100%; height: 100%; content-align: center middle;
             text-style: bold; color: #ffe08a; }
    .hidden { display: none; }
    Screen.tiny > * { display: none; }
    Screen.tiny > #small { display: block; }
    """

    def __init__(
        self,
        catalog: Catalog,
        game: Callable[[TableApp], int],
        clock: PausableClock,
        *,
        on_pause: Callable[[bool], None] | None = None,
        on_repeat: Callable[[str], None] | None = None,
        setup: SetupValues | None = None,
        config: Path | None = None,
        phones: PhoneLink | None = None,
    ) -> None:
        super().__init__()
        self.setup = setup  # shown first when given
        self.phones = phones  # served by the set-up screen while its choice is on
        self.choice: SetupChoice | None = None  # what it chose
        self.config = config
        self.catalog = catalog
        self.game = game
        self.clock = clock
        self.keys = TuiKeys(clock)
        self.on_pause = on_pause
        self.on_repeat = on_repeat
        self.last_said = ""
        self.finished = False
        self.ended = False  # the end screen is up (the game may still be saving its record)
        self.leaving = False  # a leave key pressed while it saves: leave as soon as it is done
        self.code = 0
        self.page_lines: list[str] = []
        self.secret_text = ""
        self._thread: threading.Thread | None = None
        self.error: BaseException | None = None
        self.events: list[tuple[str, str]] = []  # what the screen was told, in order
        self.live_view: Live | None = None
        self.night = False  # from the public phase: pausing and repeating are off at night
        self.phase_text = ""  # the phase bar, shown again after a pause
        self.ring_text = ""  # the seats around the table
        self.farewell: list[str] | None = None  # printed after leaving: end or stop, paths
        self.stopped = False  # the game was stopped, not played to its end

    def t(self, key: str, **params: object) -> str:
        return self.catalog.text(key, params)

    def compose(self) -> ComposeResult:
        yield Static("", id="phase")
        yield Static("", id="narrator")
        yield Static("", id="table")
        with Vertical(id="live", classes="hidden"):
            yield Static("", id="label")
            yield ProgressBar(total=100, show_eta=False, show_percentage=False, id="countdown")
            yield Digits("", id="typed")
            yield Static("", id="reason")
        yield Static("", id="secret", classes="hidden")
        yield Static("", id="page")
        yield TailLog(id="log")
        with VerticalScroll(id="end", classes="hidden"):
            yield Static("", id="end-lines")
        yield Static("", id="small")

    def on_mount(self) -> None:
        self.title = "narrator"
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop = asyncio.get_running_loop()  # no signal handlers on Windows' loop
            for name in STOP_SIGNALS:
                if hasattr(signal, name):
                    signum = getattr(signal, name)
                    loop.add_signal_handler(signum, self.terminate, signum)
        self._show_setup_phase()
        if self.setup is None:
            self._start_game()
            return
        setup = SetupScreen(self.catalog, self.setup, self.config, phones=self.phones)
        self.push_screen(setup, self._chosen)

    def _chosen(self, choice: SetupChoice | None) -> None:
        self.choice = choice
        if choice is not None:
            self.catalog = load_catalog(choice.settings.lang)
            self._show_setup_phase()  # «The deal» in the game's language, not the set-up's
        self._start_game()

    def _show_setup_phase(self) -> None:
        self.phase_text = self.t("tui.phase", phase=self.t("tui.phase_setup"))
        self.query_one("#phase", Static).update(self.phase_text)

    def _start_game(self) -> None:
        self._thread = threading.Thread(target=self._play, name="game", daemon=True)
        self._thread.start()

    def _play(self) -> None:
        try:
            self.code = self.game(self)
        except BaseException as error:  # shown, then re-raised by the caller after exit
            self.error = error
            self.code = 1
        self.finished = True
        self._call(self._show_finished)

    def _call(self, work: Callable[[], Any]) -> None:
        """Run ``work`` in the app's thread; a game outliving the app is ignored."""
        if not self.is_running:
            return
        with contextlib.suppress(RuntimeError):
            self.call_from_thread(work)

    def _show_finished(self) -> None:
        if self.leaving:
            self.exit(self.code)
            return
        if self.error is not None:  # why there is no game: on the screen, not only after it
            reason = str(self.error) or type(self.error).__name__
            self.show_clear()
            self.query_one("#narrator", Static).update(self.t("tui.failed", reason=reason))
            self.show_line(self.t("tui.failed", reason=reason))
        self.query_one("#phase", Static).update(self.leave_text())

    # --- keys ------------------------------------------------------------------------------

    # The keys passed on to the table loop while the game runs, as the loop reads them.
    PRESSED: ClassVar[dict[str, str]] = {
        **dict.fromkeys(UNDO_KEYS, UNDO),  # the table asks first; at night it does nothing
        "escape": INTERRUPT,
        "enter": ENTER,
        "backspace": BACKSPACE,
        "space": " ",  # a separator between seats; a shot in call mode
    }
    END_SCROLL: ClassVar[dict[str, str]] = {
        **dict.fromkeys(("8", "up"), "scroll_up"),
        **dict.fromkeys(("2", "down"), "scroll_down"),
        **dict.fromkeys(("9", "pageup"), "scroll_page_up"),
        **dict.fromkeys(("3", "pagedown"), "scroll_page_down"),
    }

    def on_key(self, event: Any) -> None:
        key = event.key
        event.stop()
        if self.finished or self.ended:
            self._end_key(key)
        elif self._thread is None:
            return  # the set-up screen has the keys
        elif key in {"question_mark", "slash"}:
            # After this key is handled: the help screen must not take the same press as "close".
            self.call_later(self.push_screen, self._help_screen())
        elif key in PAUSE_KEYS:
            self.toggle_pause()
        elif key in REPEAT_KEYS:
            self.repeat()
        elif (pressed := self.PRESSED.get(key)) is not None:
            self.keys.press(pressed)
        elif event.character and event.character.isprintable():
            self.keys.press(event.character)

    def _help_screen(self) -> HelpScreen:
        return HelpScreen(
            self.t("tui.help"),
            stop=lambda: self.keys.press(INTERRUPT),
            pause=self.toggle_pause,
            repeat=self.repeat,
            undo=lambda: self.keys.press(UNDO),
        )

    def _end_key(self, key: str) -> None:
        """On the end screen: Esc, q or Enter leave (once the record is written), the
        arrows and 8/2/9/3 scroll."""
        if key in {"escape", "q", "enter"}:
            if self.finished:
                self.exit(self.code)
            else:
                self.leaving = True  # the record is being written: leave right after
        elif (scroll := self.END_SCROLL.get(key)) is not None:
            getattr(self.query_one("#end", VerticalScroll), scroll)(animate=False)

    def leave_text(self) -> str:
        """The end screen's bar: how to leave, and whether the game ended or was stopped."""
        if self.error is not None:
            return self.t("tui.leave_failed")
        return self.t("tui.leave_stopped" if self.stopped else "tui.leave")

    def toggle_pause(self) -> None:
        """P (or / 1): the clock and the sound stand still; at night it does nothing."""
        if self.night:
            return  # at night pausing would be heard: someone is awake at the keyboard
        paused = self.clock.toggle()
        if self.on_pause is not None:
            self.on_pause(paused)
        phase = self.query_one("#phase", Static)
        phase.update(self.t("tui.paused") if paused else self.phase_text)

    def repeat(self) -> None:
        """R (or / 2): say the last line again; at night it does nothing."""
        if not self.night and self.on_repeat is not None and self.last_said:
            self.on_repeat(self.last_said)

    def terminate(self, signum: int) -> None:
        """SIGTERM or SIGHUP: the secret leaves the screen at once; the game stops as
        Esc then 1 stops it (its record says «aborted»), and the app leaves, restoring
        the terminal. A game that does not stop in ``STOP_GRACE_S`` is left behind."""
        code = 128 + signum
        if self._thread is None or self.finished:
            self.exit(code)
            return
        with contextlib.suppress(NoMatches):  # a help page may be over the table
            self.show_clear()
        self.leaving = True
        self.keys.terminate(signum)
        self.set_timer(STOP_GRACE_S, lambda: self.exit(code))

    def action_ask_stop(self) -> None:
        if self.finished or self._thread is None:
            self.exit(self.code)
        else:
            self.keys.press(INTERRUPT)

    def on_resize(self, event: Any) -> None:
        self._fit(event.size)

    def _rows(self, text: str, width: int) -> int:
        """How many terminal rows ``text`` takes once wrapped at ``width`` columns."""
        return sum(
            max(1, len(Text(line).wrap(self.console, max(width, 1))))
            for line in text.splitlines() or [""]
        )

    def _page_tail(self, width: int, most: int = PAGE_ROWS) -> list[str]:
        """The newest page lines that fit in ``most`` rows once wrapped (``#page`` pads 2):
        PAGE_ROWS, or fewer when the terminal has less room (older lines, the keys' hints
        first, give way to a question asked at 80×24 over a night window's box).

        A line the narrator row above shows already (a window's wake line, said again on
        its page for the text host) is not drawn twice: at 80×24 the witch's window, its
        box, both her answers and the keys fit only so.
        """
        tail: list[str] = []
        rows = 0
        for line in reversed(self.page_lines):
            if line == self.last_said:
                continue
            rows += self._rows(line, width - 4)
            if rows > most and tail:
                break
            tail.insert(0, line)
        return tail

    def needed_size(self, size: Any = None) -> tuple[int, int]:
        """The smallest terminal that shows the current page whole (the secret above all).

        Rows are counted wrapped at the terminal's width: a long label or page line takes
        more than one row, and a page that needs more than the terminal has is "too small".
        """
        size = size or self.size
        columns = size.width
        secret_lines = self.secret_text.splitlines() if self.secret_text else []
        width = max(MIN_WIDTH, len(self.ring_text) + 4, *(len(line) + 8 for line in secret_lines))
        page = self._page_tail(columns, self._page_room(size))
        height = self._rows_beside_page(columns) + sum(self._rows(row, columns - 4) for row in page)
        return width, max(MIN_HEIGHT, height)

    def _rows_beside_page(self, columns: int) -> int:
        """The rows everything but the page takes: bars, the live area, the secret's box."""
        height = FIXED_ROWS
        if not self.query_one("#live", Vertical).has_class("hidden"):
            label = self.live_view.label if self.live_view is not None else ""
            height += LIVE_ROWS - 1 + self._rows(label, columns - 4)
        if self.secret_text:
            height += len(self.secret_text.splitlines()) + SECRET_FRAME
        return height

    def _page_room(self, size: Any) -> int:
        """How many rows the page may take: PAGE_ROWS, less what a short terminal lacks."""
        return max(1, min(PAGE_ROWS, int(size.height) - self._rows_beside_page(size.width)))

    def _fit(self, size: Any = None) -> None:
        """Too small a terminal: one full page asking for more, never a cut secret."""
        if self.finished or self.ended:
            return  # the end is scrolled, whatever the size
        size = size or self.size
        page = self._page_tail(size.width, self._page_room(size))
        self.query_one("#page", Static).update("\n".join(page))
        width, height = self.needed_size(size)
        too_small = size.width < width or size.height < height
        self.query_one("#small", Static).update(self.t("tui.too_small", width=width, height=height))
        self.screen_stack[0].set_class(too_small, "tiny")

    # --- what the Screen port does, in the app's thread ------------------------------------

    def show_said(self, text: str) -> None:
        self.events.append(("said", text))
        self.last_said = text
        self.query_one("#narrator", Static).update(text)
        self.query_one("#log", TailLog).add(f"» {text}")
        self._fit()  # the page shows again a line it left to the narrator row

    def _follow_log(self) -> None:
        """After the page changed: the size it needs (the log redraws on its own resize)."""
        self._fit()

    def show_line(self, text: str) -> None:
        self.events.append(("line", text))
        if text == self.t("screen.quit"):
            self.stopped = True
            self.farewell = []  # stopped: what follows (the record's path) is printed too
        if self.farewell is not None:
            self.farewell.append(text)
        if self._lasting(text):  # wiped from the page by the next step: kept in the log too
            self.query_one("#log", TailLog).add(f"! {text}")
        self.page_lines.append(text)
        self.query_one("#page", Static).update("\n".join(self._page_tail(self.size.width)))
        self._follow_log()

    def _lasting(self, text: str) -> bool:
        """A line the table must still see after the page is wiped: the record is not kept."""
        keys = ("screen.record_off", "screen.record_cut")
        return any(text.startswith(self.catalog.lines[key].split("{")[0]) for key in keys)

    def show_live(self, view: Live | None) -> None:
        live = self.query_one("#live", Vertical)
        before, self.live_view = self.live_view, view
        if view is None:
            if not live.has_class("hidden"):
                live.add_class("hidden")
                self._follow_log()
            return
        if live.has_class("hidden"):
            live.remove_class("hidden")
            self._follow_log()
        elif before is None or before.label != view.label:
            self._follow_log()  # a longer label may wrap onto more rows
        self.query_one("#label", Static).update(view.label)
        bar = self.query_one("#countdown", ProgressBar)
        bar.update(total=max(view.total, 0.001), progress=max(view.left, 0.0))
        shown = view.typed.replace(" ", "·")
        if not shown and view.kind == "timer":  # a speech: its seconds, large
            shown = f"{int(view.left + 0.999) // 60}:{int(view.left + 0.999) % 60:02d}"
        self.query_one("#typed", Digits).update(shown or " ")
        self.query_one("#reason", Static).update(view.reason)

    def show_secret(self, text: str) -> None:
        self.events.append(("secret", text))
        self.secret_text = text
        secret = self.query_one("#secret", Static)
        secret.update(text)
        secret.remove_class("hidden")
        self._follow_log()

    def show_clear(self) -> None:
        self.events.append(("clear", ""))
        self.secret_text = ""
        self.page_lines = []
        self.query_one("#secret", Static).add_class("hidden")
        self.query_one("#secret", Static).update("")
        self.query_one("#page", Static).update("")
        self.query_one("#live", Vertical).add_class("hidden")
        self._follow_log()

    def show_table(self, view: PublicView, speaker: int | None) -> None:
        self.night = view.phase.by_night and not view.dawn
        alive = set(view.alive)
        seats = []
        for seat in range(1, view.players + 1):
            if seat == speaker:  # a seat out of the game still shows ✗ (last words, badge)
                seats.append(f"▶{seat}◀" if seat in alive else f"▶✗{seat}◀")
            elif seat in alive:
                seats.append(f"[{seat}]")
            else:
                seats.append(f" ✗{seat} ")
        self.ring_text = "  ".join(seats)
        self.query_one("#table", Static).update(self.ring_text)
        self.phase_text = self.t(
            "tui.phase", phase=phase_in_words(self.catalog, DAWN if view.dawn else view.phase)
        )
        if not self.clock.paused and not self.ended:
            self.query_one("#phase", Static).update(self.phase_text)
        self._fit()

    def show_end(self, title: str, lines: list[str]) -> None:
        """The end: every line in the scrollable log (8/2 or the arrows scroll it)."""
        self.show_clear()
        self.events.append(("end", title))
        self.query_one("#narrator", Static).update(title)
        self.page_lines = []  # the page keeps only what follows (the record's path)
        self.farewell = [title, *lines]
        self.screen_stack[0].remove_class("tiny")
        self.query_one("#log", TailLog).add_class("hidden")
        self.query_one("#end-lines", Static).update(Text("\n".join(lines)))
        end = self.query_one("#end", VerticalScroll)
        end.remove_class("hidden")
        end.scroll_home(animate=False)
        self.ended = True
        self.query_one("#phase", Static).update(self.leave_text())


class TuiScreen:
    """The Screen port: every call is carried out in the app's thread."""

    def __init__(self, app: TableApp) -> None:
        self.app = app

    def said(self, text: str) -> None:
        self.app._call(lambda: self.app.show_said(text))

    def line(self, text: str) -> None:
        self.app._call(lambda: self.app.show_line(text))

    def live(self, view: Live | None) -> None:
        self.app._call(lambda: self.app.show_live(view))

    def secret(self, text: str) -> None:
        self.app._call(lambda: self.app.show_secret(text))

    def clear(self) -> None:
        self.app._call(self.app.show_clear)

    def table(self, view: PublicView, speaker: int | None) -> None:
        self.app._call(lambda: self.app.show_table(view, speaker))

    def end(self, title: str, lines: list[str]) -> None:
        self.app._call(lambda: self.app.show_end(title, lines))
