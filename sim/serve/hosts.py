"""The Host names a server on the loopback address answers to (against DNS rebinding:
a page of another site whose name resolves to 127.0.0.1 sends its own name, as
Jupyter guards it): reading a request's Host header (:func:`host_name`) and
checking a name given with ``--allow-host`` (:func:`allowed_host`). Both take a
host name or an IP literal only; anything else (a wildcard, a URL, a port on an
allowed name, a malformed bracket) is refused, never taken for a name.
"""

from __future__ import annotations

import ipaddress
import re

from models.text import shown

#: The names a server on loopback always answers to.
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "[::1]"})
#: A DNS name (RFC 1123): dot-separated labels of letters, digits and inner hyphens.
_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_NAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})*")
_MAX_NAME = 253
#: A Host header (RFC 9110): a name, an IPv4 address or a bracketed IPv6 one, then
#: an optional port.
_HEADER = re.compile(r"(?P<host>\[[^\[\]]*\]|[^\[\]:]*)(?::[0-9]*)?")


def _literal(text: str) -> str | None:
    """``text`` as a host name or IP literal, normalised (lower case; IPv6 in brackets,
    compressed), or None when it is neither."""
    bracketed = text.startswith("[") and text.endswith("]")
    try:
        address = ipaddress.ip_address(text[1:-1] if bracketed else text)
    except ValueError:
        address = None
    if address is not None:
        if address.version == 6:
            return f"[{address.compressed}]"
        return None if bracketed else str(address)
    numeric = all(label.isdigit() for label in text.split("."))  # 1.2.3: no address
    if len(text) <= _MAX_NAME and _NAME.fullmatch(text) and not numeric:
        return text
    return None


def host_name(header: str) -> str | None:
    """A Host header's name, normalised, without its port (``[::1]:8765`` -> ``[::1]``);
    None for a malformed header (``[::1``, ``[::1]evil.example``), which no allowed
    name matches."""
    match = _HEADER.fullmatch(header.strip().lower())
    return _literal(match["host"]) if match else None


def allowed_host(text: str) -> str:
    """A name for ``--allow-host``, normalised as :func:`host_name` normalises a Host
    header's; a :class:`ValueError` of one line, saying what is allowed, else."""
    name = _literal(text.strip().lower())
    if name is not None:
        return name
    if "://" in text or "/" in text:
        why = "a URL: give its host name alone"
    elif "*" in text:
        why = "a wildcard: name each host"
    elif _HEADER.fullmatch(text.strip().lower()) and ":" in text:
        why = "a name with a port: give the name alone (every port of it is answered)"
    else:
        why = "not a host name or an IP address"
    raise ValueError(
        f"{shown(text, 60)} is {why} (allowed: a host name such as pi.local, or an IP "
        "address such as 192.168.1.5 or [fe80::1])"
    )
