"""`kind:location?option=value&...` specs, as --source and --model take them."""
from __future__ import annotations

from urllib.parse import parse_qsl


def parse_spec(spec: str) -> tuple[str, str, dict[str, str]]:
    kind, _, rest = spec.partition(":")
    location, _, query = rest.partition("?")
    try:
        options = dict(parse_qsl(query, strict_parsing=bool(query)))
    except ValueError:
        raise ValueError(f"malformed options in {spec!r}: expected ?name=value&name=value") from None
    return kind, location, options
