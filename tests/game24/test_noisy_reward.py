"""The noisy-reward wrapper used for the reward-accuracy study: its error rate is the one stated,
it flips within the inner verifier's range, it is reproducible per item, and it never touches the
verdict (so accuracy measured on noisy scores is still the truth)."""

import math

import pytest

import verifiers

TASK = {"numbers": [4, 4, 6, 8]}
RIGHT, WRONG = "Answer: (6 - 4) * (4 + 8)", "Answer: 4 + 4 + 6 + 8"


def completions(n: int) -> list[str]:
    """Distinct completions, half right and half wrong (the flip decision hashes the text)."""
    return [f"{RIGHT if k % 2 else WRONG}\n(attempt {k})" for k in range(n)]


@pytest.mark.parametrize("p", [0.0, 0.1, 0.3])
def test_the_flip_rate_is_the_stated_probability(p):
    clean = verifiers.get("game24", weights=[1.0, 0.0, 0.0])
    noisy = verifiers.get("noisy", verifier="game24", verifier_config={"weights": [1.0, 0.0, 0.0]}, flip_probability=p)
    texts = completions(3000)
    truth = clean.score_batch(texts, [TASK] * len(texts))
    scores = noisy.score_batch(texts, [TASK] * len(texts), workers=2)
    flipped = [s.info["noise"]["flipped"] for s in scores]
    rate, sigma = sum(flipped) / len(texts), math.sqrt(max(p * (1 - p), 1e-9) / len(texts))
    assert abs(rate - p) <= 4 * sigma + 1e-12, rate
    for t, s, f in zip(truth, scores, flipped):
        assert s.verdict is t.verdict  # the truth is kept
        assert s.reward == pytest.approx(1.0 - t.reward if f else t.reward)
        assert s.info["noise"]["true_reward"] == t.reward
    # a flipped right answer now scores below an unflipped wrong one: the error the study is about
    if p:
        assert any(f and t.correct for f, t in zip(flipped, truth))
    noisy.close()
    clean.close()


def test_flips_are_reproducible_per_item_and_change_with_the_seed():
    texts = completions(400)
    a = verifiers.get("noisy", flip_probability=0.5, seed=1)
    b = verifiers.get("noisy", flip_probability=0.5, seed=1)
    c = verifiers.get("noisy", flip_probability=0.5, seed=2)
    first = [a.flipped(t, TASK) for t in texts]
    assert first == [b.flipped(t, TASK) for t in texts] == [a.flipped(t, TASK) for t in texts]
    assert first != [c.flipped(t, TASK) for t in texts]


def test_format_failures_are_never_flipped_and_bad_settings_are_refused():
    noisy = verifiers.get("noisy", flip_probability=1.0)
    s = noisy.score("no answer here", TASK)
    assert s.verdict.value == "invalid" and "noise" not in s.info
    assert noisy.score(RIGHT, TASK).info["noise"]["flipped"] is True
    assert noisy.prompt(TASK) == verifiers.get("game24").prompt(TASK)  # prompts and tasks are the inner's
    for bad in ({"flip_probability": 1.5}, {"error_model": "gauss"}, {"verifier": "noisy"}):
        with pytest.raises(ValueError):
            verifiers.get("noisy", **bad)
