"""`reasonaudio publish`: a validated folder to a Hub dataset repository (huggingface_hub).

The token comes from `huggingface-cli login` or HF_TOKEN, as huggingface_hub finds it, and is never
printed. Only the files the layout declares are sent (an allow-list): a credentials file or
the source recordings lying in the same folder never leave the machine.
"""
from __future__ import annotations

from pathlib import Path

from reasonaudio_dataset.card import RECORDS, write_card
from reasonaudio_dataset.certificate import coverage_note, read_certificate, too_small
from reasonaudio_dataset.folders import check_unlinked

from .layout import LEFTOVER, publishable_files
from .validate import validate


class NotPublishable(ValueError):
    pass


def files_to_upload(folder: Path) -> list[tuple[str, int]]:
    """(relative path, bytes) of exactly what an upload sends: the card, the finished splits' records
    and the data files they declare. Nothing else in the folder ever leaves the machine."""
    return [(path, (folder / path).stat().st_size) for path in publishable_files(folder)]


def left_behind(folder: Path, files: list[tuple[str, int]]) -> list[str]:
    """Files in the folder that are not uploaded (named in a warning; staging and records aside)."""
    sent = {path for path, _ in files}
    return sorted(path for path in (p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
                  if path not in sent and not path.startswith(f"{RECORDS}/") and not LEFTOVER.match(path))


def check_repo_id(repo_id: str) -> None:
    """A Hub repository id (ORG/NAME), checked as the Hub would, before anything is validated or sent."""
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    try:
        validate_repo_id(repo_id)
    except HFValidationError as error:
        raise ValueError(f"--repo-id {repo_id!r} is not a Hub repository id, e.g. my-org/reasonaudio "
                         f"({str(error).splitlines()[0]})") from None
    if "/" not in repo_id:
        raise ValueError(f"--repo-id {repo_id!r}: name the owner too, ORG/NAME (e.g. my-org/reasonaudio)")


UNCERTIFIED = ("has no validity certificate: its card cannot say whether systems that do not reason solve it; "
               "make one with `reasonaudio baselines --data {folder} --train TRAIN --out RESULTS --certify`")


def publish(folder: str | Path, repo_id: str, private: bool = False, revision: str | None = None,
            dry_run: bool = False, token: str | None = None,
            require_certificate: bool = False) -> list[tuple[str, int]]:
    """Validate, then upload `folder` as dataset `repo_id`; with `dry_run` only list what would go; with
    `require_certificate`, refuse a folder without a validity certificate (`baselines --certify`)."""
    check_repo_id(repo_id)
    folder = Path(folder)
    check_unlinked(folder)      # the card is rewritten before the upload
    if require_certificate:
        found = read_certificate(folder)
        if found is None:
            raise NotPublishable(f"{folder} {UNCERTIFIED.format(folder=folder)}")
        if too_small(found["coverage"]):    # a certificate that tested nothing certifies nothing
            raise NotPublishable(f"{folder} is not certified: {coverage_note(found['coverage'])}; a build with more "
                                 "queries a task (--queries-per-task) can be")
    problems = validate(folder, quick=dry_run, workers=2)  # a dry run skips the audio check
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
                      allow_patterns=[path for path, _ in files],   # our own names: no glob characters
                      commit_message=f"ReasonAudio: {', '.join(sorted({p.split('/')[0] for p, _ in files}))}")
    return files
