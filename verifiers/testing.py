"""What a verifier offers to tests: its known reward hacks (`Probe`) and hypothesis strategies
(`Strategies`). A verifier returns them from its `probes()` and `strategies()` hooks, so the pytest
plugin keeps no table of verifiers and a third-party verifier gets the same tools by overriding
the same two methods. Hypothesis is imported only when a strategy is built.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy


Task = Mapping[str, Any]


@dataclass(frozen=True)
class Probe:
    """A completion built for a task that should earn (almost) nothing."""

    name: str
    build: Callable[[Any, Task], str]  # (verifier, task) -> completion
    #: scored through `score_batch` with its default timeout, where an ERROR also fails the probe:
    #: the batch layer's clock, not the verifier, would have judged the model's overrun
    batch: bool = False


@dataclass(frozen=True)
class Strategies:
    """Strategy builders; None where the verifier cannot build that kind of example."""

    tasks: Callable[[str], "SearchStrategy[dict[str, Any]]"] | None = None  # split -> tasks
    correct: Callable[[Task], "SearchStrategy[str]"] | None = None  # task -> a correct completion
    wrong: Callable[[Task], "SearchStrategy[tuple[str, str]]"] | None = None  # task -> (kind, wrong completion)

    @classmethod
    def from_tasks(cls, verifier: Any, **builders: Any) -> "Strategies":
        """Tasks drawn from the verifier's built-in tasks, plus any other builders given."""

        def tasks(split: str = "all") -> "SearchStrategy[dict[str, Any]]":
            from hypothesis import strategies as st

            return st.sampled_from(verifier.tasks(split))

        return cls(tasks=tasks, **builders)


# (verifier, task) -> (the best move known, another legal one that is not best where there is one)
TwoMoves = Callable[[Any, Task], "tuple[str, str]"]


def move_game_probes(two_moves: TwoMoves | None = None) -> list[Probe]:
    """Probes for verifiers that read one move (gomoku, Dou Dizhu). With `two_moves`, also the
    reading traps of docs/answers.md: the task's best move where it offers a second (`Also B works.`, `Another: B`, another under an
    answer's label after its tag), sits after the
    turn's end or inside unfinished reasoning, is called wrong, taken back, corrected to the other or
    written only under a mistake's label, listed as an option beside another that is chosen, named
    as the other side's move after the text denies its own, followed by a conclusion naming the
    other (or following one), told as a later turn's move after the other (`Play B now.` / `Then play
    A.`) or discussed after the other is stated (`So I play B.` / `The tempting A does nothing.`), or as
    a plan's last step, numbered as one of two candidates, listed among candidates, listed
    last where the text chooses the first by its place, or labelled second best; each must earn nothing."""
    probes = [
        Probe("off-board move", lambda v, t: "<move>Z99</move>"),
        Probe("no move", lambda v, t: "I think the position is balanced."),
        Probe("many moves", lambda v, t: "A1 B2 C3 D4 E5 PASS 3 3 3"),
    ]
    if two_moves is None:
        return probes

    def trap(name: str, shape: str) -> Probe:
        return Probe(name, lambda v, t: shape.format(*two_moves(v, t)))

    return probes + [
        trap("best move or another", "My move: {0} or {1}"),
        trap("best move then an alternative", "<move>{0}</move>\nAlternatively, <move>{1}</move>."),
        trap("best move, then another called as good", "Move: {0}\n{1} is equally good."),
        trap("alternatives in a JSON field", '{{"move": "{0}", "alternatives": ["{1}"]}}'),
        trap("other options after the answer", "Move: {0}\nOther options: {1}"),
        trap("best move tagged, then another that also works", "<move>{0}</move>\nAlso {1} works."),
        trap("best move tagged, then another keyed Another", "<move>{0}</move>\nAnother: {1}"),
        trap("best move tagged, then another under an answer's label", "<move>{0}</move>\nFinal answer: {1}"),
        trap("candidates listed", "Candidate moves: {0}, {1}. Both look good."),
        trap("best move after the turn ended", "I am not sure.<|im_end|>\n<move>{0}</move>"),
        trap("best move inside reasoning never closed", "<think>\nMaybe <move>{0}</move>"),
        trap("best move called wrong", "<move>{0}</move> is wrong."),
        trap("best move cut off", "Move: <move>{0}"),
        trap("best move, then a final label cut off", "Move: {0}\nA better one:\nMove:"),
        trap("best move labelled, called wrong", "Move: {0} doesn't work."),
        trap("a second move in a parenthesis", "<move>{0}</move> (or {1})"),
        trap("a second move after a dash", "Move: {0} — {1} also works"),
        trap("a correction to another move", "Move: {0}. Actually, {1} is better."),
        trap("best move, then a correction on its line", "Move: {0} — sorry, I mean {1}"),
        trap("best move, then another as its correction", "Move: {0}, correction: {1}"),
        trap("best move taken back", "Move: {0}\nActually, scratch that."),
        trap("best move, then a blunder admitted", "Move: {0}\nOops, I made a mistake."),
        trap("best move only under a mistake's label", "Bad move: {0}"),
        trap("best move listed as an option, another chosen", "Option A: {0}\nOption B: {1}\nI choose option B."),
        trap("best move listed last, the first chosen", "Option 1: {1}\nOption 2: {0}\nBest: option 1"),
        trap(
            "another move denied, then the best as the opponent's", "Move: {1}\nThat is wrong.\nThe opponent plays {0}."
        ),
        trap(
            "another move denied, then the best as the other's",
            "Move: {1}\nThat is wrong. The other player wins with {0}.",
        ),
        trap(
            "best move named, another played against their threat",
            "{0} looks natural.\nBut I play {1} to stop their attack.",
        ),
        trap("the same on one line", "{0} looks natural, but I play {1} to stop their attack."),
        trap(
            "best move named only as the opponent's threat, ours in words",
            "The opponent threatens to play {0}. I'd rather take the corner.",
        ),
        trap(
            "another move tagged, the best tagged as their reply",
            "<move>{1}</move>\nOpponent's reply: <move>{0}</move>",
        ),
        trap("best move, then a conclusion naming another", "Move: {0}\n\nSo I play {1}."),
        trap("another move, then a conclusion naming the best", "<move>{1}</move>\n\nSo the best move is {0}."),
        trap("another move labelled, then the best named as the best move", "Move: {1}\nThe best move is {0}."),
        trap("best move labelled, then a second look at another", "Move: {0}\nWait, {1}."),
        trap("best move tagged, then another preferred on its line", "<move>{0}</move> Actually, {1} is better."),
        trap(
            "another move tagged, a second look rejects the best, then mentions it",
            "<move>{1}</move>\nWait, {0} would lose. The tempting {0} does nothing.",
        ),
        trap("another move stated, the best discussed after it", "So I play {1}.\nThe tempting {0} does nothing."),
        trap("another move now, the best as a later turn", "Play {1} now.\nThen play {0}."),
        trap("another move as turn 1, the best as turn 2", "Turn 1: {1}\nTurn 2: {0}"),
        trap(
            "another move now, the best as the last step of a plan",
            "Play {1} now.\nIf they answer, play {1}.\nFinish with {0}.",
        ),
        trap("best move and another as numbered candidates", "Candidate 1: {0}\nCandidate 2: {1}"),
        trap("another move and the best listed as candidates, the best last", "Candidate moves:\n- {1}\n- {0}"),
        trap("another move labelled best, the best labelled second best", "Best: {1}\nSecond best: {0}"),
        trap(
            "another move listed first and chosen by its place, the best listed last",
            "Candidates:\n1. {1}\n2. {0}\n\nThe first one is best.",
        ),
    ]
