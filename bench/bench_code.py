"""Code sandbox throughput on a 32-test problem, side by side in one run:
the warm Docker pool (one serving runner per container), one fresh container per solution (how code-r1 uses Docker), the local
bubblewrap backend, and a plain unisolated subprocess (the floor).
Targets: warm pool >= 10x fresh containers; local backend within 3x of the floor.
"""

from __future__ import annotations

import time

from bench.common import write_results
from sandboxes.base import Limits
from sandboxes.docker_pool import DockerBackend
from sandboxes.local import LocalBackend
from sandboxes.suite import Test, run_tests

SOLUTION = "def collatz(n):\n    steps = 0\n    while n != 1:\n        n = n // 2 if n % 2 == 0 else 3 * n + 1\n        steps += 1\n    return steps\n"


def _expected(n: int) -> int:
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


TESTS = [Test("call", f"collatz({n})", _expected(n)) for n in range(1, 33)]


def _rate(backend, seconds: float = 8.0) -> float:
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        result = run_tests(backend, SOLUTION, TESTS, Limits())
        assert result.passed == 32, result.outcomes[:3]
        done += 1
    return done / (time.perf_counter() - start)


def main() -> dict:
    warm = DockerBackend(pool_size=2)
    fresh = DockerBackend(pool_size=0)
    local, floor = LocalBackend(), LocalBackend(confined=False)
    try:
        rates = {
            "docker_warm_pool": _rate(warm),
            "docker_fresh_container": _rate(fresh, 12.0),
            "local_bubblewrap": _rate(local),
            "plain_subprocess": _rate(floor),
        }
    finally:
        for b in (warm, fresh, local, floor):
            b.close()
    figures = {
        **rates,
        "warm_over_fresh": rates["docker_warm_pool"] / rates["docker_fresh_container"],
        "floor_over_local": rates["plain_subprocess"] / rates["local_bubblewrap"],
    }
    table = [
        ("backend", "solutions/s (32 tests each)", "ratio"),
        (
            "Docker, warm pool (a serving runner per container)",
            f"{rates['docker_warm_pool']:.2f}",
            f"{figures['warm_over_fresh']:.1f}x fresh (target >= 10x)",
        ),
        ("Docker, fresh container per solution", f"{rates['docker_fresh_container']:.2f}", "1.0x"),
        (
            "local (bubblewrap)",
            f"{rates['local_bubblewrap']:.2f}",
            f"takes {figures['floor_over_local']:.2f}x the floor's time (target <= 3x)",
        ),
        ("plain subprocess, no isolation (floor)", f"{rates['plain_subprocess']:.2f}", ""),
    ]
    write_results(
        "code",
        figures,
        table,
        notes="One solution at a time on 2 CPU cores; each solution runs in a fresh program process, judged from another.",
    )
    return figures


if __name__ == "__main__":
    main()
