"""Position text for prompts, task parsing, and reading a play from a model's completion."""
from __future__ import annotations

import re
from typing import Any, Mapping

from .cards import (ALLOW_BOMB_WINGS, ALLOW_ROCKET_KICKERS, DECK_COPIES, PERMISSIONS, allowed, cards_text, hand_from_text,
                    legal_moves, parse_cards, shapes)
from .game import Move, State

PASS_WORDS = frozenset({"pass", "不要", "不出", "要不起", "过"})
_PASS_STRIP = " \t\r\n.!。！*`'\"()[]"
_LINE = re.compile(r"^[^\w\n]{0,20}(?:move|play|answer|出牌)\s*[:：]\s*([^\n]{0,200})", re.IGNORECASE | re.MULTILINE)
MOVE_FORMATS = ("tag", "line", "bare")
BARE_LIMIT = 40


class PositionError(ValueError):
    """The task's position is malformed (a task problem, scored ERROR)."""


def state_from_task(task: Mapping[str, Any]) -> State:
    """`{"hand": "3 3 5 K", "opponent": "4 4 A", "to_beat": "7 7", "to_beat_kind": "pair"}`;
    `to_beat` is optional (absent: the side to move leads), `to_beat_kind` only matters when the
    cards read two ways (e.g. an airplane with trio wings)."""
    try:
        me, them = hand_from_text(str(task["hand"])), hand_from_text(str(task["opponent"]))
        table = hand_from_text(str(task["to_beat"])) if task.get("to_beat") else None
    except KeyError as exc:
        raise PositionError(f"missing {exc}") from None
    except ValueError as exc:
        raise PositionError(f"bad cards: {exc}") from None
    if not sum(me) or not sum(them):
        raise PositionError("both players need cards")
    used = [a + b + (table[r] if table else 0) for r, (a, b) in enumerate(zip(me, them))]
    if any(n > cap for n, cap in zip(used, DECK_COPIES)):
        raise PositionError("the hands and the table hold more copies of a card than a deck has")
    if table is None:
        return State(me, them, None)
    readings = shapes(table)
    if not readings:
        raise PositionError(f"to_beat {task['to_beat']!r} is not a valid combination")
    kind = task.get("to_beat_kind")
    chosen = [c for c in readings if c.kind == kind] if kind else readings
    if not chosen:
        raise PositionError(f"to_beat {task['to_beat']!r} is not a {kind}")
    return State(me, them, chosen[0])


def kicker_rules_text(rules: frozenset[str]) -> str:
    """The two kicker switches in words, for prompts and for the reason of an INVALID play."""
    rocket = ("the rocket (B R) may be the two single kickers of four-with-two or airplane wings"
              if ALLOW_ROCKET_KICKERS in rules else
              "the rocket (B R) may not be used as the two single kickers of four-with-two or as airplane wings")
    bomb = ("four cards of one rank may be used as kickers" if ALLOW_BOMB_WINGS in rules else
            "four cards of one rank may not be used as kickers (e.g. two equal pairs)")
    return f"{rocket}; {bomb}"


def describe(state: State, banned: frozenset[str] = frozenset()) -> str:
    """The position as prompt text."""
    lines = [f"Your hand (you move now): {cards_text(state.me)}",
             f"Opponent's hand (visible): {cards_text(state.them)}"]
    if state.to_beat is None:
        lines.append("Table: you lead a new trick; play any valid combination (PASS is not allowed).")
    else:
        beat = state.to_beat
        lines.append(f"Table: the opponent just played {beat.text()} ({beat.label()}). Beat it with a higher "
                     f"{beat.label()}, a bomb or the rocket, or PASS.")
    kinds = sorted(k.replace("_", " ") for k in banned if k not in PERMISSIONS)
    lines.append(f"Banned combinations: {', '.join(kinds) if kinds else 'none'}.")
    lines.append(f"Kickers: {kicker_rules_text(banned)}.")
    return "\n".join(lines)


def find_play(text: str, formats: tuple[str, ...]) -> str | None:
    """The last play written in the completion (raw text), trying the configured formats in
    order: the last complete <move>...</move>, else the last `Move: ...` line, else the whole
    (short) completion. Linear in the length of the text."""
    if "tag" in formats:
        low = text.lower()
        end = low.rfind("</move>")
        start = low.rfind("<move>", 0, end) if end >= 0 else -1
        if start >= 0:
            return text[start + len("<move>"):end].strip()
    if "line" in formats:
        last = None
        for last in _LINE.finditer(text):
            pass
        if last is not None:
            return last.group(1).strip()
    if "bare" in formats and len(text.strip()) <= BARE_LIMIT:
        return text.strip()
    return None


def read_play(raw: str) -> tuple[int, ...] | None:
    """Cards as counts per rank, or None for PASS. Raises ValueError for text that is not cards."""
    if raw.strip(_PASS_STRIP).lower() in PASS_WORDS:
        return None
    cards = parse_cards(raw)
    if not any(cards):
        raise ValueError("no cards named")
    return cards


def match_move(state: State, cards: tuple[int, ...] | None, banned: frozenset[str]) -> list[Move]:
    """The legal moves these cards make (usually one; several when the cards read two ways, and
    the player may declare either), or raise ValueError saying why they are not a legal play."""
    if cards is None:
        if state.to_beat is None:
            raise ValueError("PASS is not allowed when leading")
        return [None]
    if any(c > h for c, h in zip(cards, state.me)):
        raise ValueError(f"{cards_text(cards)} is not in your hand")
    readings = [m for m in legal_moves(state.me, state.to_beat, banned) if m is not None and m.cards == cards]
    if readings:
        return readings
    every = shapes(cards)
    if not every:
        raise ValueError(f"{cards_text(cards)} is not a valid combination")
    if all(c.kind in banned for c in every):
        raise ValueError(f"{every[0].label()} is banned in this game")
    if not any(allowed(c, banned) for c in every):
        raise ValueError(f"{cards_text(cards)}: {kicker_rules_text(banned)}")
    beat = state.to_beat
    raise ValueError(f"{cards_text(cards)} ({every[0].label()}) does not beat {beat.text()} ({beat.label()})")
