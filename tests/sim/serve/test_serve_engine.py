"""``piggy serve --engine``: the sandbox's shots in the engine chosen, as ``piggy
shoot --engine`` fires them."""

from __future__ import annotations

import json

import pytest

from sim.cli import main
from sim.serve import jobs

pytest.importorskip("mujoco")

STACKS = {"r8c3": ["gold-2", "pink-1"], "r9c3": ["blue-1"]}


def test_a_served_shot_in_mujoco_is_piggy_shoots_in_mujoco(tmp_path, capsys):
    served = jobs.fire("stock", "stock", STACKS, {"at": "blue-1"}, 3, True, "child", "mujoco")
    bullet = jobs.fire("stock", "stock", STACKS, {"at": "blue-1"}, 3, True, "child", None)
    layout = tmp_path / "layout.json"
    layout.write_text(json.dumps({"board": "stock", "stacks": STACKS}))
    shoot = ["shoot", "--layout", str(layout), "--at", "blue-1", "--seed", "3", "--aimer", "child"]
    assert main([*shoot, "--engine", "mujoco", "--json"]) == 0
    assert served["shot"] == json.loads(capsys.readouterr().out)
    assert main([*shoot, "--json"]) == 0
    assert bullet["shot"] == json.loads(capsys.readouterr().out)
    assert served["shot"]["engine"] == "mujoco"
    assert bullet["shot"].get("engine", "bullet") == "bullet"


def test_an_unknown_engine_is_refused_before_the_server_starts(capsys):
    assert main(["serve", "--engine", "havok", "--port", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "havok" in err and "bullet" in err
