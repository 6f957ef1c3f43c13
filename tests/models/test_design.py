import pytest

from models.design import Design, design_from_dict, known_designs, load_design
from models.errors import InputError


def test_stock_file_is_the_documented_default():
    stock = load_design("stock")
    assert stock == Design(name="stock", description=stock.description)


def test_there_is_an_alternative_design():
    assert {"stock", "fast-spring"} <= set(known_designs())
    fast = load_design("fast-spring")
    assert fast.launcher.muzzle_speed_mm_s > load_design("stock").launcher.muzzle_speed_mm_s


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"launcher": {"muzzle_speed_mm_s": 50.0}},
            r"'launcher.muzzle_speed_mm_s' = 50.0 is out of range \[100, 20000\]",
        ),
        ({"bale": {"restitution": 1.5}}, r"'bale.restitution' = 1.5 is out of range \[0, 1\]"),
        ({"bale": {"colour": "yellow"}}, "unknown field 'bale.colour'"),
        ({"physics": {"solver_iterations": 2.5}}, "must be a whole number"),
        ({"physics": {"air_drag": 1}}, "must be true or false"),
        ({"piggy": {"mass_g": "heavy"}}, "must be a number"),
        ({"launcher": {"pitch_min_deg": 30.0, "pitch_max_deg": 10.0}}, "must be below"),
        ({"bale": {"corner_radius_mm": 4.0}}, "under half the bale's smallest side"),
        ({"wheels": 4}, "unknown key 'wheels'"),
    ],
)
def test_bad_designs_name_the_field_and_the_range(data, message):
    with pytest.raises(InputError, match=message):
        design_from_dict(data)


def test_design_by_path_and_malformed(tmp_path):
    path = tmp_path / "slow.toml"
    path.write_text('name = "slow"\n[launcher]\nmuzzle_speed_mm_s = 1500.0\n')
    design = load_design(path)
    assert design.name == "slow" and design.launcher.muzzle_speed_mm_s == 1500.0
    (tmp_path / "bad.toml").write_text("[launcher\n")
    with pytest.raises(InputError, match="not valid TOML"):
        load_design(tmp_path / "bad.toml")
    with pytest.raises(InputError, match="unknown design 'turbo'"):
        load_design("turbo")
