"""The Host names ``piggy serve`` answers on loopback: ``--allow-host`` takes host
names and IP literals only, and a malformed Host header matches no allowed name."""

from __future__ import annotations

import asyncio
import socket

import pytest

from sim.cli import main
from sim.serve.hosts import LOCAL_HOSTS, allowed_host, host_name


@pytest.mark.parametrize(
    ("given", "why"),
    [
        ("*", "is a wildcard: name each host"),
        ("*.example.com", "is a wildcard: name each host"),
        ("http://evil.example", "is a URL: give its host name alone"),
        ("evil.example/path", "is a URL: give its host name alone"),
        ("pi.local:8765", "is a name with a port: give the name alone"),
        ("[::1]:8765", "is a name with a port: give the name alone"),
        ("under_score.example", "is not a host name or an IP address"),
        ("[::1", "is not a host name or an IP address"),
        ("[::1]evil.example", "is not a host name or an IP address"),
        ("1.2.3", "is not a host name or an IP address"),
        ("[10.0.0.1]", "is not a host name or an IP address"),
    ],
)
def test_allow_host_refuses_what_is_not_a_name_or_an_address_on_one_line(capsys, given, why):
    """Refused when the command line is read, before any file is read or port opened
    (the layout named does not exist: it would be the refusal otherwise)."""
    code = main(["serve", "--allow-host", given, "--layout", "/no/such/layout.json"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith("piggy: error: piggy serve: argument --allow-host: ") and why in err, err
    assert "allowed: a host name such as pi.local, or an IP address" in err


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("pi.local", "pi.local"),
        ("Pi.Local", "pi.local"),
        ("192.168.1.5", "192.168.1.5"),
        ("fe80::1", "[fe80::1]"),
        ("[FE80:0:0::1]", "[fe80::1]"),
        ("my-box", "my-box"),
    ],
)
def test_allow_host_takes_names_and_addresses_as_a_host_header_is_read(given, kept):
    assert allowed_host(given) == kept
    assert host_name(f"{given if ':' not in given or given.startswith('[') else f'[{given}]'}")


@pytest.mark.parametrize(
    ("header", "name"),
    [
        ("localhost:8765", "localhost"),
        ("LOCALHOST", "localhost"),
        ("127.0.0.1:80", "127.0.0.1"),
        ("[::1]:8765", "[::1]"),
        ("[0:0:0:0:0:0:0:1]", "[::1]"),
        ("[::1", None),
        ("[::1]evil.example", None),
        ("[::1]:80evil", None),
        ("[[::1]]", None),
        ("::1", None),  # an IPv6 address unbracketed: not a Host header's form
        ("evil.example:80:80", None),
        ("", None),
    ],
)
def test_a_host_header_is_read_strictly(header, name):
    assert host_name(header) == name


def _status_for(host: str) -> int:
    """The status the sandbox's guard gives a request with the token naming ``host``."""
    pytest.importorskip("starlette")
    from sim.serve.guard import Guard

    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "GET",
        "path": "/",
        "query_string": b"token=t",
        "headers": [(b"host", host.encode())],
    }
    asyncio.run(Guard(app, token="t", hosts=LOCAL_HOSTS)(scope, receive, send))
    return next(m["status"] for m in sent if m["type"] == "http.response.start")


@pytest.mark.parametrize("host", ["[::1", "[::1]evil.example", "[::1]:8765evil"])
def test_a_malformed_bracket_is_refused_by_the_guard(host):
    assert _status_for(host) == 403


@pytest.mark.parametrize("host", ["[::1]:8765", "localhost:8765", "127.0.0.1"])
def test_the_local_names_are_answered(host):
    assert _status_for(host) == 200


@pytest.mark.parametrize(
    ("host", "shown"),
    [
        ("0.0.0.0", socket.gethostname()),
        ("::", socket.gethostname()),
        ("127.0.0.1", "127.0.0.1"),
        ("::1", "[::1]"),
        ("pi.local", "pi.local"),
    ],
)
def test_the_printed_url_names_a_host_a_browser_can_open(host, shown):
    """Listening on every address (0.0.0.0), the URL names this machine, not 0.0.0.0."""
    from sim.cli.serve import url_host

    assert url_host(host) == shown
