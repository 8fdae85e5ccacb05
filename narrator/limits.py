"""Bounds on what a table may set, in one place: light to import (the command line checks
its arguments against them before anything heavy is loaded)."""

from __future__ import annotations

MAX_ANSWER_S = 3600.0  # an hour for one day answer is already no limit at a table
