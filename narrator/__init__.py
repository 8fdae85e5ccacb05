"""narrator: an offline voice host for Mafia and Werewolf party games."""

__version__ = "0.1.0"  # the one place: pyproject.toml reads it from here
