"""The bots that --help and the README list are names a person can type as shown."""

from __future__ import annotations

import re

from referee.bots import check_bot
from sim.cli.terminal import bots_help


def test_every_bot_listed_is_accepted_as_written():
    listed = dict(part.split(": ", 1) for part in bots_help().split("; "))
    assert "hold-at-20 (any hold-at-N)" in listed["pig-out"]
    for game, names in listed.items():
        for name in names.split(", "):
            typed = re.sub(r" \(.*\)$", "", name)  # a word in brackets is not typed
            check_bot(typed, game.replace("-", "_"))  # refused: InputError
