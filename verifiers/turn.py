"""The model's own turn: which part of a completion may hold its final answer. The rules are the
same for every verifier (docs/answers.md), and come before any verifier reads an answer:

- **The turn ends at its end.** Text after the first chat token that ends a turn (`<|im_end|>`,
  `<|eot_id|>`, `<|eom_id|>`, `<|endoftext|>`, `</s>`, `<end_of_turn>`, `<｜end▁of▁sentence｜>`, `<|end|>`, ...)
  or after a next turn the model wrote itself (a line `User:`, `Human:`, `### Instruction:`,
  `<|user|>`, `<start_of_turn>user`, Llama 2's and Mistral's `[INST]`) is not the model's answer: a trainer that decodes with special
  tokens kept hands it over, and an invented next turn may "answer" for the model.
- **Reasoning is not the conclusion.** With a reasoning block (`<think>…</think>`, also `<thinking>`
  and `<reasoning>`), the answer is read after its end; a template that opens the block in the
  prompt leaves only the closing tag, which counts the same. A block opened and never closed was cut
  off before its conclusion: there is no answer, and nothing inside it stands in for one.
- **A next task the model writes in its prompt's words is not its turn** (`own_task_part`): a base
  model that goes on past its answer writes the next task as the prompt opens one; a restatement of
  this task (an echo of the prompt) is not its answer either, and the turn starts after it.
- **The turn's own header is not text of the turn**: a completion that opens with its role header
  (`<|im_start|>assistant`, `<|start_header_id|>assistant<|end_header_id|>`) or with Llama 3.1's
  `<|python_tag|>` (a turn of code, ended by `<|eom_id|>`) starts after it.
- **Line ends and spaces are one kind each**: CRLF and CR are LF; no-break and other Unicode spaces
  are spaces (French `Réponse : …` puts one before the colon).

Every scan is linear in the text.
"""

from __future__ import annotations

import re
from typing import Callable, NamedTuple

# a token that ends a turn, wherever it is (`<|im_start|>` opens one: a next turn)
_TURN_END = re.compile(
    r"<\|(?:im_end|eot_id|eom_id|endoftext|end|eos|end_of_text|im_start|start_header_id|user|assistant|system)\|>"
    r"|<｜end▁of▁sentence｜>|<｜(?:User|Assistant)｜>|</s>|<eos>|<end_of_turn>|<start_of_turn>|<eot>"
    r"|\[INST\]"  # Llama 2 and Mistral open the user's turn so: a next turn
)
# the model's own turn opened at the very start (a trainer that decodes the template's last header
# with the completion): a header, not a next turn
_OWN_HEADER = re.compile(
    r"\s*(?:<\|im_start\|>assistant|<\|start_header_id\|>assistant<\|end_header_id\|>|<\|assistant\|>"
    r"|<｜Assistant｜>|<start_of_turn>model)[ \t]*\n?(?:\s*<\|python_tag\|>)?"
    r"|\s*<\|python_tag\|>"  # Llama 3.1 opens a turn of code for its interpreter so
)
# a next turn written by the model: a line that opens with a speaker's label
_NEXT_TURN = re.compile(
    r"^[ \t]*(?:#{1,4}[ \t]*)?(?:User|Human|USER|HUMAN|Instruction)[ \t]*:",
    re.MULTILINE,
)
_THINK_OPEN = re.compile(r"<(think|thinking|reasoning)>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</(think|thinking|reasoning)>", re.IGNORECASE)
_SPACES = re.compile(r"[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")


class Turn(NamedTuple):
    """`text`: where the final answer may be; `unfinished`: why there can be none (else None);
    `dropped`: what was cut and why, for a verdict's reason."""

    text: str
    unfinished: str | None = None
    dropped: tuple[str, ...] = ()


def normalised(text: str) -> str:
    """LF line ends and plain spaces (see the module docstring)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text if text.isascii() else _SPACES.sub(" ", text)


def model_turn(completion: str, invented_turns: bool = True) -> Turn:
    """The part of `completion` that may hold the model's final answer (the module's rules).
    `invented_turns=False` keeps lines such as `User:` (for a verifier whose own prompt format asks
    the model to write them). Plain substring searches come first (C speed): most answers hold no
    turn-end token, speaker label or reasoning tag, and skip the regular expressions."""
    text = normalised(completion)
    dropped: tuple[str, ...] = ()
    tagged = "<" in text
    if tagged and (header := _OWN_HEADER.match(text)) is not None:
        text = text[header.end() :]
    if (
        tagged and ("<|" in text or "<｜" in text or "</s>" in text or "<e" in text or "<start_of_turn>" in text)
    ) or "[INST]" in text:
        end = _TURN_END.search(text)
        if end is not None:
            text, dropped = text[: end.start()], (f"text after {end.group()}",)
    if invented_turns and (
        "User" in text or "USER" in text or "Human" in text or "HUMAN" in text or "Instruction" in text
    ):
        turn = _NEXT_TURN.search(text)
        if turn is not None and turn.start() > 0:
            text, dropped = text[: turn.start()], (*dropped, "a next turn the model wrote itself")
    if not (tagged and ("hink" in text or "HINK" in text or "easoning" in text or "EASONING" in text)):
        return Turn(text, None, dropped)
    closes = list(_THINK_CLOSE.finditer(text))
    opens = list(_THINK_OPEN.finditer(text))
    if opens and (not closes or opens[-1].start() > closes[-1].start()):
        return Turn("", "the reasoning block never closed: it was cut off before its conclusion", dropped)
    if closes:
        text, dropped = text[closes[-1].end() :], (*dropped, "the reasoning before its closing tag")
    return Turn(text, None, dropped)


def own_task_part(text: str, opener: re.Pattern[str], restates: Callable[[re.Match[str]], bool]) -> str:
    """The part of `text` about this task where it writes a line that opens a task as the verifier's
    prompt does (`opener`, matched where such a line starts): after the last one that restates this
    task (`restates`: an echo of the prompt), up to the first other one after that (a next task the
    model invented: its answer is never this task's). Text with no such line, as it is."""
    found = list(opener.finditer(text))
    if not found:
        return text
    start = max((m.end() for m in found if restates(m)), default=0)
    end = next((m.start() for m in found if m.start() >= start and not restates(m)), len(text))
    return text[start:end]


def shows_within(text: str, opening: re.Match[str], identity: str, window: int) -> bool:
    """Does the task opened at `opening` show `identity` (what tells this task from others: its
    board, its hands) within `window` characters (a prompt's length): an echo of this task's prompt?"""
    return text.find(identity, opening.end(), opening.end() + window) >= 0


__all__ = ["Turn", "model_turn", "normalised", "own_task_part", "shows_within"]
