"""Safe, exact checking of a 24-game expression written by a model.

Never `eval`, never sympy on model text (both run `9**9**9` forever and accept `4!` or `2^3`).
The text is normalised (NFKC plus an explicit operator map), checked against a character
whitelist and a length cap, and evaluated by `grammar.py`, whose grammar has only integer
literals, parentheses and binary + - * /, in exact rational arithmetic.

Decisions, documented so that rewards are predictable:
- Unary minus/plus is refused: the classic rules combine two numbers at a time.
- A trailing `= N` is accepted (models write `... = 24`); N must be an integer and is not
  trusted: the value of the left side is what counts. Any other `=` is refused.
- Leading zeros (`08`) are refused, as Python's grammar refuses them: `08` is not a card.
- Numbers are compared as a multiset of literals, so `24` written from 2 and 4 fails.
"""

from __future__ import annotations

import re
import unicodedata
from fractions import Fraction
from functools import lru_cache

from .grammar import TOKEN, ExpressionError, compiled, evaluate_tokens

MAX_EXPRESSION_CHARS = 200

# Operator look-alikes NFKC leaves alone; mapped explicitly. Arrows and `≈` state a value, as `=` does
# (`≈ 25` after a right expression is a false final link, as `= 25` is).
_OPERATOR_MAP = str.maketrans(
    {
        **dict.fromkeys("×✕✖⋅·∗∙•⨯⨉\u2062", "*"),
        **dict.fromkeys("÷∕⁄➗∶", "/"),  # `∶` (ratio) is division where `:` is (German, Russian)
        **dict.fromkeys("−–—‒﹣‐‑➖", "-"),
        "➕": "+",
        **dict.fromkeys("→⇒⟹⟶↦≈≃≅≡", "="),
        # invisible: zero-width spaces and joiners, the byte-order mark, soft hyphens, emoji variation selectors
        **dict.fromkeys("\u200b\u200c\u200d\u2060\ufeff\u00ad\ufe0e\ufe0f", ""),
    }
)
_LATEX = [
    (r"\times", "*"),
    (r"\cdot", "*"),
    (r"\ast", "*"),
    (r"\div", "/"),
    (r"\left", ""),
    (r"\right", ""),
    ("&", " "),  # the column mark of `aligned` and `array` (`(6-4) * (4+8) &= 24 \\`)
    # relations, after `\left` (`\le` begins it); `\approx` states a value, the others deny one
    (r"\approx", "="),
    (r"\equiv", "="),
    (r"\neq", "≠"),
    (r"\not=", "≠"),
    (r"\ne", "≠"),
    (r"\leq", "≤"),
    (r"\le", "≤"),
    (r"\geq", "≥"),
    (r"\ge", "≥"),
    ("{", "("),
    ("}", ")"),
]
# LaTeX that only sizes, styles or spaces what it touches (`\Big(`, `\mathbf{24}`, `\quad`): removed;
# `\begin{aligned}`, `\end{aligned}` and the row end `\\` only frame
_LATEX_WRAPPERS = re.compile(
    r"\\\\|\\(?:begin|end)\s*\{[a-z]+\*?\}|\\(?:[Bb]igg?[lr]?|displaystyle|textstyle|mathbf|mathrm|mathit|textbf|boldsymbol"
    r"|operatorname|quad|qquad|checkmark|surd\b|,|;|:|!| )"
)
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]{0,60})?>")
_NOT_ARITHMETIC = ("<super>", "<sub>", "<fraction>")  # compatibility forms NFKC would turn into digits
_ALLOWED = re.compile(r"[0-9+\-*/() ]*")
_PLAIN = re.compile(r"[0-9+\-*/()=.,; ]*")
_TRAILING_EQUALS = re.compile(r"^(?P<lhs>[^=]*)=\s*(?P<rhs>[0-9]+)\s*$")


class Evaluated:
    """A well-formed expression: its exact value (as numerator/denominator) and the literals it uses,
    in ascending order (what is judged is their multiset, never the order they were written in)."""

    __slots__ = ("text", "num", "den", "numbers")

    def __init__(self, text: str, num: int, den: int, numbers: tuple[int, ...]) -> None:
        self.text, self.num, self.den, self.numbers = text, num, den, numbers

    @property
    def value(self) -> Fraction:
        return Fraction(self.num, self.den)

    def equals(self, target: int) -> bool:
        return self.num == target * self.den

    def value_text(self) -> str:
        """`24`, `-3` or `170/7`: the exact value, reduced."""
        return str(self.num // self.den) if self.num % self.den == 0 else format_fraction(self.value)

    def uses_exactly(self, numbers: list[int] | tuple[int, ...]) -> bool:
        return list(self.numbers) == sorted(numbers)


def normalise(text: str) -> str:
    """The answer as models write it, reduced to plain arithmetic (Markdown emphasis is each link's
    own, `strip_emphasis`, taken off once words after the answer are cut): HTML tags and backticks out,
    superscripts, subscripts and fraction characters refused (NFKC would read `3²` as `32` and
    `4⁻¹` as `4-1`), any script's digits as ASCII, NFKC (full-width digits and signs), the operator
    map (arrows state a value like `=`), invisible characters out, trailing check marks, LaTeX math delimiters, `\\frac{a}{b}`, operators, sizing and style
    commands, `\\text{...}` words, whitespace folded. Every rewrite keeps the arithmetic as written:
    nothing is added that could turn a wrong answer into a right one."""
    if _PLAIN.fullmatch(text) and "*" not in (text[:1], text[-1:]):  # plain ASCII arithmetic: little to do
        return " ".join(text.replace("==", "=").split()).rstrip(".")
    if "<" in text:
        text = _HTML_TAG.sub(" ", text)
    text = text.replace("`", " ").replace("\\*", "*")
    if not text.isascii():
        text = unicodedata.normalize("NFKC", _plain_digits(text)).translate(_OPERATOR_MAP)
        text = text.rstrip().rstrip(_CHECK_MARKS)
    text = text.strip()
    if "\\" in text or "{" in text:
        text = _LATEX_DELIMITERS.sub(" ", text)
        text = _LATEX_TEXT.sub(_text_kept_if_arithmetic, text)
        text = _LATEX_WRAPPERS.sub(" ", text)
        for _ in range(8):  # nested fractions, innermost first
            text, replaced = _FRAC.subn(r"((\1)/(\2))", text)
            if not replaced:
                break
        for latex, plain in _LATEX:
            text = text.replace(latex, plain)
    text = text.replace("[", "(").replace("]", ")").replace("==", "=").replace("=>", "=").replace("->", "=")
    return " ".join(text.replace("$", " ").split()).rstrip(".。")


# `\text{...}`: words (`\text{ using each number once}`, `\text{ ✓}`), removed with them, unless it
# holds digits or `=` and no letter (`\text{(3-2)}\times 4`, `\text{=}`): then it only styles arithmetic,
# kept as written
_LATEX_TEXT = re.compile(r"\\text\s*\{([^{}]*)\}")
_A_LETTER = re.compile(r"[^\W\d_]")


def _text_kept_if_arithmetic(m: re.Match[str]) -> str:
    words = m.group(1)
    arithmetic = "=" in words or any(c.isdigit() for c in words)
    return f" {words} " if arithmetic and not _A_LETTER.search(words) else " "


def _plain_digits(text: str) -> str:
    """Digits of any script as ASCII; a superscript, subscript or fraction character refused."""
    out = []
    for ch in text:
        if ch.isascii():
            out.append(ch)
            continue
        if ch in "√∛∜":
            raise ExpressionError(f"{ch!r} is a root: roots are not the game's arithmetic")
        if unicodedata.decomposition(ch).startswith(_NOT_ARITHMETIC):
            raise ExpressionError(
                f"{ch!r} is a superscript, subscript or fraction character: powers, indices and fractions "
                "are not the game's arithmetic"
            )
        digit = unicodedata.decimal(ch, None)
        out.append(str(digit) if digit is not None else ch)
    return "".join(out)


_CHECK_MARKS = " ✓✔✅☑"
_LATEX_DELIMITERS = re.compile(r"\\[()\[\]]")
_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")


def strip_emphasis(text: str) -> str:
    """Markdown emphasis around the answer: the same run of `*` or `_` at both ends (`**…**`, `*…*`,
    `***…***`, `_…_`), after a doubled one at either end alone (the tail of `**Answer:**` leaves
    `** …`). A single `*` at one end only is left: `(6-4)*(4+8)*` is an unfinished product."""
    text = text.strip()
    if text[:1] not in ("*", "_") and text[-1:] not in ("*", "_"):  # most answers: no emphasis at all
        return text
    for _ in range(4):
        run = len(text) - len(text.lstrip(text[:1])) if text[:1] in ("*", "_") else 0
        if run and text.endswith(text[:run]) and len(text) > 2 * run:
            stripped = text[run:-run].strip()
        else:
            stripped = text.removeprefix("**").removeprefix("__").removesuffix("**").removesuffix("__").strip()
        if stripped == text:
            break
        text = stripped
    return text


def parse(text: str, max_chars: int = MAX_EXPRESSION_CHARS) -> Evaluated:
    """Check and evaluate `text` as a model wrote it; raises ExpressionError with a human reason if
    it is not allowed."""
    if len(text) > 4 * max_chars:  # before normalising, so a megabyte never reaches NFKC
        raise ExpressionError(f"expression longer than {max_chars} characters")
    return parse_plain(strip_emphasis(normalise(text)), max_chars)


@lru_cache(maxsize=8192)
def parse_plain(expr: str, max_chars: int = MAX_EXPRESSION_CHARS) -> Evaluated:
    """Check and evaluate `expr`, already normalised (`normalise`). Cached: the G samples of one
    GRPO group often end in the very same answer."""
    if not expr:
        raise ExpressionError("empty expression")
    if "=" in expr:
        match = _TRAILING_EQUALS.match(expr)
        if match:
            expr = match.group("lhs").strip()
        if "=" in expr:
            raise ExpressionError("only one trailing '= N' is allowed")
    if len(expr) > max_chars:
        raise ExpressionError(f"expression longer than {max_chars} characters")
    if not _ALLOWED.fullmatch(expr):
        bad = sorted({c for c in expr if not _ALLOWED.fullmatch(c)})
        raise ExpressionError(f"characters not allowed: {''.join(bad)!r} (only digits, + - * / and parentheses)")
    if "**" in expr or "//" in expr:
        raise ExpressionError("'**' and '//' are not allowed")
    parts = _NUMBERS.split(expr)  # text, number, text, ..., text
    program = compiled(tuple(parts[::2])) if len(parts) <= _MOST_PARTS else None
    if program is None:
        numbers: list[int] = []
        num, den = evaluate_tokens(TOKEN.findall(expr), numbers)  # refused here, with the reason
    else:
        numbers = list(map(int, parts[1::2]))
        num, den = program(numbers)
    numbers.sort()
    return Evaluated(expr, num, den, tuple(numbers))


# a number has no leading zero: `08` splits into 0 and 8, two numbers side by side, which no shape
# of the grammar has, so its tokens are evaluated and refused with the reason
_NUMBERS = re.compile(r"(0|[1-9][0-9]*)")
_MOST_PARTS = 2 * 8 + 1  # shapes of up to 8 numbers are compiled (and cached); longer text is parsed each time


def format_fraction(value: Fraction) -> str:
    """`24`, `-3` or `170/7`: the exact value as text."""
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
