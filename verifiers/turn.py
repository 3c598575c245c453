"""The model's own turn: which part of a completion may hold its final answer. The rules are the
same for every verifier (docs/answers.md), and come before any verifier reads an answer:

- **The turn ends at its end.** Text after the first chat token that ends a turn (`<|im_end|>`,
  `<|eot_id|>`, `<|endoftext|>`, `</s>`, `<end_of_turn>`, `<｜end▁of▁sentence｜>`, `<|end|>`, ...)
  or after a next turn the model wrote itself (a line `User:`, `Human:`, `### Instruction:`,
  `<|user|>`, `<start_of_turn>user`) is not the model's answer: a trainer that decodes with special
  tokens kept hands it over, and an invented next turn may "answer" for the model.
- **Reasoning is not the conclusion.** With a reasoning block (`<think>…</think>`, also `<thinking>`
  and `<reasoning>`), the answer is read after its end; a template that opens the block in the
  prompt leaves only the closing tag, which counts the same. A block opened and never closed was cut
  off before its conclusion: there is no answer, and nothing inside it stands in for one.
- **Line ends and spaces are one kind each**: CRLF and CR are LF; no-break and other Unicode spaces
  are spaces (French `Réponse : …` puts one before the colon).

Every scan is linear in the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# a token that ends a turn, wherever it is (`<|im_start|>` opens one: a next turn)
_TURN_END = re.compile(
    r"<\|(?:im_end|eot_id|endoftext|end|eos|end_of_text|im_start|start_header_id|user|assistant|system)\|>"
    r"|<｜end▁of▁sentence｜>|<｜(?:User|Assistant)｜>|</s>|<eos>|<end_of_turn>|<start_of_turn>|<eot>"
)
# a next turn written by the model: a line that opens with a speaker's label
_NEXT_TURN = re.compile(
    r"^[ \t]*(?:#{1,4}[ \t]*)?(?:User|Human|USER|HUMAN|Instruction)[ \t]*:",
    re.MULTILINE,
)
_THINK_OPEN = re.compile(r"<(think|thinking|reasoning)>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</(think|thinking|reasoning)>", re.IGNORECASE)
_SPACES = re.compile(r"[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")


@dataclass(frozen=True)
class Turn:
    """`text`: where the final answer may be; `unfinished`: why there can be none (else None);
    `dropped`: what was cut and why, for a verdict's reason."""

    text: str
    unfinished: str | None = None
    dropped: tuple[str, ...] = ()


def normalised(text: str) -> str:
    """LF line ends and plain spaces (see the module docstring)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _SPACES.sub(" ", text)


def model_turn(completion: str, invented_turns: bool = True) -> Turn:
    """The part of `completion` that may hold the model's final answer (the module's rules).
    `invented_turns=False` keeps lines such as `Question:` (for a verifier whose own prompt format
    asks the model to write them)."""
    text, dropped = normalised(completion), []
    end = _TURN_END.search(text)
    if end is not None:
        text, _ = text[: end.start()], dropped.append(f"text after {end.group()}")
    if invented_turns and (turn := _NEXT_TURN.search(text)) is not None and turn.start() > 0:
        text, _ = text[: turn.start()], dropped.append("a next turn the model wrote itself")
    closes = list(_THINK_CLOSE.finditer(text))
    opens = list(_THINK_OPEN.finditer(text))
    if closes:
        last_close = closes[-1]
        if opens and opens[-1].start() > last_close.start():
            return Turn("", "the reasoning block never closed: it was cut off before its conclusion", tuple(dropped))
        text, _ = text[last_close.end() :], dropped.append("the reasoning before </think>")
    elif opens:
        return Turn("", "the reasoning block never closed: it was cut off before its conclusion", tuple(dropped))
    return Turn(text, None, tuple(dropped))


__all__ = ["Turn", "model_turn", "normalised"]
