"""The line catalogs: same keys and placeholders in every language, every emitted key present."""

from __future__ import annotations

import itertools
import random
import subprocess
import sys
from collections.abc import Callable
from collections.abc import Mapping
from pathlib import Path

import pytest

from narrator.drive import Headless
from narrator.record import GameRecord
from narrator.rules.answers import Answer
from narrator.rules.core import Outcome
from narrator.rules.core import Say
from narrator.rules.core import Step
from narrator.rules.core import shuffled_deal
from narrator.rules.errors import NarratorError
from narrator.rules.onenight import INQUISITION
from narrator.rules.onenight import NOBODY_WINS
from narrator.rules.onenight import ROLES
from narrator.rules.onenight import WEREWOLVES
from narrator.rules.prompts import Prompt
from narrator.rules.registry import get_variant
from narrator.rules.registry import make_switches
from narrator.voice.catalog import LANGUAGES
from narrator.voice.catalog import Catalog
from narrator.voice.catalog import load_catalog
from narrator.voice.catalog import placeholders

ROOT = Path(__file__).resolve().parent.parent

RU = load_catalog("ru")
EN = load_catalog("en")

# Attempts that the rules reject, for every reason a onenight prompt can give.
GARBAGE = (
    "",
    "seven",
    "13",
    "0",
    "center",
    "center x 1",
    "center 1 1",
    "center 1 9",
    "center 1 2 3",
    "center 1",
    "abstain",
    "yes",
    "7 7",
    "²",
)


class KeyCollectingDriver(Headless):
    """Plays a game instantly with random attempts; remembers every line and rejection key."""

    def __init__(self, catalog: Catalog, choose: Callable[[Prompt], list[str]]) -> None:
        super().__init__(catalog, GameRecord())
        self.choose = choose
        self.said: list[tuple[str, Mapping[str, object]]] = []
        self.reasons: list[tuple[str, Mapping[str, object]]] = []
        self.winner: str | None = None

    def carry_out(self, step: Step) -> Answer | None:
        if isinstance(step, Say):
            self.said.append((step.key, dict(step.params)))
        return super().carry_out(step)

    def say(self, key: str, text: str) -> None:
        assert text.strip(), key

    def typed(self, prompt: Prompt) -> list[str]:
        return self.choose(prompt)

    def rejected(self, prompt: Prompt, text: str, error: NarratorError) -> None:
        self.reasons.append((error.key, dict(error.params)))

    def finished(self, outcome: Outcome) -> None:
        self.winner = outcome.winner


def random_attempts(rng: random.Random) -> Callable[[Prompt], list[str]]:
    cyclic = rng.random() < 0.2  # every player votes for the next one: one vote each

    def choose(prompt: Prompt) -> list[str]:
        if cyclic and prompt.id.startswith("d1.vote."):
            return [str(prompt.seats[0] % prompt.seat_count + 1)]
        pool = [*prompt.options, *GARBAGE, str(prompt.seats[0]) if prompt.seats else "1"]
        return [rng.choice(pool) for _ in range(rng.choice((0, 1, 1, 2, 3)))]

    return choose


def switch_sets() -> list[dict[str, object]]:
    """Every switch combination that changes what is said or asked, and some other decks."""
    sets: list[dict[str, object]] = [
        {
            "seer_center_count": seer,
            "lone_wolf_peek": peek,
            "allow_self_vote": self_vote,
            "discussion_s": discussion,
        }
        for seer, peek, self_vote, discussion in itertools.product(
            (1, 2, 3), (False, True), (False, True), (300.0, 30.0)
        )
    ]
    return [
        *sets,
        {"roles": "werewolf=1", "lone_wolf_peek": True},
        {"roles": "high_inquisitor=0,spirit=0"},
        {"center_cards": 5, "seer_center_count": 3, "roles": "werewolf=3"},
        {"center_cards": 1, "seer_center_count": 1},
    ]


def play_many() -> list[KeyCollectingDriver]:
    variant = get_variant("onenight")
    rng = random.Random(20240611)
    drivers = []
    for options, players, _ in itertools.product(switch_sets(), range(3, 8), range(4)):
        sw = make_switches(variant, options)
        deal = shuffled_deal(variant.composition(players, sw), players, rng)
        driver = KeyCollectingDriver(RU, random_attempts(rng))
        driver.run(variant.new_game(deal, sw, rng))
        drivers.append(driver)
    return drivers


@pytest.fixture(scope="module")
def games() -> list[KeyCollectingDriver]:
    return play_many()


# --- the catalogs agree -----------------------------------------------------------------------


def test_languages() -> None:
    assert set(LANGUAGES) == {"ru", "en"}


def test_same_keys_in_every_language() -> None:
    assert set(RU.lines) - set(EN.lines) == set(), "missing from en"
    assert set(EN.lines) - set(RU.lines) == set(), "missing from ru"


def test_same_placeholders_per_key() -> None:
    differ = {
        key: (sorted(placeholders(RU.lines[key])), sorted(placeholders(EN.lines[key])))
        for key in RU.lines.keys() & EN.lines.keys()
        if placeholders(RU.lines[key]) != placeholders(EN.lines[key])
    }
    assert differ == {}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_empty_lines(lang: str) -> None:
    catalog = load_catalog(lang)
    assert [key for key, text in catalog.lines.items() if not text.strip()] == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_role_has_a_name(lang: str) -> None:
    catalog = load_catalog(lang)
    for role in ROLES:
        assert catalog.lines.get(f"role.{role}", "").strip(), f"role.{role} in {lang}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_winner_has_a_name(lang: str) -> None:
    catalog = load_catalog(lang)
    for winner in (INQUISITION, WEREWOLVES, NOBODY_WINS):
        assert f"winner.{winner}" in catalog.lines


# --- every key the engine emits exists --------------------------------------------------------


def test_the_random_games_cover_the_whole_script(games: list[KeyCollectingDriver]) -> None:
    said = {key for driver in games for key, _ in driver.said}
    script_keys = {key for key in RU.lines if key.startswith("onenight.")} - {"onenight.title"}
    assert script_keys - said == set(), "lines of the script never reached by the random games"
    winners = {driver.winner for driver in games}
    assert winners == {INQUISITION, WEREWOLVES, NOBODY_WINS}


def test_every_spoken_key_is_in_both_catalogs(games: list[KeyCollectingDriver]) -> None:
    said = {key: params for driver in games for key, params in driver.said}
    for catalog in (RU, EN):
        missing = sorted(key for key in said if key not in catalog.lines)
        assert missing == [], f"missing from {catalog.lang}"
    for key, params in said.items():
        assert set(params) == placeholders(RU.lines[key]), key


def test_every_rejection_reason_is_in_both_catalogs(games: list[KeyCollectingDriver]) -> None:
    reasons = {key: params for driver in games for key, params in driver.reasons}
    assert all(key.startswith("reason.") for key in reasons), sorted(reasons)
    catalog_reasons = {key for key in RU.lines if key.startswith("reason.")}
    assert set(reasons) <= catalog_reasons, "reasons missing from the catalog"
    onenight_reasons = {
        "reason.empty",
        "reason.not_a_number",
        "reason.no_such_seat",
        "reason.not_an_answer",
        "reason.center_cards",
        "reason.self",
        "reason.self_vote",
        "reason.center_count",
        "reason.center_twice",
        "reason.no_such_center",
        "reason.already_answered",
    }
    assert onenight_reasons - set(reasons) == set(), "onenight reasons the games did not reach"
    for key, params in reasons.items():
        for catalog in (RU, EN):
            assert key in catalog.lines, f"{key} missing from {catalog.lang}"
            assert set(params) == placeholders(catalog.lines[key]), key
            assert catalog.text(key, params).strip()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_line_renders_in_every_language(lang: str, games: list[KeyCollectingDriver]) -> None:
    catalog = load_catalog(lang)
    for driver in games[:: len(games) // 10]:
        for key, params in driver.said:
            assert catalog.text(key, params).strip()


# --- seed lines are verbatim ------------------------------------------------------------------

SEED_LINES = {
    "onenight.hi_wake": "Верховный инквизитор видит вещий сон!",
    "onenight.hi_sleep": "Верховный инквизитор засыпает!",
    "onenight.wolves_wake": "Просыпаются оборотни!",
    "onenight.wolves_sleep": "Оборотни засыпают!",
    "onenight.spirit_wake": "Дух перевоплощается!",
    "onenight.spirit_sleep": "Дух засыпает!",
    "onenight.morning": "Наступило утро, и все проснулись",
    "onenight.vote_time": "Время голосовать",
    "onenight.win_peace": (
        "Государство свободно от оборотней, теперь здесь правит мир и спокойствие."
    ),
}


@pytest.mark.parametrize(("key", "line"), SEED_LINES.items())
def test_seed_lines_are_verbatim(key: str, line: str) -> None:
    assert RU.lines[key] == line


# --- languages of the product, and the tests' own Korean words --------------------------------


def test_the_product_speaks_only_its_table_languages() -> None:
    """Korean words exist for the tests' Vosk model only: they live in the tests, beside the
    toy game, and a narrator without the tests' games knows no Korean."""
    from importlib import resources

    product = resources.files("narrator.voice").joinpath("lines")
    assert sorted(p.name for p in product.iterdir() if p.is_dir()) == sorted(LANGUAGES)
    assert (ROOT / "tests" / "lines" / "ko" / "words.toml").is_file()
    code = (
        "from narrator.rules.errors import ConfigError\n"
        "from narrator.voice.catalog import load_words\n"
        "try:\n"
        "    load_words('ko')\n"
        "except ConfigError as error:\n"
        "    print(error)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert done.stdout.strip() == "no spoken words for language 'ko'; languages: ru, en"


def test_the_tests_load_their_korean_words_from_the_tests() -> None:
    from narrator.voice.catalog import load_words

    words = load_words("ko")
    assert words["words.number.8"] == "여덟" and words["words.yes"] == "네"
