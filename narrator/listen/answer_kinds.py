"""The kinds of answer ``narrator hear --answer`` hears, each with the prompt of
``narrator.listen.corpus.PROMPTS`` it is heard at (``speech``: a speech with no question
open, where «спасибо» ends it). Kept apart from the corpus, so the command line knows
them without loading the listening code.
"""

from __future__ import annotations

ANSWERS: dict[str, str] = {
    "seat": "seat",
    "vote": "abstain",  # a vote where 0 is abstaining
    "count": "count",
    "yesno": "yes_no",
    "nominate": "nominate",
    "thanks": "speech",
}
