"""Aimer files: the shipped ones load, bad ones are refused with one line."""

import pytest

from models.aimer import PERFECT, aimer_from_dict, known_aimers, load_aimer, parse_aim_sd
from models.errors import InputError


def test_shipped_aimers_order_by_skill():
    assert {"perfect", "adult", "child"} <= set(known_aimers())
    perfect, adult, child = (load_aimer(n) for n in ("perfect", "adult", "child"))
    assert (perfect.yaw_sd_deg, perfect.pitch_sd_deg) == (PERFECT.yaw_sd_deg, 0.0)
    assert 0 < adult.yaw_sd_deg < child.yaw_sd_deg
    assert 0 < adult.pitch_sd_deg < child.pitch_sd_deg


@pytest.mark.parametrize(
    "data, message",
    [
        ({"yaw_sd_deg": -1}, "out of range"),
        ({"pitch_sd_deg": float("nan")}, "out of range"),
        ({"yaw_sd_deg": "3"}, "must be a number"),
        ({"yaw_sd_deg": True}, "must be a number"),
        ({"pitch_bias_deg": 45}, "out of range"),
        ({"speed_sd": 1}, "unknown key 'speed_sd'"),
        ({"name": ""}, "non-empty"),
    ],
)
def test_bad_aimer_files_are_refused(data, message):
    with pytest.raises(InputError, match=message) as error:
        aimer_from_dict(data, source="x.toml")
    assert "\n" not in str(error.value)


def test_unknown_aimer_lists_the_known_ones():
    with pytest.raises(InputError, match="known aimers are adult, child, perfect"):
        load_aimer("toddler")


@pytest.mark.parametrize("text", ["3", "3,4,5", "a,b", "-1,2", "2,31", "nan,1"])
def test_bad_aim_sd_is_refused(text):
    with pytest.raises(InputError, match="--aim-sd"):
        parse_aim_sd(text)


def test_aim_sd_overrides_the_spread_and_keeps_the_bias():
    child = aimer_from_dict({"name": "c", "yaw_sd_deg": 3, "pitch_bias_deg": 0.5})
    wider = child.with_spread(*parse_aim_sd("5,6"))
    assert (wider.yaw_sd_deg, wider.pitch_sd_deg, wider.pitch_bias_deg) == (5.0, 6.0, 0.5)
