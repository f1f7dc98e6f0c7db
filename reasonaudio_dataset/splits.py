"""The splits a build can hold: a module of its own, so that sources and the CLI name them without `datasets`."""
SPLITS = ("train", "validation", "test")
