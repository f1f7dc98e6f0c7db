"""Every trainable model kind saves and loads through one `SavedModel`: its config and weights under its kind's
name, read back whole, and weights of other layers refused in one line."""
import pytest
import torch

from reasonaudio.models.files import SavedModel
from reasonaudio.models.registry import KINDS
from reasonaudio.models.small import SmallAudioText, SmallConfig


def test_the_trainable_kinds_share_one_way_to_save():
    saved = [kind for kind, model in KINDS.items() if issubclass(model, SavedModel)]
    assert {"small", "detector", "dual"} <= set(saved)
    assert all(KINDS[kind].kind == kind for kind in saved)


def test_a_model_comes_back_as_saved_and_other_layers_are_refused(tmp_path):
    model = SmallAudioText(SmallConfig(vocabulary=["a", "dog"], width=32, layers=1, segment_width=16))
    model.save(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["small_config.json", "small_weights.pt"]
    again = SmallAudioText.load(tmp_path)
    assert again.config == model.config
    assert all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), again.state_dict().values()))
    weights = model.state_dict()
    weights.pop(next(iter(weights)))
    with pytest.raises(ValueError, match="these small weights come from an earlier version of the small model"):
        SmallAudioText.from_state(vars(model.config), weights)
