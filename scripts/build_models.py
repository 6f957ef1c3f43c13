"""Regenerate the cached model assets under models/assets/, deterministically.

    python scripts/build_models.py          # write the assets
    python scripts/build_models.py --check  # exit 1 if the cache is stale

tests/models/test_meshes.py fails when the committed cache no longer matches
what this script would write.
"""

import argparse
import sys
import time

from models.meshes import ASSETS_DIR, build_assets


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare; write nothing")
    args = parser.parse_args()
    start = time.perf_counter()
    assets = build_assets()
    stale = [
        name
        for name, text in assets.items()
        if not (ASSETS_DIR / name).is_file() or (ASSETS_DIR / name).read_text() != text
    ]
    if args.check:
        for name in stale:
            print(f"stale: {name}")
        print(f"{len(assets) - len(stale)}/{len(assets)} assets up to date")
        return 1 if stale else 0
    ASSETS_DIR.mkdir(exist_ok=True)
    for name, text in assets.items():
        tmp = ASSETS_DIR / f".{name}.tmp"
        tmp.write_text(text)
        tmp.replace(ASSETS_DIR / name)
        print(f"wrote {ASSETS_DIR / name} ({len(text):,} bytes)")
    print(f"done in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
