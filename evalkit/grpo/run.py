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
    say: Callable[[str], None] | None = None,
) -> Path:
    """Run (or resume) training; a JSONL line per step in run_dir/log.jsonl, then the plots. The
    run ends with a held-out evaluation of its final policy (unless `eval_every` is 0).
    `progress` gets each finished step, `warmup_progress` each warm-up epoch's log line, `say` one
    line per step and per event (loading, resuming, evaluating, saving)."""
    from evalkit.grpo.plots import plot_run
    from evalkit.jsonl import JsonlWriter

    if resume:
        check_resumable(cfg, run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    if not resume and (run_dir / "warmup").exists():
        shutil.rmtree(run_dir / "warmup")  # starting over starts the warm-up over too
    (run_dir / "config.json").write_text(json.dumps(asdict(cfg), indent=2) + "\n")
    tell = say or (lambda _line: None)
    tell(f"loading {cfg.model or 'the packaged model'} for {cfg.verifier}")
    trainer = GRPOTrainer(cfg, run_dir, warmup_progress=warmup_progress)
    if resume and trainer.load():
        tell(f"resumed from {run_dir / 'checkpoint.pt'} at step {trainer.step}")
        if progress:
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

            def evaluate() -> None:
                tell(f"held-out evaluation at step {trainer.step}")
                line = trainer.evaluate()
                record(line)
                tell(step_line(line))

            evaluated = -1
            if trainer.step == 0 and cfg.eval_every and not _evaluated_at(log_path, 0):  # resumed before step 1: once
                evaluate()
                evaluated = 0
                log.flush()
            while trainer.step < cfg.steps:
                line = trainer.train_step()
                record(line)
                tell(step_line(line, cfg.steps))
                if cfg.eval_every and trainer.step % cfg.eval_every == 0:
                    evaluate()
                    evaluated = trainer.step
                if trainer.step % cfg.save_every == 0 or trainer.step == cfg.steps:
                    tell(f"saved {trainer.save()} at step {trainer.step}")
                log.flush()
                if progress:
                    progress(trainer.step)
            if cfg.eval_every and evaluated != trainer.step and not _evaluated_at(log_path, trainer.step):
                evaluate()  # a run shorter than eval_every still ends with one
                log.flush()
        tell(f"saved the final policy in {trainer.save_model(run_dir / 'model')}")
    finally:
        trainer.close()
        if board is not None:
            board.close()
    plot_run(run_dir)
    return run_dir


def step_line(line: dict[str, Any], steps: int | None = None) -> str:
    """One readable line for a step's (or an evaluation's) log record."""
    if "eval_step" in line:
        return (
            f"held-out at step {line['eval_step']}: accuracy {line['eval_accuracy']:.3f} "
            f"[{line['eval_accuracy_low']:.3f}, {line['eval_accuracy_high']:.3f}], reward {line['eval_reward']:.3f}"
        )
    parts = [f"step {line['step']}" + (f"/{steps}" if steps else ""), f"reward {line['reward_mean']:.3f}"]
    parts.append(f"accuracy {line['accuracy']:.3f}")
    for key, name in (("loss", "loss"), ("kl", "KL"), ("tokens_per_s", "tokens/s"), ("step_s", "s")):
        if isinstance(line.get(key), (int, float)):
            value = line[key]
            parts.append(f"{name} {value:.0f}" if key == "tokens_per_s" else f"{name} {value:.4g}")
    return ", ".join(parts)


def _evaluated_at(log_path: Path, step: int) -> bool:
    """Does the log already hold a held-out evaluation of this step (a resumed run's earlier end)?"""
    from evalkit.jsonl import read_complete_records

    return any(r.get("eval_step") == step for r in read_complete_records(log_path))


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
