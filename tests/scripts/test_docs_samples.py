"""The sample outputs in README.md and docs/*.md are what the commands print now
(scripts/docs_samples.py makes them; a test fails when they drift)."""

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

from sim.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location(
        "docs_samples", ROOT / "scripts" / "docs_samples.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["docs_samples"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


samples = _script()


@pytest.mark.parametrize("name", [n for n, s in samples.SAMPLES.items() if s.checked])
def test_sample_blocks_are_what_the_commands_print_now(name):
    sample = samples.SAMPLES[name]
    made = sample.make()
    for file in sample.files:
        found = samples.blocks((ROOT / file).read_text())
        assert name in found, f"{file} has no '<!-- sample: {name} -->' block"
        assert found[name] == made, (
            f"{file}: the '{name}' sample differs from what the code "
            "prints now: run python scripts/docs_samples.py"
        )


def test_a_drifted_block_is_found_and_rewritten_alone():
    text = (
        "intro\n<!-- sample: a -->\n```text\nold\n```\n<!-- /sample -->\nmiddle\n"
        "<!-- sample: b -->\nkept\n<!-- /sample -->\n"
    )
    assert samples.blocks(text) == {"a": "```text\nold\n```\n", "b": "kept\n"}
    rewritten = samples.rewrite(text, {"a": "```text\nnew\n```\n"})
    assert samples.blocks(rewritten) == {"a": "```text\nnew\n```\n", "b": "kept\n"}
    assert rewritten.startswith("intro\n") and "\nmiddle\n" in rewritten


def test_the_readme_and_demo_help_give_the_same_duration():
    demo = build_parser()._subparsers._group_actions[0].choices["demo"]
    said = re.search(r"[Aa]bout (a minute|half a minute|\w+ minutes)", demo.description)
    readme = (ROOT / "README.md").read_text()
    setup = readme[readme.index("## Set up") : readme.index("piggy demo")]
    assert said and f"(about {said[1]})" in setup


def test_compact_json_breaks_only_what_does_not_fit():
    data = {"short": [1, 2], "long": {"k" * 30: "v" * 40, "other": "x" * 40}}
    text = samples.compact_json(data, width=60)
    assert '"short": [1, 2]' in text and text.count("\n") == 6
    assert max(len(line) for line in text.splitlines()) > 60  # a long string is not cut
    assert json.loads(text) == data
