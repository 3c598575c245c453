"""game24 scoring speed: ours against the Tree-of-Thoughts check (sympy), reasoning-gym's puzzle24
scorer (sympy's parse_expr) and TinyZero's (eval), on the same distinct final-answer completions in
one run; and score_batch against a plain loop.

The three baselines are re-implemented here from their published behaviour (see
shared/research/grpo_24.md) so that the comparison runs offline; they are not used anywhere else.
"""

from __future__ import annotations

import random
import re
import time

import verifiers
from bench.common import rate, write_results
from verifiers.batch import SHARE_INLINE_FROM
from verifiers.game24.expression import parse_plain


def tot_check(completion: str, numbers: list[int]) -> bool:
    """Tree-of-Thoughts: last line, strip 'answer: ', digit-string multiset test, sympy.simplify == 24."""
    import sympy

    expr = completion.strip().split("\n")[-1].lower().replace("answer: ", "").split("=")[0]
    if sorted(re.findall(r"\d+", expr)) != sorted(str(n) for n in numbers):
        return False
    try:
        return bool(sympy.simplify(expr) == 24)
    except Exception:
        return False


def reasoning_gym_check(completion: str, numbers: list[int]) -> bool:
    """reasoning-gym puzzle24 `score_answer` (0.1.25): int(sympy parse_expr(answer)) == 24 and four integers
    in 1..10 (never compared with the puzzle's numbers). Its harness hands it the bare expression."""
    from sympy.parsing.sympy_parser import parse_expr

    answer = completion.strip().split("\n")[-1].replace("Answer:", "").split("=")[0].strip()
    try:
        used = [int(n) for n in re.findall(r"\b\d+\b", answer)]
        return int(parse_expr(answer)) == 24 and len(used) == 4 and all(1 <= n <= 10 for n in used)
    except Exception:
        return False


def tinyzero_check(completion: str, numbers: list[int]) -> bool:
    """TinyZero countdown: number multiset, character whitelist, then eval without builtins (unsafe)."""
    eq = completion.strip().split("\n")[-1].replace("Answer:", "").split("=")[0]
    try:
        if sorted(int(n) for n in re.findall(r"\d+", eq)) != sorted(numbers):
            return False
        if not re.match(r"^[\d+\-*/().\s]+$", eq):
            return False
        return abs(eval(eq, {"__builtins__": None}, {}) - 24) < 1e-5
    except Exception:
        return False


def make_inputs(n: int, seed: int = 0) -> tuple[list[str], list[dict]]:
    """Distinct completions with distinct answer expressions (for n <= 1362, one task each): a correct
    answer, a wrong value, or wrong numbers, each with a numbered preamble."""
    v = verifiers.get("game24")
    tasks = v.tasks("all")
    rng = random.Random(seed)
    completions, chosen = [], []
    for i in range(n):
        task = tasks[i % len(tasks)]
        kind = rng.random()
        expr = (
            task["solution"]
            if kind < 0.6
            else ("(" + task["solution"] + ") + 1" if kind < 0.8 else f"{i + 2} * 1 + 24 - {i + 2}")
        )
        completions.append(f"Attempt {i}: I combine the numbers.\nAnswer: {expr} = 24")
        chosen.append(task)
    return completions, chosen


def main() -> dict:
    v = verifiers.get("game24")
    completions, tasks = make_inputs(1362)
    numbers = [t["numbers"] for t in tasks]
    # parse_plain() caches answers (GRPO groups repeat them); empty it so every repeat is cold work.
    ours = rate(
        lambda: [v.score(c, t) for c, t in zip(completions, tasks)],
        len(completions),
        repeat=5,
        setup=parse_plain.cache_clear,
    )
    tiny = rate(lambda: [tinyzero_check(c, n) for c, n in zip(completions, numbers)], len(completions), repeat=5)
    k = 200  # sympy is slow: fewer items, same kind
    tot = rate(lambda: [tot_check(c, n) for c, n in zip(completions[:k], numbers[:k])], k, repeat=1)
    gym = rate(lambda: [reasoning_gym_check(c, n) for c, n in zip(completions[:k], numbers[:k])], k, repeat=1)
    agree = sum(v.score(c, t).correct == tot_check(c, t["numbers"]) for c, t in zip(completions[:k], tasks[:k]))

    big_c, big_t = make_inputs(100_000, seed=1)
    parse_plain.cache_clear()
    start = time.perf_counter()
    loop = [v.score(c, t) for c, t in zip(big_c, big_t)]
    loop_s = time.perf_counter() - start
    start = time.perf_counter()
    batch = v.score_batch(big_c, big_t)  # cold: starting the worker pool is included
    batch_s = time.perf_counter() - start
    warm_v = verifiers.get("game24", max_steps_checked=255)  # a distinct config: no cache is shared
    warm_v.score_batch(big_c[:SHARE_INLINE_FROM], big_t[:SHARE_INLINE_FROM])  # enough items to start its pool
    start = time.perf_counter()
    warm_v.score_batch(big_c, big_t)
    warm_s = time.perf_counter() - start
    v.close()
    warm_v.close()
    assert batch == loop, "score_batch must equal a loop over score"

    figures = {
        "ours_per_s": ours,
        "tot_sympy_per_s": tot,
        "tinyzero_eval_per_s": tiny,
        "reasoning_gym_per_s": gym,
        "speedup_vs_tot": ours / tot,
        "speedup_vs_reasoning_gym": ours / gym,
        "time_ratio_vs_tinyzero": tiny / ours,
        "agreement_with_tot_on_200": agree / k,
        "batch_100k_s": batch_s,
        "batch_warm_100k_s": warm_s,
        "loop_100k_s": loop_s,
        "batch_speedup_vs_loop": loop_s / batch_s,
        "warm_batch_speedup_vs_loop": loop_s / warm_s,
    }
    table = [
        ("check", "scores/s", "relative"),
        ("evalkit game24 (safe, exact, steps)", f"{ours:,.0f}", "1.00"),
        ("Tree-of-Thoughts (sympy.simplify)", f"{tot:,.0f}", f"ours {ours / tot:.0f}x faster"),
        ("reasoning-gym puzzle24 (sympy parse_expr)", f"{gym:,.0f}", f"ours {ours / gym:.0f}x faster"),
        ("TinyZero (whitelist + eval, unsafe)", f"{tiny:,.0f}", f"ours takes {tiny / ours:.2f}x its time"),
        (
            "score_batch, 100k items, pool start included",
            f"{len(big_c) / batch_s:,.0f}",
            f"{loop_s / batch_s:.2f}x a plain loop's speed ({batch_s:.2f} s vs {loop_s:.2f} s)",
        ),
        (
            "score_batch, 100k items, pool already warm",
            f"{len(big_c) / warm_s:,.0f}",
            f"{loop_s / warm_s:.2f}x a plain loop's speed ({warm_s:.2f} s vs {loop_s:.2f} s)",
        ),
    ]
    write_results(
        "game24",
        figures,
        table,
        notes=(
            "Targets: >= 15x the ToT check; >= 10x reasoning-gym's scorer; <= 1.5x TinyZero's time; score_batch no slower than a loop. "
            "score_batch also pays for dedup and, for items it hands to workers, IPC; from "
            f"{SHARE_INLINE_FROM} short items on, this thread scores from one end of the queue while the pool's "
            "workers take from the other (on 2 cores: two workers and this thread share two cores)."
        ),
    )
    return figures


if __name__ == "__main__":
    main()
