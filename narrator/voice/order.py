"""The order a game needs its lines in: games played here with nobody at the table.

A game starts speaking at once and renders its lines in the background
(``SpeechCache.render_ahead``), in the order this module gives: the lines the
same game (the same variant, language, number of players and rule switches) says
when it is played with random answers, in the order it first says them; a game
renders the rest of its lines after those.

The order is public by construction. It is a function of the game's public
settings alone: the games played here are dealt from a fixed seed of their own,
never the deal of the game at the table, so which file is written when tells
nothing about who holds what. A role's window is called whether its card is held,
in the centre or dead, so its lines are in the order either way.
"""

from __future__ import annotations

import random

from narrator.drive import Headless
from narrator.drive import Unrecorded
from narrator.rules.core import Switches
from narrator.rules.core import shuffled_deal
from narrator.rules.prompts import Prompt
from narrator.rules.registry import Variant
from narrator.voice.catalog import Catalog
from narrator.voice.catalog import load_catalog

GAMES = 3  # games played for the order: the lines of the rarer outcomes come in too


def needed_order(lang: str, variant: Variant, players: int, switches: Switches) -> list[str]:
    """The displayed lines in the order a game of these settings first says them.

    Only lines a game renders anyway (``tts.lines_to_render``) and lines every game of
    these settings says (its composition, with no answer in it) are given: a line
    that names an answer (a vote's result) is rendered when it is said.
    """
    from narrator.voice.game_lines import lines_to_render

    catalog = load_catalog(lang)
    said: dict[str, int] = {}
    for index in range(GAMES):
        chance = random.Random(f"narrator.speech-order/{variant.name}/{index}")
        deal = shuffled_deal(variant.composition(players, switches), players, chance)
        listener = Listener(catalog, chance)
        listener.run(variant.new_game(deal, switches, random.Random(index)))
        for text in dict.fromkeys(listener.lines):
            said[text] = said.get(text, 0) + 1
    rendered = set(lines_to_render(lang, variant.name))
    return [text for text, games in said.items() if text in rendered or games == GAMES]


class Listener(Headless):
    """Every line the table would hear in a game answered at random, in order."""

    def __init__(self, catalog: Catalog, chance: random.Random) -> None:
        super().__init__(catalog, Unrecorded())
        self.rng = chance
        self.lines: list[str] = []

    def typed(self, prompt: Prompt) -> list[str]:
        return [self.rng.choice(prompt.options)] if prompt.options else []

    def say(self, key: str, text: str) -> None:
        self.lines.append(text)
