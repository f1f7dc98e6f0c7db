"""Whether the Hugging Face Hub can be asked at all, told in two seconds: `datasets` and `transformers` retry an
unreachable Hub for tens of seconds before they give up."""
from __future__ import annotations

import os
import socket
from urllib.parse import urlparse

HUB_TIMEOUT = 2.0     # seconds to reach the Hub before a name neither local nor cached is refused


def hub_offline() -> bool:
    """Whether the environment asks for no Hub access (HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE set true).

    Returns:
        True when offline is asked for.
    """
    return any(os.environ.get(name, "").lower() in ("1", "true", "yes", "on") for name in ("HF_HUB_OFFLINE",
                                                                                              "TRANSFORMERS_OFFLINE"))


def unreachable_hub() -> str | None:
    """Why the Hub's endpoint (`HF_ENDPOINT`, huggingface.co by default) cannot be reached from here, or None
    when it answers a connection within HUB_TIMEOUT seconds.

    Returns:
        "HOST cannot be reached: REASON", or None.
    """
    from huggingface_hub import constants   # imported here: a local folder never needs it

    endpoint = urlparse(constants.ENDPOINT)
    try:
        socket.create_connection((endpoint.hostname, endpoint.port or (80 if endpoint.scheme == "http" else 443)),
                                 timeout=HUB_TIMEOUT).close()
    except OSError as error:
        return f"{endpoint.hostname} cannot be reached: {error}"
    return None
