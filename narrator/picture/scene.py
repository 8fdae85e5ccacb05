"""The picture of a finished game as shapes on a canvas, in the game's language.

Left, the table seen from above: every seat in its place clockwise from the top,
its number, its card (the game is over: everything may be shown), its team's
colour, crossed out with the phase and cause when it left the game, a star on
the sheriff. Right, the timeline: one block per night and per day, read left to
right and down, saying who did what at night (and what they were shown), who
nominated whom, every vote by target, the hands raised, and every elimination.

The shapes are plain data (:class:`Scene`), drawn by hand as SVG
(narrator.picture.svg) or through matplotlib as PNG (narrator.picture.png).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field

from narrator.rules import codec
from narrator.rules.answers import Abstain
from narrator.rules.answers import CountAnswer
from narrator.rules.answers import ExplodeAnswer
from narrator.rules.answers import SeatAnswer
from narrator.rules.core import Badge
from narrator.rules.core import Eliminate
from narrator.rules.core import Secret
from narrator.rules.phases import PhaseId
from narrator.rules.prompts import Seat
from narrator.rules.prompts import Tag
from narrator.rules.registry import get_variant
from narrator.story import Act
from narrator.story import Chapter
from narrator.story import Moment
from narrator.story import Seen
from narrator.story import Story
from narrator.voice.catalog import Catalog
from narrator.voice.catalog import phase_in_words

WIDTH = 1600
MARGIN = 32
TABLE_W = 560  # the left panel
BLOCK_W = 452  # a night's or a day's block
GAP = 24
LINE = 20  # px per line of the timeline
TEXT = 14  # px of the timeline's text
CHAR_W = 8.4  # an average character of TEXT px (Cyrillic and Latin alike), for wrapping

EVIL, GOOD, OUT = "#b03a2e", "#2471a3", "#8a8f98"
LEFT_AT_NIGHT = "#f1948a"  # an elimination told in a night's block
NIGHT_BG, NIGHT_INK, DAY_BG, DAY_INK = "#1f2a44", "#e8ecf4", "#fbf6e9", "#2b2b2b"
INK, PAPER, FAINT = "#22252b", "#ffffff", "#d9dce1"

VOTES = ("vote", "revote", "sheriff_vote", "sheriff_revote", "pk_vote")  # votes of one seat each


Point = tuple[float, float]  # (x, y): y grows downwards


@dataclass(frozen=True, kw_only=True)
class Paint:
    """How a closed shape is painted: its ``fill``, and its outline if it has a ``stroke``
    (``width`` wide)."""

    fill: str
    stroke: str | None = None
    width: float = 1.0


@dataclass(frozen=True)
class Rect(Paint):
    """A box from its top left corner (``x``, ``y``); ``radius`` rounds its corners."""

    x: float
    y: float
    w: float
    h: float
    radius: float = 0.0


@dataclass(frozen=True)
class Circle(Paint):
    """A disc around ``centre``, ``r`` from it to its edge."""

    centre: Point
    r: float


@dataclass(frozen=True)
class Line:
    """A stroke from ``start`` to ``end`` with round ends."""

    start: Point
    end: Point
    color: str
    width: float = 1.0


@dataclass(frozen=True)
class Text:
    x: float
    y: float  # the baseline
    text: str
    size: float = TEXT
    color: str = INK
    bold: bool = False
    anchor: str = "start"  # start | middle | end


Shape = Rect | Circle | Line | Text


@dataclass
class Scene:
    width: float
    height: float
    title: str
    shapes: list[Shape] = field(default_factory=list)


Words = Callable[..., str]


def wrap(text: str, width: float, size: float = TEXT) -> list[str]:
    """``text`` cut into lines of at most ``width`` px (estimated), at spaces."""
    most = max(8, int(width / (CHAR_W * size / TEXT)))
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        candidate = f"{current} {word}" if current else word
        if len(candidate) <= most or not current:
            current = candidate
        else:
            lines.append(current)
            current = word
    lines.append(current)
    return [line[:most] if len(line) > most else line for line in lines]


class Painter:
    """Turns a story into a scene, with the catalog of the game's language."""

    def __init__(self, story: Story, catalog: Catalog) -> None:
        self.story = story
        self.catalog = catalog
        self.variant = get_variant(story.game)
        self.cards = dict(story.outcome.reveal) or dict(enumerate(story.deal.seats, start=1))

    def t(self, key: str, **params: object) -> str:
        return self.catalog.text(key, params)

    def has(self, key: str) -> bool:
        return key in self.catalog.lines

    # --- words ---------------------------------------------------------------------------

    def role(self, role: str) -> str:
        return self.t(f"role.{role}")

    def phase(self, phase: PhaseId) -> str:
        return phase_in_words(self.catalog, phase)

    def who(self, seats: Sequence[Seat]) -> str:
        """«Вампир (1, 2)»: the seats with the card each was dealt."""
        return "; ".join(
            f"{self.role(role)} ({', '.join(map(str, held))})"
            for role, held in self.story.by_card(seats).items()
        )

    def secret(self, tag: Tag, secret: Secret) -> str:
        if secret.kind == "roles":
            return ", ".join(self.role(r) for r in secret.values)
        if secret.kind == "seats":
            if not secret.values:
                alone = f"shown.{tag.action}_alone"
                return self.t(alone if self.has(alone) else "screen.secret_lone")
            key = f"shown.{tag.action}" if self.has(f"shown.{tag.action}") else "shown.seats"
            return self.t(key, seats=", ".join(secret.values))
        key = f"secret.{secret.values[0]}"
        return self.t(key) if self.has(key) else secret.values[0]

    def answer(self, act: Act) -> str:
        return codec.shown(act.answer, self.t)

    # --- the timeline --------------------------------------------------------------------

    def chapter_lines(self, chapter: Chapter) -> list[str]:
        """What happened in one night or day, as lines in words."""
        lines: list[str] = []
        votes: dict[str, list[Act]] = {}
        for moment in chapter.moments:
            if isinstance(moment, Act) and self._is_vote(moment):
                if moment.tag.action not in votes:
                    votes[moment.tag.action] = []
                    lines.append(f"\0{moment.tag.action}")  # the round's place
                votes[moment.tag.action].append(moment)
                continue
            line = self.moment(moment)
            if line:
                lines.append(line)
        out: list[str] = []
        for line in lines:
            if line.startswith("\0"):
                out.extend(self.vote_lines(line[1:], votes[line[1:]]))
            else:
                out.append(line)
        return out or [self.t("picture.quiet")]

    def _is_vote(self, act: Act) -> bool:
        action = act.tag.action
        if action.rstrip("_0123456789") not in VOTES or act.tag.by_night:
            return False
        return isinstance(act.answer, SeatAnswer | Abstain | CountAnswer)

    def vote_lines(self, action: str, acts: list[Act]) -> list[str]:
        base = action.rstrip("_0123456789")
        lines = [self.t(f"picture.round.{base}")]
        if all(isinstance(a.answer, CountAnswer) for a in acts):  # hands raised per candidate
            none: list[str] = []
            for act in acts:
                assert isinstance(act.answer, CountAnswer)
                if act.answer.count == 0:
                    none.append(str(act.tag.about))
                    continue
                hands = self.t("picture.hands", seat=act.tag.about, count=act.answer.count)
                lines.append(f"– {hands}")
            if none:
                lines.append("– " + self.t("picture.no_hands", seats=", ".join(none)))
            return lines
        by_target: dict[Seat, list[Seat]] = {}
        abstained: list[Seat] = []
        for act in acts:
            voter = act.tag.about if act.tag.about is not None else act.seats[0]
            if isinstance(act.answer, SeatAnswer):
                by_target.setdefault(act.answer.seat, []).append(voter)
            else:
                abstained.append(voter)
        for target, voters in sorted(by_target.items(), key=lambda item: (-len(item[1]), item[0])):
            listed = ", ".join(map(str, voters))
            lines.append(
                "– " + self.t("picture.votes_for", seat=target, voters=listed, count=len(voters))
            )
        if abstained:
            lines.append("– " + self.t("picture.abstained", voters=", ".join(map(str, abstained))))
        return lines

    def moment(self, moment: Moment) -> str | None:
        if isinstance(moment, Eliminate):
            role = self.role(self.cards.get(moment.seat, self.story.deal.role_of(moment.seat)))
            cause = self.t(f"cause.{moment.cause}")
            return "✗ " + self.t("picture.left", seat=moment.seat, cause=cause, role=role)
        if isinstance(moment, Badge):
            if moment.seat is None:
                return self.t("picture.badge_destroyed")
            return self.t("picture.badge", seat=moment.seat)
        if isinstance(moment, Seen):
            return f"{self.who(moment.to)}: {self.secret(moment.tag, moment.shown.secret)}"
        return self.act(moment)

    def act(self, act: Act) -> str | None:
        action = act.tag.action
        if act.default:
            return None  # nobody, no shot, no nomination, an expired window: nothing happened
        if isinstance(act.answer, ExplodeAnswer):
            return self.t("picture.exploded", seat=act.answer.wolf)
        if action == "nominate" and isinstance(act.answer, SeatAnswer):
            return self.t("picture.nominated", speaker=act.tag.about, seat=act.answer.seat)
        seats = act.seats or ((act.tag.about,) if act.tag.about is not None else ())
        who = self.who(seats) if seats else self.t("picture.table")
        if act.tag.by_night and self.has(f"picture.night.{action}"):
            verb = self.t(f"picture.night.{action}")
            return self.t("picture.night.act", who=who, action=verb, answer=self.answer(act))
        label = f"picture.action.{action}"
        if self.has(label) and not act.tag.by_night:
            return f"{self.t(label)}: {self.answer(act)}"
        return f"{who} → {self.answer(act)}"

    # --- the whole scene -----------------------------------------------------------------

    def scene(self) -> Scene:
        story = self.story
        title = self.t(
            "picture.title",
            game=self.t(f"setup.game_title.{story.game}"),
            players=story.players,
        )
        winner = self.t("screen.winner", winner=self.t(f"winner.{story.outcome.winner}"))
        shapes: list[Shape] = [
            Text(MARGIN, MARGIN + 28, title, 28, INK, bold=True),
            Text(MARGIN, MARGIN + 62, winner, 20, INK),
        ]
        if story.started is not None:
            day, time = story.started[:8], story.started[9:13]
            when = f"{day[6:8]}.{day[4:6]}.{day[:4]} {time[:2]}:{time[2:]}"
            shapes.append(Text(WIDTH - MARGIN, MARGIN + 28, when, 16, OUT, anchor="end"))
        top = MARGIN + 92
        table_bottom = self.table(shapes, top)
        timeline_bottom = self.timeline(shapes, top)
        height = max(table_bottom, timeline_bottom) + MARGIN
        return Scene(WIDTH, height, title, [Rect(0, 0, WIDTH, height, fill=PAPER), *shapes])

    def table(self, shapes: list[Shape], top: float) -> float:
        """The seats round the table, clockwise from the top; the bottom of the panel."""
        story = self.story
        left = story.left()
        sheriff = story.sheriff()
        ring = 190.0 if story.players <= 8 else 220.0
        cx, cy = MARGIN + TABLE_W / 2, top + ring + 80
        shapes.append(Circle((cx, cy), ring - 52, fill="#f1ede4", stroke=FAINT, width=2))
        shapes.append(Text(cx, cy + 6, self.t("picture.table"), 18, OUT, anchor="middle"))
        for seat in range(1, story.players + 1):
            angle = 2 * math.pi * (seat - 1) / story.players - math.pi / 2
            x, y = cx + ring * math.cos(angle), cy + ring * math.sin(angle)
            role = self.cards.get(seat, story.deal.role_of(seat))
            dealt = story.deal.role_of(seat)
            colour = EVIL if self.variant.roles[role].evil else GOOD
            name = self.role(role) if dealt == role else f"{self.role(dealt)} → {self.role(role)}"
            gone = left.get(seat)
            shapes.append(Circle((x, y), 30, fill=OUT if gone else colour, stroke=colour, width=4))
            shapes.append(Text(x, y + 7, str(seat), 20, PAPER, bold=True, anchor="middle"))
            under = math.sin(angle) >= -0.3  # the labels below the seat, else above it
            name_y = y + 50 if under else y - 44
            shapes.append(Text(x, name_y, name, 14, INK, bold=True, anchor="middle"))
            if gone is not None:
                shapes.append(Line((x - 22, y - 22), (x + 22, y + 22), PAPER, 3))
                note = f"✗ {self.phase(gone.phase)}"
                note_y = name_y + 17 if under else name_y - 18
                shapes.append(Text(x, note_y, note, 12, OUT, anchor="middle"))
            if sheriff == seat:
                shapes.append(Text(x + 26, y - 20, "★", 22, "#d4a017", anchor="middle"))
        bottom = cy + ring + 90
        teams: dict[str, bool] = {}
        for role in story.deal.seats:
            spec = self.variant.roles[role]
            teams.setdefault(spec.team, spec.evil)
        x = MARGIN
        for team, evil in teams.items():
            shapes.append(Circle((x + 9, bottom - 5), 9, fill=EVIL if evil else GOOD))
            name = self.t(f"picture.team.{team}")
            shapes.append(Text(x + 26, bottom, name, 15, INK))
            x += 56 + len(name) * CHAR_W * 15 / TEXT
        shapes.append(Circle((x + 9, bottom - 5), 9, fill=OUT))
        shapes.append(Text(x + 26, bottom, self.t("picture.out"), 15, INK))
        if sheriff is not None:
            note = self.t("picture.sheriff", seat=sheriff)
            shapes.append(Text(MARGIN, bottom + 28, f"★ {note}", 15, INK))
            bottom += 28
        if story.deal.center:
            cards = ", ".join(self.role(r) for r in story.deal.center)
            for line in wrap(self.t("picture.center", cards=cards), TABLE_W, 15):
                bottom += 24
                shapes.append(Text(MARGIN, bottom, line, 15, INK))
        return bottom

    def timeline(self, shapes: list[Shape], top: float) -> float:
        """The blocks of the nights and days, two to a row; the bottom of the last row."""
        left = MARGIN + TABLE_W + 48
        chapters = [c for c in self.story.chapters if c.phase.of_the_rules]
        setup = [c for c in self.story.chapters if not c.phase.of_the_rules and c.moments]
        y = top
        blocks = [*setup, *chapters]
        for row in range(0, len(blocks), 2):
            pair = blocks[row : row + 2]
            laid = [self.block(chapter) for chapter in pair]
            height = max(len(lines) for _, lines in laid) * LINE + 52
            for column, (title, lines) in enumerate(laid):
                x = left + column * (BLOCK_W + GAP)
                night = pair[column].phase.by_night
                background, ink = (NIGHT_BG, NIGHT_INK) if night else (DAY_BG, DAY_INK)
                shapes.append(Rect(x, y, BLOCK_W, height, 10, fill=background, stroke=FAINT))
                shapes.append(Text(x + 14, y + 28, title, 18, ink, bold=True))
                for index, (line, out) in enumerate(lines):
                    colour = (LEFT_AT_NIGHT if night else EVIL) if out else ink
                    shapes.append(Text(x + 14, y + 54 + index * LINE, line, TEXT, colour))
            y += height + GAP
        return y

    def block(self, chapter: Chapter) -> tuple[str, list[tuple[str, bool]]]:
        """A block's title and its lines, each marked when it tells an elimination."""
        lines: list[tuple[str, bool]] = []
        for line in self.chapter_lines(chapter):
            out = line.startswith("✗")
            lines.extend((part, out) for part in wrap(line, BLOCK_W - 28))
        return self.phase(chapter.phase), lines


def paint(story: Story, catalog: Catalog) -> Scene:
    """The scene of ``story`` in the language of ``catalog``."""
    return Painter(story, catalog).scene()
