"""Dou Dizhu: rollout speed, exact-solver time, and how good the rollout reward is.

- Random rollouts per second on 5-, 8- and 10-card deals: the packed-integer engine against the
  plain rollout on `State`s (`reference.rollout`, combination lists regenerated from cached
  `combos` every ply, as the first version did), side by side.
- Exact-solver time for 5-, 8- and 10-card endgames (fresh process per deal, so the memo starts
  cold; each capped), engine against the plain memoised minimax (`reference.minimax_wins`).
- The rollout estimator's RMSE against the exact random-play value as rollouts grow (with a PNG).
- The rollout reward against the exact minimax values on the built-in 5-card tasks, and the
  variance saved by common random numbers.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import random
import statistics
import time
from typing import Callable

import numpy as np
from rich.progress import Progress

from bench.common import RESULTS, write_results
from verifiers.doudizhu import legal_moves, random_play_value, rules_for
from verifiers.doudizhu.engine import python_uniform, rollout_plies
from verifiers.doudizhu.position import state_from_task
from verifiers.doudizhu.reference import minimax_wins, rollout
from verifiers.doudizhu.tasks import deal
from verifiers.doudizhu.verifier import DoudizhuVerifier

SIZES = (5, 8, 10)
DEALS = 5
CAP_S = 20.0  # per exact solve
BUDGET_10_S = 5.0  # the 10-card solve should stay under this (reported, not asserted)


def _per_second(step: Callable[[], int], seconds: float = 1.5) -> float:
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        count += step()
    return count / (time.perf_counter() - start)


def rollout_speed(cards: int) -> dict[str, float]:
    state = deal(random.Random(f"bench:{cards}"), cards)
    me, them, beat = state.packed()
    rules, uniform, plies = rules_for(frozenset()), python_uniform(0), rollout_plies(me, them)
    rules.rollouts(me, them, beat, 2000, uniform, plies)  # warm the move tables
    rng = random.Random(0)
    return {
        "engine": _per_second(lambda: len(rules.rollouts(me, them, beat, 500, uniform, plies))),
        "reference": _per_second(lambda: (rollout(state, rng), 1)[1]),
    }


def _solve_child(solver: str, cards: int, seed: int, out: "mp.Queue") -> None:
    state = deal(random.Random(f"bench-solve:{cards}:{seed}"), cards)
    start = time.perf_counter()
    if solver == "engine":
        rules_for(frozenset()).wins(*state.packed())
    else:
        minimax_wins(state)
    out.put(time.perf_counter() - start)


def solve_time(solver: str, cards: int, seed: int) -> float | None:
    """Seconds for one cold solve in a fresh process; None past CAP_S."""
    ctx = mp.get_context("fork")
    queue: mp.Queue = ctx.Queue()
    proc = ctx.Process(target=_solve_child, args=(solver, cards, seed, queue))
    proc.start()
    proc.join(CAP_S)
    if proc.is_alive():
        proc.kill()
        proc.join()
        return None
    return queue.get()


def estimator_rmse(sizes=(16, 64, 256, 1024), repeats: int = 100) -> tuple[dict[int, float], float]:
    task = {"hand": "3 5 5 8 K 2", "opponent": "4 4 9 J A"}
    state = state_from_task(task)
    move = next(m for m in legal_moves(state.me, None) if m.text() == "5 5")
    exact = 1.0 - random_play_value(state.after(move))
    rmse = {}
    for n in sizes:
        errors = [
            DoudizhuVerifier(mode="rollout", rollouts=n, seed=s).win_rate(state, move).mean - exact
            for s in range(repeats)
        ]
        rmse[n] = math.sqrt(float(np.mean(np.square(errors))))
    return rmse, exact


def reward_quality(rollouts: int | None, prefix: str | tuple[str, ...] = "doudizhu5-") -> dict[str, float]:
    """On built-in tasks: does the reward order plays like the exact solver? `rollouts=None`: the
    default (auto) mode. Also the mean seconds per scored play."""
    v = DoudizhuVerifier() if rollouts is None else DoudizhuVerifier(mode="rollout", rollouts=rollouts)
    picked = misordered = pairs = scored = 0
    win_rewards, lose_rewards = [], []
    tasks = [t for t in v.tasks("all") if t["id"].startswith(prefix)]
    start = time.perf_counter()
    for task in tasks:
        state = state_from_task(task)
        scores = {m.text(): v.win_rate(state, m).mean for m in legal_moves(state.me, state.to_beat) if m is not None}
        scored += len(scores)
        wins = set(task["winning_moves"])
        picked += max(scores, key=scores.get) in wins
        good = [r for t, r in scores.items() if t in wins]
        bad = [r for t, r in scores.items() if t not in wins]
        win_rewards += good
        lose_rewards += bad
        pairs += len(good) * len(bad)
        misordered += sum(b >= g for g in good for b in bad)
    return {
        "tasks": len(tasks),
        "argmax_wins": picked,
        "seconds_per_score": (time.perf_counter() - start) / scored,
        "mean_reward_winning": float(np.mean(win_rewards)),
        "mean_reward_losing": float(np.mean(lose_rewards)),
        "misordered_pairs": misordered / pairs,
    }


def crn_variance_ratio(repeats: int = 100) -> float:
    """Var(reward difference of two plays) with independent streams / with the shared stream."""
    ratios = []
    for task in DoudizhuVerifier().tasks("all")[:40:8]:
        state = state_from_task(task)
        a, b = [m for m in legal_moves(state.me, state.to_beat) if m is not None][:2]
        shared, independent = [], []
        for s in range(repeats):
            v, w = (
                DoudizhuVerifier(mode="rollout", rollouts=64, seed=s),
                DoudizhuVerifier(mode="rollout", rollouts=64, seed=s + 10_000),
            )
            first = v.win_rate(state, a).mean
            shared.append(first - v.win_rate(state, b).mean)
            independent.append(first - w.win_rate(state, b).mean)
        ratios.append(np.var(independent) / max(np.var(shared), 1e-6))
    return float(statistics.median(ratios))


def plot_rmse(rmse: dict[int, float], exact: float) -> str | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    sizes = sorted(rmse)
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.loglog(sizes, [rmse[n] for n in sizes], "o-", label="measured RMSE")
    ax.loglog(sizes, [math.sqrt(exact * (1 - exact) / n) for n in sizes], "--", label="sqrt(p(1-p)/n)")
    ax.set_xlabel("rollouts per score")
    ax.set_ylabel("error against the exact value")
    ax.set_title("Dou Dizhu rollout reward: error vs rollouts")
    ax.legend()
    fig.tight_layout()
    path = RESULTS / "doudizhu_error.png"
    RESULTS.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path.name


def main() -> dict:
    figures: dict = {}
    table = [("measure", "5 cards", "8 cards", "10 cards")]
    with Progress(transient=True) as progress:
        job = progress.add_task("doudizhu bench", total=len(SIZES) * (1 + 2 * DEALS) + 5)
        speed = {}
        for n in SIZES:
            speed[n] = rollout_speed(n)
            progress.advance(job)
        for impl in ("engine", "reference"):
            figures[f"rollouts_per_s_{impl}"] = {n: speed[n][impl] for n in SIZES}
        table.append(("rollouts/s, plain State rollout (reference)", *(f"{speed[n]['reference']:,.0f}" for n in SIZES)))
        table.append(
            (
                "rollouts/s, packed engine",
                *(f"{speed[n]['engine']:,.0f} ({speed[n]['engine'] / speed[n]['reference']:.1f}x)" for n in SIZES),
            )
        )
        solve: dict[str, dict[int, list[float | None]]] = {"engine": {}, "reference": {}}
        for n in SIZES:
            for impl in solve:
                solve[impl][n] = [solve_time(impl, n, seed) for seed in range(DEALS)]
                progress.advance(job, DEALS)
        for impl, label in (("reference", "plain minimax"), ("engine", "engine")):
            cells = []
            for n in SIZES:
                times = solve[impl][n]
                done = [t for t in times if t is not None]
                over = len(times) - len(done)
                figures[f"solve_s_{impl}_{n}"] = {
                    "median": statistics.median(done) if done else None,
                    "max": max(done) if done else None,
                    "over_cap": over,
                }
                cell = f"{statistics.median(done):.3f} / {max(done):.3f} s" if done else "-"
                cells.append(cell + (f", {over} over {CAP_S:.0f} s" if over else ""))
            table.append((f"exact solve, {label} (median / max of {DEALS} deals, cold)", *cells))
        ten = solve["engine"][10]
        figures["solve_10_within_budget"] = all(t is not None and t <= BUDGET_10_S for t in ten)
        rmse, exact = estimator_rmse()
        progress.advance(job)
        figures["rmse"], figures["rmse_exact_value"] = rmse, exact
        quality = {str(n): reward_quality(n) for n in (64, 256, 1024)}
        quality["auto (default)"] = reward_quality(None)
        quality["auto, 8/10-card tasks"] = reward_quality(None, ("doudizhu8", "doudizhu10"))
        quality["256, 8/10-card tasks"] = reward_quality(256, ("doudizhu8", "doudizhu10"))
        progress.advance(job, 3)
        figures["reward_quality"] = quality
        figures["crn_variance_ratio"] = crn_variance_ratio()
        progress.advance(job)
    table.append(("", "", "", ""))
    table.append(("rollouts n", "RMSE vs exact", "sqrt(p(1-p)/n)", ""))
    for n, err in rmse.items():
        table.append((str(n), f"{err:.4f}", f"{math.sqrt(exact * (1 - exact) / n):.4f}", ""))
    table.append(("", "", "", ""))
    table.append(
        (
            "5-card tasks, mode / rollouts n",
            "argmax is a winning play",
            "mean reward win / lose",
            "misordered (win, lose) pairs, ms per score",
        )
    )
    for n, q in quality.items():
        table.append(
            (
                n,
                f"{q['argmax_wins']} / {q['tasks']}",
                f"{q['mean_reward_winning']:.3f} / {q['mean_reward_losing']:.3f}",
                f"{q['misordered_pairs']:.1%}, {1000 * q['seconds_per_score']:.2f} ms",
            )
        )
    image = plot_rmse(rmse, exact)
    notes = (
        f"Common random numbers (the stream is seeded from the position, not the move) cut the variance of "
        f"the reward difference between two plays by {figures['crn_variance_ratio']:.1f}x (median of 5 tasks, "
        f"64 rollouts). 10-card solves {'stay within' if figures['solve_10_within_budget'] else 'EXCEED'} the "
        f"{BUDGET_10_S:.0f} s budget." + (f" Error plot: {image}." if image else "")
    )
    write_results("doudizhu", figures, table, notes=notes)
    return figures


if __name__ == "__main__":
    main()
