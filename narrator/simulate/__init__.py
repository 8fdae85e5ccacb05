"""Many games played with nobody at the table: how often each side wins, and why.

``narrator simulate GAME`` plays a set-up (a game, its seats, its rule switches)
thousands of times through the same variant scripts the table plays, answered by
policies that live outside the rules and only ever pick answers the prompts accept:

* ``random`` (narrator.simulate.players): a uniformly random legal answer;
* ``informed`` (narrator.simulate.informed): every seat acts on what it could know —
  its card, what it was shown, what it did, and the public record (votes, cards turned
  face up, the claims of the talk) — checkers announce what they found, the evil team
  agrees on its victims and answers accusations, voters follow the checks, protectors
  guard the likely victims.

The driver (narrator.simulate.driver) keeps no record and renders no line; a run
(narrator.simulate.run) spreads over processes with per-game seeds, so the figures
of a seed do not depend on ``--jobs``; the tally (narrator.simulate.tally) gives
each side's rate with its 95 % Wilson interval.
"""
