import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load("reasonaudio_metric")
launch_gradio_widget(module)
