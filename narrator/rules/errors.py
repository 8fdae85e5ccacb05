"""The error tree: every problem a person can cause is a NarratorError.

The table loop turns these into a silent on-screen rejection (the window keeps
running); the command line turns them into one line and exit code 2.  Each error
carries a catalog ``key`` and ``params`` so the screen can show the reason in the
table's language, and an English ``str()`` for logs and scenario results.
"""

from __future__ import annotations

from collections.abc import Mapping


class NarratorError(ValueError):
    """Base of every error caused by input or configuration, never by a bug."""

    def __init__(self, message: str, key: str = "", params: Mapping[str, object] | None = None):
        super().__init__(message)
        self.key = key
        self.params: Mapping[str, object] = dict(params or {})


class BadAnswerText(NarratorError):
    """An answer that cannot be parsed at all ("seven", "3 x")."""


class IllegalAction(NarratorError):
    """An answer that parses but the rules forbid (dead seat, self-vote, repeat)."""


class ConfigError(NarratorError):
    """An unknown option, a bad value, a deal or composition that does not fit."""


class NotNow(IllegalAction):
    """An answer meant for another moment ("explode during the speech of 7")."""
