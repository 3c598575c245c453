"""game24 scoring speed: ours against the Tree-of-Thoughts check (sympy), reasoning-gym's puzzle24
scorer (sympy's parse_expr) and TinyZero's (eval), on the same distinct final-answer completions in
one run; and score_batch against a plain loop.

The three baselines are re-implemented here from their published behaviour (see
shared/research/grpo_24.md) so that the comparison runs offline; they are not used anywhere else.
"""

from __future__ import annotations

import gc
import random
import re
import time
from typing import Callable

import verifiers
from bench.common import rate, rates_in_turns, write_results
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
    """TinyZero countdown on our answer line: number multiset, character whitelist, then eval without
    builtins (unsafe)."""
    return _tinyzero_equation_ok(completion.strip().split("\n")[-1].replace("Answer:", "").split("=")[0], numbers)


def tinyzero_tag_check(completion: str, numbers: list[int]) -> bool:
    """TinyZero countdown on its own format: the last `<answer>…</answer>` on the last line, then as above."""
    found = re.findall(r"<answer>(.*?)</answer>", completion.strip().split("\n")[-1])
    return bool(found) and _tinyzero_equation_ok(found[-1], numbers)


def _tinyzero_equation_ok(eq: str, numbers: list[int]) -> bool:
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


def as_answer_tag(completion: str) -> str:
    """The completion with its last line `Answer: <expression> = 24` as `<answer><expression></answer>`."""
    head, _, line = completion.rpartition("\n")
    return f"{head}\n<answer>{line.removeprefix('Answer: ').rsplit(' = ', 1)[0]}</answer>"


def make_step_inputs(n: int) -> tuple[list[str], list[dict]]:
    """Completions in the seed's format: three `a op b = c (left: …)` steps, then the answer line."""
    tasks = verifiers.get("game24").tasks("all")
    completions, chosen = [], []
    for i in range(n):
        task = tasks[i % len(tasks)]
        a, b, c, d = task["numbers"]
        s1, s2 = a + b, (a + b) * c
        completions.append(
            f"Attempt {i}.\n{a} + {b} = {s1} (left: {s1} {c} {d})\n{s1} * {c} = {s2} (left: {s2} {d})\n"
            f"{s2} - {d} = {s2 - d} (left: {s2 - d})\nAnswer: {task['solution']} = 24"
        )
        chosen.append(task)
    return completions, chosen


def batch_against_loop(completions: list[str], tasks: list[dict], steps_checked: int) -> dict[str, float]:
    """Seconds for a plain loop over score, score_batch with its pool's start, and score_batch on a
    warm pool; each from a collected heap, the scores checked equal. Distinct configs
    (`max_steps_checked`) so that no run reuses another's pool or cache."""
    rows: dict[str, list] = {}
    seconds: dict[str, float] = {}

    def timed(name: str, run: Callable[[], list]) -> None:
        parse_plain.cache_clear()
        gc.collect()
        start = time.perf_counter()
        scores = run()
        seconds[name] = time.perf_counter() - start
        rows[name] = [score.to_row() for score in scores]

    loop_v = verifiers.get("game24", max_steps_checked=steps_checked)
    cold_v = verifiers.get("game24", max_steps_checked=steps_checked - 1)
    warm_v = verifiers.get("game24", max_steps_checked=steps_checked - 2)
    timed("loop", lambda: [loop_v.score(c, t) for c, t in zip(completions, tasks)])
    timed("batch", lambda: cold_v.score_batch(completions, tasks))  # starting the worker pool included
    warm_v.score_batch(completions[:SHARE_INLINE_FROM], tasks[:SHARE_INLINE_FROM])  # enough items to start its pool
    timed("warm", lambda: warm_v.score_batch(completions, tasks))
    for v in (loop_v, cold_v, warm_v):
        v.close()
    assert rows["batch"] == rows["loop"] == rows["warm"], "score_batch must equal a loop over score"
    return seconds


def main() -> dict:
    v = verifiers.get("game24")
    completions, tasks = make_inputs(1362)
    numbers = [t["numbers"] for t in tasks]
    tagged = [as_answer_tag(c) for c in completions]  # TinyZero's own format: `<answer>(6 - 4) * (4 + 8)</answer>`
    # parse_plain() caches answers (GRPO groups repeat them); empty it so every repeat is cold work.
    turns = rates_in_turns(
        {
            "ours": lambda: [v.score(c, t) for c, t in zip(completions, tasks)],
            "tiny": lambda: [tinyzero_check(c, n) for c, n in zip(completions, numbers)],
            "ours_tag": lambda: [v.score(c, t) for c, t in zip(tagged, tasks)],
            "tiny_tag": lambda: [tinyzero_tag_check(c, n) for c, n in zip(tagged, numbers)],
        },
        len(completions),
        setups={"ours": parse_plain.cache_clear, "ours_tag": parse_plain.cache_clear},
    )
    ours, tiny = turns["ours"], turns["tiny"]
    assert [v.score(c, t).correct for c, t in zip(tagged, tasks)] == [
        tinyzero_tag_check(c, n) for c, n in zip(tagged, numbers)
    ], "on TinyZero's format both checks must agree"
    k = 200  # sympy is slow: fewer items, same kind
    tot = rate(lambda: [tot_check(c, n) for c, n in zip(completions[:k], numbers[:k])], k, repeat=1)
    gym = rate(lambda: [reasoning_gym_check(c, n) for c, n in zip(completions[:k], numbers[:k])], k, repeat=1)
    agree = sum(v.score(c, t).correct == tot_check(c, t["numbers"]) for c, t in zip(completions[:k], tasks[:k]))
    step_c, step_t = make_step_inputs(1362)
    with_steps = rate(
        lambda: [v.score(c, t) for c, t in zip(step_c, step_t)], len(step_c), repeat=5, setup=parse_plain.cache_clear
    )

    answers = batch_against_loop(*make_inputs(100_000, seed=1), steps_checked=255)
    steps = batch_against_loop(*make_step_inputs(50_000), steps_checked=251)
    v.close()

    figures = {
        "ours_per_s": ours,
        "ours_with_steps_per_s": with_steps,
        "tot_sympy_per_s": tot,
        "tinyzero_eval_per_s": tiny,
        "reasoning_gym_per_s": gym,
        "speedup_vs_tot": ours / tot,
        "speedup_vs_reasoning_gym": ours / gym,
        "time_ratio_vs_tinyzero": tiny / ours,
        "ours_answer_tag_per_s": turns["ours_tag"],
        "tinyzero_answer_tag_per_s": turns["tiny_tag"],
        "time_ratio_vs_tinyzero_answer_tag": turns["tiny_tag"] / turns["ours_tag"],
        "agreement_with_tot_on_200": agree / k,
        "batch_100k_s": answers["batch"],
        "batch_warm_100k_s": answers["warm"],
        "loop_100k_s": answers["loop"],
        "batch_speedup_vs_loop": answers["loop"] / answers["batch"],
        "warm_batch_speedup_vs_loop": answers["loop"] / answers["warm"],
        "steps_batch_50k_s": steps["batch"],
        "steps_batch_warm_50k_s": steps["warm"],
        "steps_loop_50k_s": steps["loop"],
        "steps_warm_batch_speedup_vs_loop": steps["loop"] / steps["warm"],
    }
    table = [
        ("check", "scores/s", "relative"),
        ("evalkit game24 (safe, exact, steps)", f"{ours:,.0f}", "1.00"),
        ("Tree-of-Thoughts (sympy.simplify)", f"{tot:,.0f}", f"ours {ours / tot:.0f}x faster"),
        ("reasoning-gym puzzle24 (sympy parse_expr)", f"{gym:,.0f}", f"ours {ours / gym:.0f}x faster"),
        ("TinyZero (whitelist + eval, unsafe)", f"{tiny:,.0f}", f"ours takes {tiny / ours:.2f}x its time"),
        ("evalkit game24, TinyZero's format (`<answer>…</answer>`)", f"{turns['ours_tag']:,.0f}", "1.00"),
        (
            "TinyZero on its own format",
            f"{turns['tiny_tag']:,.0f}",
            f"ours takes {turns['tiny_tag'] / turns['ours_tag']:.2f}x its time",
        ),
        ("evalkit game24, completions with three checked steps", f"{with_steps:,.0f}", "(no baseline checks steps)"),
    ]
    for label, n, result in (("100k answers", 100_000, answers), ("50k with steps", 50_000, steps)):
        for key, how in (("batch", "pool start included"), ("warm", "pool already warm")):
            table.append(
                (
                    f"score_batch, {label}, {how}",
                    f"{n / result[key]:,.0f}",
                    f"{result['loop'] / result[key]:.2f}x a plain loop's speed "
                    f"({result[key]:.2f} s vs {result['loop']:.2f} s)",
                )
            )
    write_results(
        "game24",
        figures,
        table,
        notes=(
            "Targets: >= 15x the ToT check; >= 10x reasoning-gym's scorer; <= 1.5x TinyZero's time; score_batch "
            "no slower than a loop. score_batch also pays for dedup and, for items it hands to workers, IPC; from "
            f"{SHARE_INLINE_FROM} short items on, this thread scores from one end of the queue while the pool's "
            "workers take from the other (on 2 cores: two workers and this thread share two cores). Each timing "
            "starts from a collected heap (the garbage collector's cost grows with what is alive)."
        ),
    )
    return figures


if __name__ == "__main__":
    main()
