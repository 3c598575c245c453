"""Position text for prompts, task parsing, and reading a play from a model's completion."""
from __future__ import annotations

import re
from typing import Any, Mapping

from .cards import RANKS, Combo, cards_text, hand_from_text, legal_moves
from .game import Move, State

PASS_WORDS = ("PASS", "不要", "要不起", "过")
_TAG = re.compile(r"<move>(.*?)</move>", re.IGNORECASE | re.DOTALL)
_LINE = re.compile(r"^\W*(?:move|play|answer)\s*[:：]\s*(.+)$", re.IGNORECASE | re.MULTILINE)
_JOKERS = [(re.compile(p, re.IGNORECASE), r) for p, r in
           ((r"big\s*joker|red\s*joker|大王|\bRJ\b", "R"), (r"small\s*joker|black\s*joker|小王|\bBJ\b", "B"))]
MOVE_FORMATS = ("tag", "line", "bare")


class PositionError(ValueError):
    """The task's position is malformed (a task problem, scored ERROR)."""


def state_from_task(task: Mapping[str, Any], banned: frozenset[str]) -> State:
    """`{"hand": "3 3 5 K", "opponent": "4 4 A", "to_beat": "7 7"}` (to_beat optional)."""
    try:
        me, them = hand_from_text(str(task["hand"])), hand_from_text(str(task["opponent"]))
    except (KeyError, ValueError) as exc:
        raise PositionError(f"bad hands: {exc}") from None
    if any(a + b > (1 if r >= 13 else 4) for r, (a, b) in enumerate(zip(me, them))):
        raise PositionError("the two hands hold more copies of a card than a deck has")
    if not sum(me) or not sum(them):
        raise PositionError("both players need cards")
    to_beat = None
    if task.get("to_beat"):
        try:
            cards = hand_from_text(str(task["to_beat"]))
        except ValueError as exc:
            raise PositionError(f"bad to_beat: {exc}") from None
        matching = [c for c in _all_combos(cards) if c.cards == cards]
        if not matching:
            raise PositionError(f"to_beat {task['to_beat']!r} is not a valid combination")
        to_beat = matching[0]
    return State(me, them, to_beat)


def _all_combos(cards: tuple[int, ...]) -> list[Combo]:
    return [c for c in legal_moves(cards, None) if c is not None]


def describe(state: State) -> str:
    lines = [f"Your hand: {cards_text(state.me)}", f"Opponent's hand (visible): {cards_text(state.them)}"]
    if state.to_beat is None:
        lines.append("You lead: play any valid combination.")
    else:
        lines.append(f"The opponent just played {state.to_beat.text()} ({state.to_beat.kind.replace('_', ' ')}): "
                     "beat it with the same kind and length and a higher rank, a bomb or the rocket, or PASS.")
    return "\n".join(lines)


def find_play(text: str, formats: tuple[str, ...]) -> str | None:
    """The last play written in the completion (raw text), in the configured formats."""
    candidates: list[tuple[int, str]] = []
    if "tag" in formats:
        candidates += [(m.start(), m.group(1)) for m in _TAG.finditer(text)]
    if "line" in formats and not candidates:
        candidates += [(m.start(), m.group(1)) for m in _LINE.finditer(text)]
    if "bare" in formats and not candidates and len(text.strip()) <= 40:
        candidates.append((0, text))
    return max(candidates)[1].strip() if candidates else None


def read_play(raw: str) -> tuple[int, ...] | None:
    """Cards as counts per rank, or None for PASS. Raises ValueError for text that is not cards."""
    text = raw.strip()
    if text.upper() in PASS_WORDS or text in PASS_WORDS:
        return None
    for pattern, rank in _JOKERS:
        text = pattern.sub(f" {rank} ", text)
    text = re.sub(r"\b10\b", "T", text)
    if len(text) > 100 or not text.strip():
        raise ValueError("not a play")
    cards = [0] * 15
    for ch in text.upper():
        if ch in RANKS:
            cards[RANKS.index(ch)] += 1
        elif not (ch.isspace() or ch in ",;.[](){}'\"-"):
            raise ValueError(f"{ch!r} is not a card")
    if not any(cards):
        raise ValueError("no cards named")
    return tuple(cards)


def match_move(state: State, cards: tuple[int, ...] | None, banned: frozenset[str]) -> tuple[Move, str]:
    """The legal move these cards make, or raise ValueError saying why they are not one.
    When the same cards form several combinations (e.g. 3334 4444), the first in rule order is taken."""
    moves = legal_moves(state.me, state.to_beat, banned)
    if cards is None:
        if state.to_beat is None:
            raise ValueError("PASS is not allowed when leading")
        return None, "PASS"
    if any(c > h for c, h in zip(cards, state.me)):
        raise ValueError(f"{cards_text(cards)} is not in your hand")
    for move in moves:
        if move is not None and move.cards == cards:
            return move, move.text()
    shapes = [c for c in _all_combos(cards) if c.cards == cards]
    if not shapes:
        raise ValueError(f"{cards_text(cards)} is not a valid combination")
    if shapes[0].kind in banned:
        raise ValueError(f"{shapes[0].kind} is banned in this game")
    raise ValueError(f"{cards_text(cards)} does not beat {state.to_beat.text() if state.to_beat else '?'}")
