"""Run every benchmark module and print its figures.

Each module under ``bench/`` listed in MODULES has a ``run(argv)`` function that prints
its own section. Figures are ratios measured in one run, since these machines are noisy.
``python -m bench engine solver`` runs only the named ones; options after them are the
modules' own (``python -m bench hints --deals 1000 --rules nowrap``).
"""

from __future__ import annotations

import importlib
import sys

MODULES = (
    "engine",
    "solver",
    "analysis",
    "hints",
    "difficulty",
    "fairplay",
    "http",
    "servers",
    "abuse",
    "leaderboard",
    "duels",
    "ratelimit",
)


def main(argv: list[str]) -> int:
    # The module names come first; what follows the first option is the modules' own.
    leading = next((i for i, a in enumerate(argv) if a.startswith("-")), len(argv))
    names = argv[:leading] or list(MODULES)
    for name in names:
        try:
            module = importlib.import_module(f"bench.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"bench.{name}":
                raise
            print(f"# bench.{name}: not present, skipped")
            continue
        print(f"\n## {name}")
        module.run(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
