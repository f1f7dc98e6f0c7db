"""A model or training folder's files: each written whole or not at all, each unreadable one named in one line.

A write goes to `NAME.partial` beside the file, is flushed to disk, then replaces the file (`os.replace`),
so a kill or a full disk mid-write leaves the file as it was. Torch writes through an open file, so a
full disk surfaces as OSError (given a path, torch.save reports it as an opaque RuntimeError).
"""
from __future__ import annotations

import dataclasses
import json
import os
import pickle
from pathlib import Path

import torch

DAMAGED_MODEL = "copy the model folder again, or train it again with reasonaudio train"


def _write_whole(path: Path, write) -> None:
    partial = path.with_name(path.name + ".partial")
    try:
        with open(partial, "wb") as file:
            write(file)
            file.flush()
            os.fsync(file.fileno())
        os.replace(partial, path)
    except OSError as error:
        raise OSError(f"could not write {path} ({error.strerror or error}); no earlier file was replaced: free "
                      "space and rerun the same command (it resumes from the last finished epoch)") from error
    finally:
        partial.unlink(missing_ok=True)


def write_torch(value, path: Path) -> None:
    def save(file):
        try:
            torch.save(value, file)
        except RuntimeError as error:      # torch's zip writer says a failed write (a full disk) this way
            if "PytorchStreamWriter failed" not in str(error):
                raise
            raise OSError(f"{str(error).split('failed', 1)[1].strip(' :')}: is the disk full?") from error
    _write_whole(path, save)


def write_json(value, path: Path) -> None:
    _write_whole(path, lambda file: file.write((json.dumps(value, indent=2) + "\n").encode()))


def read_torch(path: Path, remedy: str):
    """`path` loaded weights-only on the CPU; a truncated, empty or foreign file is a one-line ValueError."""
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except (RuntimeError, EOFError, pickle.UnpicklingError) as error:
        raise ValueError(f"{path} is damaged (truncated, empty or not a file reasonaudio train wrote); "
                         f"{remedy}") from error


def read_json(path: Path, remedy: str, config=None) -> dict:
    """The JSON object in `path` (reasonaudio writes no other kind); with `config`, a dataclass, only keys
    that are its fields: anything else is a one-line ValueError naming the file."""
    try:
        found = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"{path} is damaged (truncated or not JSON: {error}); {remedy}") from error
    if not isinstance(found, dict):
        raise ValueError(f"{path} is damaged (it holds a JSON {type(found).__name__}, where reasonaudio writes an "
                         f"object); {remedy}")
    unknown = sorted(set(found) - {f.name for f in dataclasses.fields(config)}) if config else []
    if unknown:
        raise ValueError(f"{path} has settings this version does not know ({', '.join(unknown)}): written by "
                         f"another version, or edited; {remedy}")
    if config:
        _check_sizes(path, found, remedy)
    return found


MAX_SIZE = 1 << 20    # any size a model's settings give (a width, a count of layers): far above any trained model's


def _check_sizes(path: Path, settings: dict, remedy: str) -> None:
    """Every number in a model's settings is a size it can be built at, checked before anything is allocated: an
    edited or damaged file once asked for 116 PiB."""
    for name, value in settings.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool) and not abs(value) <= MAX_SIZE:
            raise ValueError(f"{path} sets {name} = {value:g}, beyond any size a model is built at (at most "
                             f"{MAX_SIZE:,}); the file is damaged or edited; {remedy}")


class SavedModel:
    """What each trainable model kind saves and loads alike: its config as `KIND_config.json` and its weights as
    `KIND_weights.pt` in the model folder, read back through the checks above. A kind sets `kind` and
    `config_class` (its config dataclass) and is built as `cls(config)`."""

    kind: str
    config_class: type

    def save(self, folder: Path) -> None:
        """Write the config and the weights into `folder` (created if missing), each whole or not at all.

        Args:
            folder: the model folder.
        """
        folder.mkdir(parents=True, exist_ok=True)
        write_json(dataclasses.asdict(self.config), folder / f"{self.kind}_config.json")
        write_torch(self.state_dict(), folder / f"{self.kind}_weights.pt")

    @classmethod
    def from_state(cls, config: dict, weights: dict, device: str = "cpu"):
        """The model of a saved config and weights.

        Args:
            config: the config's fields.
            weights: the state dict.
            device: where the model goes.

        Returns:
            The model, on `device`.
        """
        model = cls(cls.config_class(**config))
        try:
            model.load_state_dict(weights)
        except RuntimeError:
            raise ValueError(f"these {cls.kind} weights come from an earlier version of the {cls.kind} model (other "
                             "layers); train it again with this version") from None
        return model.to(device)

    @classmethod
    def load(cls, folder: Path, device: str = "cpu"):
        """The model saved in `folder`; a missing or damaged file is one line naming it.

        Args:
            folder: the model folder.
            device: where the model goes.

        Returns:
            The model, on `device`.
        """
        return cls.from_state(read_json(folder / f"{cls.kind}_config.json", DAMAGED_MODEL, cls.config_class),
                              read_torch(folder / f"{cls.kind}_weights.pt", DAMAGED_MODEL), device)
