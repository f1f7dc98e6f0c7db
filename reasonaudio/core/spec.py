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


MAX_INTEGER_OPTION = 2 ** 63 - 1     # what torch's and numpy's seeds take


def integer_option(spec: str, name: str, text: str, minimum: int = 0) -> int:
    """An option of a spec that is a whole number (a seed, a count), or a one-line error naming it."""
    value = int(text) if isinstance(text, str) and text.strip().lstrip("+-").isdigit() else None
    if value is None or not minimum <= value <= MAX_INTEGER_OPTION:
        raise ValueError(f"{spec}: option {name} must be an integer from {minimum} to 2**63 - 1, got {text!r}")
    return value
