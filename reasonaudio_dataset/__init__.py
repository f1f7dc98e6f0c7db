"""What makes a generated ReasonAudio folder a Hugging Face dataset: schema, card, loading helpers."""
