"""Run every benchmark (`python -m bench.run`, or `python -m bench.run game24 svg` for some) and
collect their Markdown tables into bench/results/SUMMARY.md and docs/benchmarks.md (`bench/readme.py`)."""

from __future__ import annotations

import importlib
import sys
import time
import traceback
from pathlib import Path

from bench import readme

HERE = Path(__file__).resolve().parent


def main(names: list[str]) -> int:
    available = sorted(p.stem[len("bench_") :] for p in HERE.glob("bench_*.py"))
    chosen = names or available
    failed = []
    for name in chosen:
        print(f"=== bench {name}", flush=True)
        start = time.perf_counter()
        try:
            importlib.import_module(f"bench.bench_{name}").main()
        except Exception:
            traceback.print_exc()
            failed.append(name)
        print(f"=== bench {name}: {time.perf_counter() - start:.0f} s", flush=True)
    readme.update()
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
