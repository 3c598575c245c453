"""A GRPO run on disk: the trainer's steps to `run_dir/log.jsonl` (one line a step, held-out
evaluations between), checkpoints that resume, the saved model and the seed's figures."""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable

from .config import ConfigError, GRPOConfig
from .trainer import GRPOTrainer


def train(
    cfg: GRPOConfig,
    run_dir: Path,
    resume: bool = True,
    progress: Callable[[int], None] | None = None,
    warmup_progress: Callable[[dict[str, Any]], None] | None = None,
) -> Path:
    """Run (or resume) training; a JSONL line per step in run_dir/log.jsonl, then the plots.
    `progress` gets each finished step, `warmup_progress` each warm-up epoch's log line."""
    from evalkit.grpo.plots import plot_run
    from evalkit.jsonl import JsonlWriter

    if resume:
        check_resumable(cfg, run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    if not resume and (run_dir / "warmup").exists():
        shutil.rmtree(run_dir / "warmup")  # starting over starts the warm-up over too
    (run_dir / "config.json").write_text(json.dumps(asdict(cfg), indent=2) + "\n")
    trainer = GRPOTrainer(cfg, run_dir, warmup_progress=warmup_progress)
    if resume and trainer.load() and progress:
        progress(trainer.step)
    log_path = run_dir / "log.jsonl"
    _truncate_log(log_path, trainer.step)
    board = _tensorboard(run_dir) if cfg.tensorboard else None
    try:
        with JsonlWriter(log_path) as log:

            def record(line: dict[str, Any]) -> None:
                log.write(line)
                if board is not None:
                    step = line.get("step", line.get("eval_step", 0))
                    for key, value in line.items():
                        if isinstance(value, (int, float)) and key not in ("step", "eval_step"):
                            board.add_scalar(key, value, step)
                    board.flush()

            if trainer.step == 0 and cfg.eval_every:
                record(trainer.evaluate())
                log.flush()
            while trainer.step < cfg.steps:
                record(trainer.train_step())
                if cfg.eval_every and trainer.step % cfg.eval_every == 0:
                    record(trainer.evaluate())
                if trainer.step % cfg.save_every == 0 or trainer.step == cfg.steps:
                    trainer.save()
                log.flush()
                if progress:
                    progress(trainer.step)
        trainer.save_model(run_dir / "model")
    finally:
        trainer.close()
        if board is not None:
            board.close()
    plot_run(run_dir)
    return run_dir


# what a resumed run may change: how long it runs, how often it saves and evaluates, and where and
# with how much memory it computes; anything else would continue one run under another's settings
RESUMABLE_CHANGES = frozenset(
    {"steps", "save_every", "eval_every", "tensorboard", "threads", "device", "logits_budget", "gradient_checkpointing"}
)


def check_resumable(cfg: GRPOConfig, run_dir: Path) -> None:
    """Raise ConfigError, naming the settings, where `run_dir` holds a checkpoint of a run with
    other settings (the checkpoint would silently continue under the new ones)."""
    saved = run_dir / "config.json"
    if not (run_dir / "checkpoint.pt").exists() or not saved.exists():
        return
    try:
        before = json.loads(saved.read_text())
    except (OSError, json.JSONDecodeError):
        return  # unreadable: the trainer's own load decides
    now = asdict(cfg)
    changed = [k for k in sorted(now) if k not in RESUMABLE_CHANGES and k in before and before[k] != now[k]]
    if changed:
        shown = ", ".join(f"{k}: {before[k]!r} there, {now[k]!r} now" for k in changed[:3])
        raise ConfigError(
            f"{run_dir} holds a run with other settings ({shown}{', ...' if len(changed) > 3 else ''}): "
            "resume it with its own, or start over (--no-resume, or another --run-dir)"
        )


def _tensorboard(run_dir: Path) -> Any:
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        raise ValueError("tensorboard=true needs the tensorboard package: pip install tensorboard") from None
    return SummaryWriter(str(run_dir / "tensorboard"))


def _truncate_log(path: Path, step: int) -> None:
    """On resume, drop log lines after the checkpoint's step (they will be redone)."""
    if not path.exists():
        return
    keep = []
    for line in path.read_text().splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if record.get("step", record.get("eval_step", 0)) <= step:
            keep.append(line)
    path.write_text("".join(x + "\n" for x in keep))
