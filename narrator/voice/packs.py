"""Voice packs: a group's own host, recorded line by line, played instead of synthetic speech.

A pack is a folder (by default ``<user data>/narrator/voices/NAME``) holding
``pack.toml`` and one recording per line key or part::

    name = "vasya"
    lang = "ru"
    source = "recorded"
    [lines]
    "onenight.hi_wake" = "onenight.hi_wake.wav"
    "role.werewolf" = "role.werewolf.wav"
    [parts]
    "deal.call#0" = { file = "deal.call#0.wav", words = "Игрок номер" }
    "number.5" = { file = "number.5.wav", words = "пять" }

``[lines]`` are catalog lines said whole (the role names among them).  A line
with a seat number or a role («Игрок номер 5, возьмите карту.») has too many
forms to record whole, so it is spliced from ``[parts]`` (see ``splice``): the
text around its placeholders and the number words.  Each part keeps the words
it says, so a part recorded for another wording of the catalog is left out
rather than said wrong.  Whatever the pack cannot say, TTS says.  A pack of
plain lines only (no ``[parts]``, no ``source``) reads as it always did.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

from narrator.rules.errors import ConfigError
from narrator.sound.clip import Clip
from narrator.sound.loudness import levelled
from narrator.voice import splice
from narrator.voice.audio_file import read_clip
from narrator.voice.catalog import load_catalog
from narrator.voice.catalog import placeholders
from narrator.voice.pack_manifest import pack_folder
from narrator.voice.pack_manifest import read_manifest

_LOGGER = logging.getLogger(__name__)


@dataclass
class VoicePack:
    """A loaded pack: the recordings that exist, by line key and by part key."""

    name: str
    lang: str
    folder: Path
    files: dict[str, Path]
    missing: tuple[str, ...] = ()
    parts: dict[str, Path] = field(default_factory=dict)
    source: str | None = None
    _clips: dict[str, Clip] = field(default_factory=dict, repr=False)
    _ready: dict[str, Clip] = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, name: str, lang: str | None = None, root: Path | None = None) -> VoicePack:
        """Read and check a pack; lines whose recording is missing are reported and left to TTS.

        ``name`` is a pack's name, or the path of a pack folder of the user's (it holds a
        '/'): a folder is only read, and every name that writes is a plain name.
        """
        is_path = "/" in name or os.sep in name
        folder = Path(name).expanduser() if is_path else pack_folder(name, root)
        manifest = read_manifest(name, folder)
        if lang is not None and manifest.lang != lang:
            raise ConfigError(
                f"voice pack {name!r} speaks {manifest.lang!r}, but the game is in {lang!r}"
            )
        catalog = load_catalog(manifest.lang)
        files: dict[str, Path] = {}
        missing: list[str] = []
        ignored: list[str] = []
        for key, file in manifest.lines.items():
            template = catalog.lines.get(key)
            if template is None or placeholders(template):
                ignored.append(key)
            elif (folder / file).is_file():
                files[key] = folder / file
            else:
                missing.append(key)
        parts: dict[str, Path] = {}
        stale: list[str] = []
        for key, part in manifest.parts.items():
            words = splice.expected_words(manifest.lang, key)
            if words is None:
                ignored.append(key)
            elif words != part.words:
                stale.append(key)
            elif (folder / part.file).is_file():
                parts[key] = folder / part.file
            else:
                missing.append(key)
        _report(name, ignored, stale, missing)
        return cls(
            manifest.name,
            manifest.lang,
            folder,
            files,
            tuple(missing),
            parts=parts,
            source=manifest.source,
        )

    def clip(self, key: str, text: str | None = None) -> Clip | None:
        """The line ``key``: its whole recording, else (given its displayed ``text``) the line
        spliced from its parts; None when the pack cannot say it (the caller uses TTS)."""
        whole = self._recording(key, self.files)
        if whole is not None or text is None:
            return whole
        return self.spliced(key, text)

    def spliced(self, key: str, text: str) -> Clip | None:
        """The line assembled from parts; None unless the pack has every part it needs."""
        pieces = splice.plan(self.lang, key, text)
        if pieces is None:
            return None
        clips: dict[str, Clip] = {}
        for keys in splice.needed(pieces):
            chosen = next((k for k in keys if k in clips or self._has(k)), None)
            clip = self._joinable(chosen) if chosen is not None else None
            if chosen is None or clip is None:
                _LOGGER.debug("voice pack %s: %s lacks the part %s", self.name, key, keys[0])
                return None
            clips[chosen] = clip
        return splice.assemble(pieces, clips)

    def can_say(self, key: str, text: str) -> bool:
        """Whether the pack has the line whole or every part of it (nothing is read)."""
        if key in self.files:
            return True
        pieces = splice.plan(self.lang, key, text)
        return pieces is not None and all(
            any(self._has(k) for k in keys) for keys in splice.needed(pieces)
        )

    def unsaid(self, texts: Iterable[str]) -> list[str]:
        """The displayed lines among ``texts`` that this pack cannot say, in order.

        What TTS must render before a game with this pack: with a complete pack,
        nothing.  A text is matched to its line by its wording, so it needs no key.
        """
        catalog = load_catalog(self.lang)
        whole = {catalog.text(key) for key in self.files if key in catalog.lines}
        every = splice.templates(self.lang).values()
        return [
            text
            for text in texts
            if text not in whole
            and not any(t.values(text) is not None and self.can_say(t.key, text) for t in every)
        ]

    def _has(self, key: str) -> bool:
        return key in self.parts or key in self.files

    def _joinable(self, key: str) -> Clip | None:
        found = self._ready.get(key)
        if found is None:
            clip = self._recording(key, self.parts if key in self.parts else self.files)
            if clip is None:
                return None
            found = self._ready[key] = splice.joinable(clip)
        return found

    def _recording(self, key: str, where: dict[str, Path]) -> Clip | None:
        path = where.get(key)
        if path is None:
            return None
        found = self._clips.get(key)
        if found is not None:
            return found
        try:
            clip = read_clip(path)
        except (RuntimeError, OSError) as error:  # soundfile.LibsndfileError is a RuntimeError
            _LOGGER.warning(
                "voice pack %s: %s is unreadable (%s); TTS says it", self.name, path, error
            )
            del where[key]
            return None
        # At the one loudness of every engine, whole lines and spliced ones alike.
        clip = self._clips[key] = levelled(clip)
        return clip


def _report(name: str, ignored: list[str], stale: list[str], missing: list[str]) -> None:
    """What a pack cannot use, in the log: the game goes on, TTS says those lines."""
    if ignored:
        _LOGGER.warning(
            "voice pack %s: %d recordings are not of a line or part of the catalog, ignored: %s",
            name,
            len(ignored),
            _some(ignored),
        )
    if stale:
        _LOGGER.warning(
            "voice pack %s: %d parts were recorded for another wording of the catalog "
            "and are ignored: %s",
            name,
            len(stale),
            _some(stale),
        )
    if missing:
        _LOGGER.warning(
            "voice pack %s: %d recordings are missing, TTS says them instead: %s",
            name,
            len(missing),
            _some(missing),
        )


def _some(keys: Sequence[str], shown: int = 5) -> str:
    more = f" and {len(keys) - shown} more" if len(keys) > shown else ""
    return ", ".join(keys[:shown]) + more
