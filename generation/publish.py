"""`reasonaudio publish`: a validated folder to a Hub dataset repository (huggingface_hub).

The token comes from `huggingface-cli login` or HF_TOKEN, as huggingface_hub finds it, and is never
printed. Staged, half-written files never leave the machine.
"""
from __future__ import annotations

from pathlib import Path

from reasonaudio_dataset.card import write_card

from .validate import validate

NEVER_UPLOADED = (".reasonaudio/staging/**", "**/.*.partial", ".*.partial")


class NotPublishable(ValueError):
    pass


def files_to_upload(folder: Path) -> list[tuple[str, int]]:
    """(relative path, bytes) of every file that an upload sends, sorted."""
    from huggingface_hub.utils import filter_repo_objects

    paths = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    kept = set(filter_repo_objects(paths, ignore_patterns=list(NEVER_UPLOADED)))
    return [(path, (folder / path).stat().st_size) for path in paths if path in kept]


def publish(folder: str | Path, repo_id: str, private: bool = False, revision: str | None = None,
            dry_run: bool = False, token: str | None = None) -> list[tuple[str, int]]:
    """Validate, then upload `folder` as dataset `repo_id`; with `dry_run` only list what would go."""
    folder = Path(folder)
    problems = validate(folder)
    if problems:
        raise NotPublishable(f"{folder} fails validation, not publishing:\n" + "\n".join(f"  - {p}" for p in problems))
    if dry_run:
        return files_to_upload(folder)
    from huggingface_hub import HfApi

    write_card(folder, repo=repo_id)  # the card's load examples name the repository
    files = files_to_upload(folder)
    api = HfApi(token=token)
    api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    if revision:
        api.create_branch(repo_id, repo_type="dataset", branch=revision, exist_ok=True)
    api.upload_folder(folder_path=str(folder), repo_id=repo_id, repo_type="dataset", revision=revision,
                      ignore_patterns=list(NEVER_UPLOADED),
                      commit_message=f"ReasonAudio: {', '.join(sorted({p.split('/')[0] for p, _ in files}))}")
    return files
