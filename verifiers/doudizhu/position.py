"""Position text for prompts, task parsing, and matching a play to the legal moves (the play is
read from the completion in `extract.py`)."""

from __future__ import annotations

from typing import Any, Mapping

from .cards import (
    ALLOW_BOMB_WINGS,
    ALLOW_EQUAL_PAIRS,
    ALLOW_ROCKET_KICKERS,
    BAN_ADJACENT_TRIO_WINGS,
    DECK_COPIES,
    DOUZERO_AIRPLANES,
    PERMISSIONS,
    allowed,
    cards_text,
    hand_from_text,
    legal_moves,
    shapes,
)
from .game import Move, State


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
    """The kicker switches in words, for prompts and for the reason of an INVALID play."""
    rocket = (
        "the rocket (B R) may be the two single kickers of four-with-two or airplane wings"
        if ALLOW_ROCKET_KICKERS in rules
        else "the rocket (B R) may not be used as the two single kickers of four-with-two or as airplane wings"
    )
    bombs, pairs = ALLOW_BOMB_WINGS in rules, ALLOW_EQUAL_PAIRS in rules
    if bombs and pairs:
        four = "four cards of one rank may be used as kickers"
    elif not bombs and not pairs:
        four = "four cards of one rank may not be used as kickers (e.g. two equal pairs)"
    elif bombs:
        four = "four cards of one rank may be single airplane wings, but two pairs of one rank may not be pair kickers"
    else:
        four = "two pairs of one rank may be pair kickers, but four cards of one rank may not be single airplane wings"
    adjacent = (
        "; an airplane's single wings may not hold three cards of a rank next to it (2s excepted)"
        if BAN_ADJACENT_TRIO_WINGS in rules
        else ""
    )
    ranking = (
        "; an airplane with single wings ranks by the highest rank it holds three of, wings included, and one "
        "with four of a rank, or with a trio among the wings of four or more trios, is followed by bombs only"
        if DOUZERO_AIRPLANES in rules
        else ""
    )
    return f"{rocket}; {four}{adjacent}{ranking}"


def describe(state: State, banned: frozenset[str] = frozenset()) -> str:
    """The position as prompt text."""
    lines = [
        f"Your hand (you move now): {cards_text(state.me)}",
        f"Opponent's hand (visible): {cards_text(state.them)}",
    ]
    if state.to_beat is None:
        lines.append("Table: you lead a new trick; play any valid combination (PASS is not allowed).")
    else:
        beat = state.to_beat
        lines.append(
            f"Table: the opponent just played {beat.text()} ({beat.label()}). Beat it with a higher "
            f"{beat.label()}, a bomb or the rocket, or PASS."
        )
    kinds = sorted(k.replace("_", " ") for k in banned if k not in PERMISSIONS)
    lines.append(f"Banned combinations: {', '.join(kinds) if kinds else 'none'}.")
    lines.append(f"Kickers: {kicker_rules_text(banned)}.")
    return "\n".join(lines)


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
