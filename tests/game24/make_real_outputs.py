"""Build `data/smollm2_outputs.jsonl` from an evaluation run of the packaged model:

    evalkit eval --verifier game24 --split train --limit 24 -n 4 --run-dir /tmp/g24
    python tests/game24/make_real_outputs.py /tmp/g24/samples.jsonl

Each line keeps the task, the completion exactly as generated and the verdict it scored then
(the test checks the verdict is unchanged, and that dressing the answer never changes it).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import verifiers

OUT = Path(__file__).with_name("data") / "smollm2_outputs.jsonl"


def main(samples: Path) -> None:
    v = verifiers.get("game24")
    tasks = {t["id"]: t for t in v.tasks("all")}
    OUT.parent.mkdir(exist_ok=True)
    with OUT.open("w") as out:
        for line in samples.read_text().splitlines():
            record = json.loads(line)
            task = {k: tasks[record["task_id"]][k] for k in ("numbers", "target") if k in tasks[record["task_id"]]}
            verdict = v.score(record["completion"], task).verdict.value
            out.write(
                json.dumps(
                    {
                        "task_id": record["task_id"],
                        "task": task,
                        "completion": record["completion"],
                        "verdict": verdict,
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
