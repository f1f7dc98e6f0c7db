"""The benchmark's meaning, at the bottom of the project: relations, each declared once (`relation_kinds`), and the
one relevance function (`relations`), how classes are said (`phrases`), `kind:location?options` specs (`spec`) and
how a build is written down (`records`: table fields, constraint JSON, captions, the fingerprint).

It imports nothing else of the project; the generator, the models, evaluation, training and the dataset stand on
it (the import-linter contracts in setup.cfg say so)."""
