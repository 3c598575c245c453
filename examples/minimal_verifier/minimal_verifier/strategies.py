"""Hypothesis strategies: correct answers in several dressings, and wrong ones that must never pass."""

from __future__ import annotations

from typing import Any, Mapping

from hypothesis import strategies as st


def correct_answer(task: Mapping[str, Any]) -> st.SearchStrategy[str]:
    reversed_word = task["word"][::-1]
    return st.sampled_from(
        [
            f"Answer: {reversed_word}",
            f"I think so.\nAnswer: {reversed_word.upper()}",
            f'Answer: "{reversed_word}".',
            f"Answer: wrong\nAnswer: {reversed_word}",
        ]
    )


def wrong_answer(task: Mapping[str, Any]) -> st.SearchStrategy[tuple[str, str]]:
    word = task["word"]
    reversed_word = word[::-1]
    return st.one_of(
        st.just(("unreversed", f"Answer: {word}"))
        if word != reversed_word
        else st.just(("extra letter", f"Answer: {word}x")),
        st.integers(1, len(word) - 1).map(lambda k: ("truncated", f"Answer: {reversed_word[:k]}")),
        st.just(("no answer line", reversed_word)),
        st.just(("right answer, then a wrong one", f"Answer: {reversed_word}\nAnswer: {word}x")),
    )
