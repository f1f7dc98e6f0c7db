"""The splits a build can hold: a module of its own, so that sources and the CLI name them without `datasets`."""
SPLITS = ("train", "validation", "test")
RECORDS = ".reasonaudio"      # a generated folder's records: {split}.plan.json when planned, {split}.json when finished
