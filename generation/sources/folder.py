"""A folder with one sub-folder per class: `ROOT/<label>/*.{wav,flac,ogg,mp3,...}`. A file or class sub-folder
that links outside ROOT is a bad recording, never read."""
from __future__ import annotations

from pathlib import Path

from .base import Recording, SourceError, local_file

AUDIO_SUFFIXES = {".wav", ".flac", ".ogg", ".mp3", ".aiff", ".aif", ".opus"}


def recordings(location: str, license: str = "") -> list[Recording]:
    """folder of class sub-folders (ROOT/<label>/<file>): `folder:/data/sounds?license=CC-BY-4.0`."""
    root = Path(location)
    if not root.is_dir():
        raise SourceError(f"{root} is not a folder")
    files = sorted(p for p in root.glob("*/*") if p.suffix.lower() in AUDIO_SUFFIXES)
    if not files:
        raise SourceError(f"{root} holds no audio files in class sub-folders ({', '.join(sorted(AUDIO_SUFFIXES))})")
    return [
        Recording(
            recording_id=f"folder/{p.parent.name}/{p.name}", label=p.parent.name, origin=f"folder:{p.parent.name}/{p.name}",
            load=local_file(root, p, f"{p.parent.name}/{p.name}"), license=license,
            group=f"folder/{p.parent.name}/{p.name}",
        )
        for p in files
    ]
