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
from collections.abc import Iterator

from narrator.drive import NIGHT_LIMIT
from narrator.rules.answers import Answer
from narrator.rules.core import (
    Ask,
    Game,
    Param,
    Phase,
    Prompt,
    Say,
    Switches,
    Timer,
    Wake,
    phase_kind,
    phase_number,
    shuffled_deal,
)
from narrator.rules.registry import Variant
from narrator.voice.catalog import load_catalog

GAMES = 3  # games played for the order: the lines of the rarer outcomes come in too
MOST_STEPS = 20_000  # a script that has not ended by then is not followed further


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
        game = variant.new_game(deal, switches, random.Random(index))
        for text in dict.fromkeys(catalog.text(key, params) for key, params in _said(game, chance)):
            said[text] = said.get(text, 0) + 1
    rendered = set(lines_to_render(lang, variant.name))
    return [text for text, games in said.items() if text in rendered or games == GAMES]


def _answer(prompt: Prompt, chance: random.Random) -> Answer:
    if not prompt.options:
        return prompt.default
    return prompt.accept(chance.choice(prompt.options))


def _said(game: Game, chance: random.Random) -> Iterator[tuple[str, dict[str, Param]]]:
    """Every line the table would hear in ``game``, answered at random, in order."""
    reply: Answer | None = None
    for _ in range(MOST_STEPS):
        try:
            step = game.script.send(reply)
        except StopIteration:
            return
        reply = None
        if isinstance(step, Say):
            yield step.key, dict(step.params)
        elif isinstance(step, Wake):
            for cue in step.cues:
                yield cue.key, dict(cue.params)
        elif isinstance(step, Ask):
            reply = _answer(step.prompt, chance)
        elif isinstance(step, Timer):
            if step.prompt is not None:
                reply = _answer(step.prompt, chance)
                if step.confirm is not None and reply != step.prompt.default:
                    yield step.confirm, {"seat": str(reply)}
            for at, key in sorted(step.warnings, reverse=True):
                if step.seconds > at:
                    yield key, {}
            if step.expired is not None:
                yield step.expired, {}
        elif isinstance(step, Phase):
            number = phase_number(step.id)
            if phase_kind(step.id) == "night" and number is not None and number > NIGHT_LIMIT:
                return
