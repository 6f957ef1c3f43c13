"""piggy design compare and piggy design sweep."""

import dataclasses
import json

import pytest

from models.design import design_toml, load_design
from models.errors import InputError
from sim.studies.designs.sweep import parse_sweep, with_value
from tests.helpers import run

SPACES = "r3c3,r7c3,r8c3,r10c0"


@pytest.mark.slow
def test_the_paired_rules_say_once_that_a_designs_figures_change_with_its_partner(capsys, tmp_path):
    """Under the mean rule (the default) each design fires until its comparison
    stops, so stock's own figures depend on fast-spring: the text says so, once;
    under the per-map rule each map is its own, and it says nothing."""
    argv = ["design", "compare", "stock", "fast-spring", "--spaces", "r8c3", "--shots", "3"]
    argv += ["--workers", "1", "--cache", str(tmp_path)]
    note = (
        "(paired shots: each design fired until its comparison stopped, so stock's own "
        "figures above change with its partner)"
    )
    code, text, _ = run(capsys, *argv)
    assert code == 0 and text.count(note) == 1
    assert text.index("mean P(knocked out)") < text.index(note)  # under the figures
    code, text, _ = run(capsys, *argv, "--rule", "per-map")
    assert code == 0 and "partner" not in text


@pytest.mark.slow
def test_compare_reports_the_figures_and_caches_the_hit_maps(capsys, tmp_path):
    argv = (
        "design",
        "compare",
        "stock",
        "fast-spring",
        "--spaces",
        SPACES,
        "--shots",
        "3",
        "--cache",
        str(tmp_path / "cache"),
        "--json",
        "--workers",
        "1",
    )
    code, out, _ = run(capsys, *argv, "--plot", str(tmp_path / "cmp.png"))
    assert code == 0
    data = json.loads(out)
    stock, fast = data["designs"]
    assert (stock["design"], fast["design"]) == ("stock", "fast-spring")
    for figures in (stock, fast):
        assert figures["spaces"] == 4 and 0 <= figures["mean_p_target"] <= 1
        low, high = figures["mean_p_target_ci"]
        assert low <= figures["mean_p_target"] <= high
        assert set(figures["dead_zones"]) == {
            "too_close",
            "too_far",
            "blocked",
            "missed",
            "never_out",
        }
    # the board mean first (3 pairs a space, no δ: nothing decided), then the spaces
    assert data["verdict"].startswith(
        "On average fast-spring against stock is not decided at the cap: "
    )
    assert (
        "; space by space, fast-spring knocks out more on 0 spaces, fewer on 0 " in data["verdict"]
    )
    assert data["verdict"].endswith("not decided at the cap on 4")
    assert data["comparisons"][0]["mean_rule"]["stop"] == "cap"
    assert [r["space"] for r in data["spaces"]] == SPACES.split(",")
    assert data["provenance"]["aimer"] == "child" and data["provenance"]["rule"] == "mean"
    cached = sorted(p.name for p in (tmp_path / "cache").glob("mean-*.shots.csv"))
    assert len(cached) == 2  # one per design
    assert (tmp_path / "cmp.png").stat().st_size > 10_000
    code, again, _ = run(capsys, *argv)  # read from the cache: the same figures, said so
    read = {"shots": 24, "shots_read": 24, "shots_fired_now": 0, "wholly": True}
    assert data["from_cache"] == read | {"shots_read": 0, "shots_fired_now": 24, "wholly": False}
    assert code == 0 and json.loads(again) == data | {"from_cache": read}


def test_a_weak_design_has_dead_zones_too_far(capsys, tmp_path):
    weak = tmp_path / "weak.toml"
    weak.write_text('name = "weak"\n[launcher]\nmuzzle_speed_mm_s = 900.0\n')
    code, out, _ = run(
        capsys,
        "design",
        "compare",
        str(weak),
        "--spaces",
        "r10c0,r7c3",
        "--shots",
        "2",
        "--cache",
        str(tmp_path / "c"),
        "--json",
    )
    figures = json.loads(out)["designs"][0]
    assert code == 0 and "r10c0" in figures["dead_zones"]["too_far"]


@pytest.mark.slow
def test_sweep_varies_one_field(capsys, tmp_path):
    code, out, _ = run(
        capsys,
        "design",
        "sweep",
        "--param",
        "muzzle_speed=1500:2500:3",
        "--spaces",
        "r8c3,r10c0",
        "--shots",
        "2",
        "--cache",
        str(tmp_path / "c"),
        "--json",
        "--plot",
        str(tmp_path / "sweep.png"),
    )
    assert code == 0
    data = json.loads(out)
    assert data["field"] == "launcher.muzzle_speed_mm_s" and data["values"] == [1500, 2000, 2500]
    assert len(data["results"]) == 3 and (tmp_path / "sweep.png").exists()


def test_parse_sweep_and_derived_designs():
    field, values = parse_sweep("launcher.pitch_sd_deg=0.5:2:4")
    assert field == "launcher.pitch_sd_deg" and list(values) == [0.5, 1.0, 1.5, 2.0]
    design = with_value(load_design("stock"), "launcher.muzzle_speed_mm_s", 2500)
    assert design.launcher.muzzle_speed_mm_s == 2500
    assert "muzzle_speed_mm_s = 2500.0" in design_toml(design)
    import dataclasses
    import tomllib

    quoted = dataclasses.replace(design, description='a "quoted" \\ spring')
    assert tomllib.loads(design_toml(quoted))["description"] == 'a "quoted" \\ spring'
    for bad in ("speed=1:2", "wings=1:2:3", "muzzle_speed=1:2:1", "sd=1:2:3"):
        with pytest.raises(InputError):
            parse_sweep(bad)
    with pytest.raises(InputError, match="out of range"):
        with_value(load_design("stock"), "launcher.muzzle_speed_mm_s", 50)


def test_compare_bad_input(capsys):
    code, _, err = run(capsys, "design", "compare", "nonesuch")
    assert code == 2 and "unknown design 'nonesuch'" in err
    code, _, err = run(capsys, "design", "compare", "stock", "--shots", "0")
    assert code == 2 and "argument --shots: 0 is out of range (allowed: from 1 to 20000)" in err


def test_a_designs_cached_map_does_not_depend_on_the_order_of_the_designs(tmp_path):
    from sim.studies.comparing.cached_maps import cached_hitmap_path
    from sim.studies.shots.space_shots import SweepSpec

    spec = SweepSpec(board="stock", design="stock", stacks={}, spaces=("r8c3",), shots=2)
    fast = load_design("fast-spring")
    first = cached_hitmap_path(spec, fast, tmp_path)
    assert first == cached_hitmap_path(
        dataclasses.replace(spec, design="fast-spring"), fast, tmp_path
    )
    assert first != cached_hitmap_path(dataclasses.replace(spec, shots=3), fast, tmp_path)
    assert first != cached_hitmap_path(spec, load_design("stock"), tmp_path)


def test_a_sweep_picture_spends_no_panel_on_a_constant_line():
    import matplotlib.pyplot as plt
    import numpy as np

    from sim.views.design_pictures import sweep_figure

    results = [
        {
            "mean_p_target": p,
            "mean_p_target_ci": [p - 0.05, p + 0.05],
            "worst_p_target": p / 2,
            "in_reach": 68,
            "collateral_rate": c,
        }
        for p, c in ((0.5, 0.0), (0.6, 0.01), (0.7, 0.03))
    ]
    fig = sweep_figure("launcher.muzzle_speed_mm_s", np.array([1500, 2000, 2500]), results)
    assert [ax.get_ylabel() for ax in fig.axes] == [
        "P(target knocked out)",
        "P(collateral knock-out), mean",
    ]
    assert "spaces in reach: 68 for every value" in fig._suptitle.get_text()
    plt.close(fig)


def _own(folder, pivot_height_mm: float):
    """A design named "own" (a copy of stock with the pivot at ``pivot_height_mm``)."""
    data = design_toml(load_design("stock")).replace('name = "stock"', 'name = "own"')
    assert 'name = "own"' in data and "pivot_height_mm = 70.0" in data
    path = folder / f"own-{pivot_height_mm:g}.toml"
    path.write_text(data.replace("pivot_height_mm = 70.0", f"pivot_height_mm = {pivot_height_mm}"))
    return path


@pytest.mark.slow
@pytest.mark.parametrize("rule", ["mean", "per-map"])
def test_two_designs_of_one_name_are_cached_by_their_content_and_checked_when_read(
    capsys, tmp_path, rule
):
    """Two files both named "own", of other pivots: each compared against stock gets
    maps of its own in the cache, each holding its own content; a cached map whose
    provenance names another design's content is refused when read, not taken."""
    from models.design import design_content_sha256
    from sim.studies.shots.datafiles import read_provenance, sidecar_path

    options = ["--spaces", "r8c3", "--shots", "3", "--workers", "1", "--json", "--rule", rule]
    options += ["--cache", str(tmp_path / "cache")]
    owns = [_own(tmp_path, 70.0), _own(tmp_path, 90.0)]
    contents = [design_content_sha256(load_design(str(o))) for o in owns]
    for own in owns:
        code, _, err = run(capsys, "design", "compare", "stock", str(own), *options)
        assert code == 0, err
    maps = {
        read_provenance(p)["design_sha256"]: p
        for p in (tmp_path / "cache").glob("*.csv")
        if not p.name.endswith(".shots.csv") and read_provenance(p)["design"] == "own"
    }
    assert sorted(maps) == sorted(contents)
    # the first map's provenance edited to name the second's content: refused on reading
    sidecar = sidecar_path(maps[contents[0]])
    sidecar.write_text(json.dumps(json.loads(sidecar.read_text()) | {"design_sha256": contents[1]}))
    code, out, err = run(capsys, "design", "compare", "stock", str(owns[0]), *options)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"cache {maps[contents[0]]} holds another design's map than this own" in err
