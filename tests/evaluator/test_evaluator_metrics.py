"""Metric estimators checked against brute force over every k-subset."""

import itertools
import math
import random

import pytest

from evalkit.metrics import MetricError, maj_at_k, pass_at_k, summarise


def brute_pass(correct, k):
    subsets = list(itertools.combinations(range(len(correct)), k))
    return sum(any(correct[i] for i in s) for s in subsets) / len(subsets)


def brute_maj(answers, correct, k):
    good = {a for a, c in zip(answers, correct) if c and a is not None}
    hits = 0
    subsets = list(itertools.combinations(range(len(answers)), k))
    for s in subsets:
        votes = {}
        order = []
        for i in s:
            a = answers[i]
            if a is None:
                continue
            if a not in votes:
                order.append(a)
            votes[a] = votes.get(a, 0) + 1
        if votes:
            top = max(votes.values())
            hits += next(a for a in order if votes[a] == top) in good
    return hits / len(subsets)


@pytest.mark.parametrize("seed", range(30))
def test_pass_and_maj_match_brute_force(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 9)
    answers = [rng.choice(["24 using 1 2 3 4", "25 using 1 2 3 4", "24 using 1 1 4 6", None]) for _ in range(n)]
    correct = [a == "24 using 1 2 3 4" for a in answers]
    for k in range(1, n + 1):
        assert pass_at_k(n, sum(correct), k) == pytest.approx(brute_pass(correct, k))
        assert maj_at_k(answers, correct, k) == pytest.approx(brute_maj(answers, correct, k))


def test_known_values_and_refusals():
    assert pass_at_k(8, 2, 4) == pytest.approx(0.7857, abs=1e-4)
    assert pass_at_k(64, 5, 8) == pytest.approx(0.4990, abs=1e-4)
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    with pytest.raises(MetricError, match="pass@5 needs at least 5"):
        pass_at_k(4, 1, 5)
    with pytest.raises(MetricError):
        maj_at_k(["a"], [True], 2)
    # ties go to the first answer; invalid answers do not vote
    assert maj_at_k(["a", "b"], [False, True], 2) == 0.0
    assert maj_at_k(["b", "a"], [True, False], 2) == 1.0
    assert maj_at_k([None, None, "a"], [False, False, True], 3) == 1.0


def test_large_n_uses_seeded_sampling_close_to_exact():
    n, k = 40, 12  # C(40, 12) is far above the exact limit
    answers = ["a" if i % 3 == 0 else "b" for i in range(n)]
    correct = [a == "a" for a in answers]
    value = maj_at_k(answers, correct, k)
    assert value == maj_at_k(answers, correct, k)  # seeded, so reproducible
    assert 0.0 < value < 0.5 and math.comb(n, k) > 20_000


def _record(task, k, verdict, answer, tokens, finish="stop"):
    return {
        "task_id": task,
        "sample": k,
        "tokens": tokens,
        "finish_reason": finish,
        "difficulty": "easy",
        "score": {"verdict": verdict, "reward": 1.0 if verdict == "correct" else 0.0, "answer": answer},
    }


def test_summary_rates_and_intervals():
    records = [
        _record("a", 0, "correct", "x", 10),
        _record("a", 1, "incorrect", "y", 20, "length"),
        _record("b", 0, "error", None, 5),
        _record("b", 1, "invalid", None, 30, "length"),
    ]
    s = summarise(records)
    assert (s.tasks, s.samples) == (2, 4)
    assert s.accuracy == 0.25 and s.incompletion == 0.5 and s.error_rate == 0.25
    assert s.mean_reward == pytest.approx(1 / 3)  # the ERROR sample is left out, not counted as 0
    assert s.reward_low < s.mean_reward < s.reward_high
    assert s.pass_at == {1: pytest.approx(0.25), 2: pytest.approx(0.5)}


def test_maj_is_not_applicable_where_no_answer_can_vote():
    from evalkit.metrics import shown, summarise

    records = [
        {
            "task_id": t,
            "sample": i,
            "tokens": 3,
            "finish_reason": "stop",
            "score": {"verdict": "correct" if i % 2 else "incorrect", "reward": 1.0, "answer": None},
        }
        for t in ("a", "b")
        for i in range(4)
    ]
    summary = summarise(records)
    assert summary.maj_at == {1: None, 2: None, 4: None} and summary.pass_at[4] == 1.0
    assert shown(summary.maj_at[4]) == "n/a"
    records[0]["score"]["answer"] = "x"
    assert summarise(records).maj_at[1] is not None


def test_buckets_come_in_difficulty_order():
    from evalkit.metrics import summarise_groups

    records = [
        {
            "task_id": f"t{i}",
            "sample": 0,
            "difficulty": d,
            "tokens": 3,
            "finish_reason": "stop",
            "score": {"verdict": "correct", "reward": 1.0},
        }
        for i, d in enumerate(["hard", "easy", "medium", "c3-hard", "c3-easy"])
    ]
    assert list(summarise_groups(records, "difficulty")) == ["easy", "medium", "hard", "c3-easy", "c3-hard"]


def test_a_difference_interval_over_tasks_holds_zero_for_one_run_and_excludes_it_for_a_clear_gain():
    from evalkit.metrics import difference_interval

    rng = random.Random(0)
    a = {f"t{i}": [float(rng.random() < 0.3) for _ in range(4)] for i in range(60)}
    assert difference_interval(a, a) == (0.0, 0.0)  # the same run, paired: every draw differs by 0
    b = {task: [1.0] * len(values) for task, values in a.items()}  # every sample right
    low, high = difference_interval(a, b)
    assert 0 < low <= high <= 1


def test_a_paired_difference_is_narrower_than_one_over_different_tasks():
    from evalkit.metrics import difference_interval

    # tasks differ in hardness far more than the two runs differ: pairing cancels the hardness
    hardness = {f"t{i}": i / 40 for i in range(40)}
    a = {t: [float(h > 0.5)] * 4 for t, h in hardness.items()}
    b = {t: [float(h > 0.45)] * 4 for t, h in hardness.items()}
    shifted = {f"u{t}": v for t, v in b.items()}  # the same values, tasks no longer matched
    paired, unpaired = difference_interval(a, b), difference_interval(a, shifted)
    assert paired[1] - paired[0] < unpaired[1] - unpaired[0]
