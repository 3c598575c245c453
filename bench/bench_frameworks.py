"""evalkit rewards inside verl's reward loop (verl 0.9.1 in `.venv-frameworks`): per-item cost in
`RewardLoopManager.compute_rm_score` (one `RewardLoopWorker` scoring a batch's items concurrently,
one `compute_score` call each) beside one direct `score_batch` of the same items, in one run per
verifier (tests/adapters/frameworks/verl_cost.py); and verl's own floor, a reward function that
returns 0.0 at once. Targets (issue 30): <= 1.5x direct for code, <= 5x for game24."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from bench.common import write_results

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ROOT / ".venv-frameworks" / "bin" / "python"
SCRIPT = ROOT / "tests" / "adapters" / "frameworks" / "verl_cost.py"
CASES = [
    ("game24", "game24", {}, 16, False),
    ("verl's floor (a reward that returns 0.0)", "game24", {}, 16, True),
    ("code, local", "code", {"backend": "local"}, 8, False),
    ("code, docker", "code", {"backend": "docker"}, 8, False),
]


def measure(name: str, config: dict, items: int, floor: bool) -> dict:
    args = [str(PYTHON), str(SCRIPT), name, json.dumps(config), str(items)] + (["--floor"] if floor else [])
    done = subprocess.run(args, capture_output=True, text=True, timeout=900, cwd=ROOT)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> dict:
    figures = {label: measure(name, config, n, floor) for label, name, config, n, floor in CASES}
    table = [("reward", "direct ms/item", "in verl ms/item", "ratio", "containers started per warm batch")]
    for label, f in figures.items():
        direct, in_verl = 1000 * f["direct_s_per_item"], 1000 * f["verl_s_per_item"]
        table.append(
            (label, f"{direct:.2f}", f"{in_verl:.2f}", f"{in_verl / direct:.2f}x", str(f["containers_started_warm"]))
        )
    notes = (
        "verl 0.9.1, `reward.num_workers=1`, naive manager, medians of 3 warm batches (16 game24 solutions; 8 LeetCode "
        "reference solutions); direct: one warm `score_batch` with 2 workers in the same process. The floor row is "
        "verl's own cost per item with a reward function that does nothing: evalkit adds the difference. Targets: "
        "code <= 1.5x, game24 <= 5x. OpenRLHF's executor is not measured here."
    )
    write_results("frameworks", figures, table, notes=notes)
    return figures


if __name__ == "__main__":
    main()
