"""`strip_special_tokens` skips its search where the text's last two characters rule a token out;
that test must never skip a text the search would change (a token left on would hide the answer
before it from a reader of the last line)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from verifiers.text import _SPECIAL_TOKEN, _without_trailing_tokens, strip_special_tokens

TOKENS = st.from_regex(_SPECIAL_TOKEN.pattern.removesuffix(r"\s*$"), fullmatch=True)
ENDINGS = st.sampled_from(("", "\n", " \n\n", "</answer>", "</move>", "</s", "|>", ">"))


@settings(max_examples=300, deadline=None)
@given(head=st.text(max_size=30), tokens=st.lists(TOKENS, max_size=3), ending=ENDINGS)
def test_the_early_exit_never_keeps_a_token_the_search_removes(head, tokens, ending):
    text = head + "".join(tokens) + ending
    assert strip_special_tokens(text) == _without_trailing_tokens(text)


def test_every_template_end_token_is_removed():
    for token in ("<|im_end|>", "<|eot_id|>", "</s>", "<|endoftext|>", "<end_of_turn>", "<eos>", "<eot>"):
        assert strip_special_tokens("Answer: 24" + token + "\n") == "Answer: 24", token
    assert strip_special_tokens("<answer>24</answer>") == "<answer>24</answer>"  # no token: as it was
