"""A diagnostic run: `lr3e-6.json` with the training prompts balanced by the operation each needs.

Why: + solves half of countdown-2's training puzzles (+ 80, × 48, − 28), and in every run + rises
first while − falls to 0. Repeating the × puzzles twice and the − puzzles three times draws each
operation about equally often; if the drift comes from that imbalance, − should hold here.
Usage: python experiments/grpo_shots/balanced.py RUN_DIR   (then: python scripts/countdown_ops.py RUN_DIR)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from countdown_ops import operation  # noqa: E402

from evalkit.grpo import GRPOConfig, GRPOTrainer  # noqa: E402
from evalkit.jsonl import JsonlWriter  # noqa: E402

REPEATS = {"+": 1, "×": 2, "−": 3}


def main(run_dir: Path) -> None:
    cfg = GRPOConfig.from_dict(json.loads((Path(__file__).with_name("lr3e-6.json")).read_text()))
    run_dir.mkdir(parents=True, exist_ok=True)
    trainer = GRPOTrainer(cfg, run_dir)
    trainer.tasks = [t for t in trainer.tasks for _ in range(REPEATS.get(operation(t["id"]), 1))]
    with JsonlWriter(run_dir / "log.jsonl") as log:
        log.write(trainer.evaluate())
        while trainer.step < cfg.steps:
            log.write(trainer.train_step())
            if trainer.step % cfg.eval_every == 0:
                log.write(trainer.evaluate())
            log.flush()
    trainer.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
