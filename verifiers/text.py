"""Text as trainers hand it over: completions decoded with the chat template's special tokens kept.

OpenRLHF (and any loop that decodes with `skip_special_tokens=False`) passes a response that ends
in `<|im_end|>`, `<|endoftext|>`, `</s>`, `<|eot_id|>`, `<end_of_turn>`, `<｜end▁of▁sentence｜>`...
A verifier that reads the last line would then miss a correct final answer. Only trailing tokens
are removed here; where the final answer is read, the turn ends at the first such token
(`verifiers/turn.py`).
"""

from __future__ import annotations

import re
from typing import Any

_SPECIAL_TOKEN = re.compile(r"(?:<\|[A-Za-z0-9_]{1,32}\|>|<｜[^<>｜]{1,40}｜>|</s>|<eos>|<end_of_turn>|<eot>)\s*$")


# the character before the closing '>' of every token `_SPECIAL_TOKEN` matches (`|>`, `｜>`, `</s>`, `<eos>`,
# `<end_of_turn>`, `<eot>`): a text ending in another tag (`</answer>`, `</move>`, `</svg>`) holds none
_BEFORE_A_TOKENS_CLOSE = frozenset("|｜snt")


def strip_special_tokens(text: str) -> str:
    """`text` without the chat special tokens at its end (up to eight of them)."""
    tail = text.rstrip()[-2:]
    if tail[-1:] != ">" or tail[:1] not in _BEFORE_A_TOKENS_CLOSE:  # most completions end in no token
        return text
    return _without_trailing_tokens(text)


def _without_trailing_tokens(text: str) -> str:
    """`strip_special_tokens` without its early exit: the last 200 characters searched, up to eight times."""
    for _ in range(8):
        match = _SPECIAL_TOKEN.search(text, max(0, len(text) - 200))
        if match is None:
            break
        text = text[: match.start()].rstrip()
    return text


# the full-width forms of ASCII (U+FF01-U+FF5E) and the ideographic space: East Asian keyboards type them
_ASCII_WIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}


def ascii_width(text: str) -> str:
    """`text` with full-width letters, digits and signs as ASCII (`Ｉ５` is `I5`, `３` is `3`): a move
    or a card typed with an East Asian keyboard is the same move. For answers in a notation, never
    for a program (its strings are its own)."""
    return text if text.isascii() else text.translate(_ASCII_WIDTH)


def valid_text(text: str) -> str:
    """`text` as valid UTF-8. A lone surrogate (`"\\ud800"`, which a JSON escape or a program's
    exception text can carry and no UTF-8 encoder writes) becomes the visible escape `\\ud800`."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def valid_data(value: Any) -> Any:
    """`value` (plain JSON data) with every string, keys included, made valid UTF-8 (`valid_text`)."""
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, dict):
        return {valid_data(k): valid_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [valid_data(v) for v in value]
    return value
