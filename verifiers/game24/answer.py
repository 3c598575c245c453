"""A final answer as models write it: one expression, or a chain of equalities around it, and
perhaps words after it.

`20 - 10 + 21 = 31 = 31`, `= 10 - 20 + 21 = 11`, `**(6-4)*(4+8)** = 24`, `(6-4) x (4+8) = 24.0`,
`(6-4)*(4+8), which equals 24`, `(6-4)*(4+8) → 24 (each number used once)`. The text is normalised
(`expression.normalise`), words after a complete final link are dropped, and the rest is split at
`=` into links; each link is parsed on its own by `expression.parse` (so every refusal keeps its
reason), except that a link which is only a number is a stated value: it may be a decimal (`24.0`),
signed (`-5`, a negative target) or grouped in thousands (`1,999`), and it is never arithmetic. How
the links are judged is the verifier's (`Game24Verifier._judge`): correct iff some link is an
expression over exactly the puzzle's numbers equal to the target and no link states another value.

The only rewrites are the ones listed here and in `normalise`; none adds arithmetic:
- `x` or `X` between two operands (a digit or `)` before it, a digit or `(` after) is `*`, and `:`
  there is `/` (division as German and Russian schools write it);
- two operands side by side with a parenthesis between them (`(6-4)(4+8)`, `2(4+8)`, `(4+8)2`) are
  their product, as algebra writes it: no other reading of them is arithmetic; after a division
  (`8 / 2(2 + 2)`) conventions differ, so that answer is refused as written;
- words that only introduce the answer (`The expression …`, `We get …`, from a fixed list: never a
  function such as `sqrt`) are dropped before its first operand;
- `!` after the stated value closes a sentence (`= 24!`), where no operand follows it: inside an
  expression (`4 * 3!`) it stays a factorial, and is refused;
- a clause `, which equals N` (also `which is (exactly)`, `that equals`, `giving`, `evaluates to`,
  `results in`, `yields`) is the link `= N`;
- a code comment that only states a value (`(6-4)*(4+8)  # = 24`, `# 24`) is the link `= N`, as is
  an aside at the end that does (`(6-4)*(4+8) (= 24)`); a quote that closes a quoted answer in a
  sentence (`"(6-4)*(4+8)" equals 24`) is dropped;
- commentary is cut where it starts: at a word (after a space or a parenthesis: `14x` stays, and is
  refused), a `;`, a comma or a dash followed by words, a parenthesis that opens words
  (`(correct)`, `(left: 24)`), a symbol that is not arithmetic (an emoji), a code comment, an
  arrow or an ellipsis before words (`// correct`, `<- done`), a smiley; a sentence's full stop
  before the cut goes with it and ends the answer (`= 24. This uses…`, `16. Is …`); what is left must
  still be a complete answer; commentary that opens by denying a value (`≠ 24`, `≤ 24`, `, which is
  not 24`) or by applying an operation in words (`squared`, `to the power of 2`, `times 2`, `mod 5`)
  refuses the answer instead;
- Markdown emphasis around any one link is removed, as around the whole answer.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

from ..locate import HEDGE_WORDS
from .expression import Evaluated, ExpressionError, normalise, parse_plain, strip_emphasis

_TIMES = re.compile(r"(?<=[0-9)])\s*[xX]\s*(?=[0-9(])")
_RATIO = re.compile(r"(?<=[0-9)])\s*:\s*(?=[0-9(])")
# a product written as algebra writes it (`(6-4)(4+8)`, `2(4+8)`, `(4+8)2`): a number touches the parenthesis
_IMPLIED_PRODUCT = re.compile(r"(?<=\))\s*(?=\()|(?<=[0-9])(?=\()|(?<=\))(?=[0-9])")
# a division of such a product (`8 / 2(2 + 2)`: 16 read left to right, 1 where the product binds first): the
# reading is the writer's convention, so none is chosen and the answer is refused as written
_DIVIDES_AN_IMPLIED_PRODUCT = re.compile(r"/\s*(?:[0-9]+\(|\([^()]*\)(?:\s*\(|[0-9]))")
# an aside after the stated value that restates it (`= 24 (2 * 12)`): a link, checked like any other
_ASIDE_LINK = re.compile(r"(=\s*[0-9]+(?:\.[0-9]+)?)\s*\(\s*([0-9][0-9+\-*/ .]*[0-9])\s*\)$")
# the value stated in an aside at the end (`(6-4)*(4+8) (= 24)`, `[= 24]`): the link `= 24`, never a product
_EQUALS_ASIDE = re.compile(r"\s*[(\[]\s*=\s*(-?[0-9]+(?:\.[0-9]+)?)\s*[)\]]\s*\.?$")
# the quote that closes a quoted answer in a sentence (`The expression "(6-4)*(4+8)" equals 24.`): its
# opening quote is before where the answer starts; no arithmetic has quotes
_CLOSING_QUOTE = re.compile(r"(?<=[0-9)])[\"'](?=\s|$|[.,;:!?])")
# the value stated first and a colon (`24: (6-4)*(4+8)`): `24 = …`, never a ratio
_STATED_FIRST = re.compile(r"^[ \t]*([0-9]+):[ \t]+(?=[0-9(])")
# a colon after a closing parenthesis, then a space, introduces what it works out to (`(8 + 4) * (6 - 4): 12 *
# 2 = 24`): a link, `=`; a ratio's colon is written `8:2` or `8 : 2`
_WORKED_OUT = re.compile(r"(?<=\)):[ \t]+(?=[0-9(])")
# an operator written as a word between two operands (`(6 minus 4) times (4 plus 8)`, `(6-4)
# multiplied by (4+8)`): the operator itself, so the answer is judged by the value it writes
_WORD_OPERATOR = re.compile(
    r"(?<=[0-9)\]])\s+(plus|minus|times|multiplied by|divided by)\s+(?=[0-9(\[])", re.IGNORECASE
)
_WORD_SYMBOL = {"plus": "+", "minus": "-", "times": "*", "multiplied by": "*", "divided by": "/"}


def with_word_operators_as_symbols(text: str) -> str:
    """`text` with each operator written as a word between two operands as its symbol."""
    return _WORD_OPERATOR.sub(lambda m: f" {_WORD_SYMBOL[m.group(1).lower()]} ", text)


# `= 24!` closes a sentence: after a stated value at the end of a link, never inside an expression
# (`4 * 3!` stays a factorial, and is refused)
_EXCLAIMED = re.compile(r"(=\s*[0-9]+(?:\.[0-9]+)?)!+(?![0-9!]|\s*(?:[-+*/]\s*[0-9(]|[=0-9])|\s*\((?![^\W\d_]))")
# words that introduce the expression (`The expression (6-4)*(4+8) equals 24`, `We get …`): up to six
# of these words before an operand, and only these: `sqrt (16) * 6`, `double (3 * 4)` or `not 24` keep
# their words, and are refused
_LEADING_WORDS = re.compile(
    r"(?:(?:the|one|a|an|possible|final|valid|correct|working|expression|solution|way|formula|equation|answer"
    r"|calculation|we|i|can|could|get|got|have|write|use|using|is|it|this|here|that|would|be|as|so|then|thus"
    r"|therefore|hence)\b,?:?\s+){1,6}(?=[0-9(*_])",
    re.IGNORECASE,
)
# words after an expression that state what it makes (`, which is 25`, `gives`, `evaluates to`)
_STATES = (
    r"\s*[,;]?\s*(?:which|that|this|it)?\s*(?:equals|is equal to|is|gives|giving|makes|evaluates to|results in"
    r"|yields|comes to|totals)\s+"
)
_CLAUSE = re.compile(
    _STATES + r"(?:exactly\s+)?(?P<value>-?[0-9]+(?:\.[0-9]+)?)(?![0-9]|\.[0-9])"  # a full stop may follow
    r"(?!\s*[-+*/×÷·⋅]\s*[0-9(])",  # `gives 2 × 12 = 24` states a step, not the value 2
    re.IGNORECASE,
)
# the same words before a computation (`gives 2 × 12 = 24`): the chain goes on after them
_STEP_CLAUSE = re.compile(_STATES + r"(?=-?[0-9(][0-9() ]*[-+*/×÷·⋅]\s*[0-9(])", re.IGNORECASE)
_COMMENTARY = re.compile(
    r"\s*(?:;|,\s*(?=[^\d\s])|,\s*$|[(\[]\s*(?=[^\W\d_])|\s-{1,2}\s*(?=[^\W\d_])|(?<=[\s)])(?=[^\W\d_])"
    r"|(?=[^\x00-\x7f])"
    # a code comment, an arrow, an ellipsis before words (`// correct`, `# check`, `<- done`, `... so`), a smiley
    r"|(?<=\s)(?://|#|<-{1,2}|\.{2,})\s*(?=[^\W\d_])|(?<=\s):-?[()DP](?!\w))"
)
# what denies a value instead of stating it (`≠ 24`, `, which is not 24`, `≤ 24`): where commentary
# would start with it, the answer is refused, never read as the expression alone
_DENIAL = re.compile(
    r"\s*[,;]?\s*(?P<denial>[≠≢≉≮≯≤≥≦≧⩽⩾]|(?:(?:which|that|this|it)\s+)?(?:is not|isn't|is never|does not equal"
    r"|doesn't equal|is not equal to|does not make|doesn't make|does not give|doesn't give)(?=\s+(?:exactly\s+)?-?[0-9]))",
    re.IGNORECASE,
)
# what applies an operation where commentary would start (`4 * 6 squared`, `(4 * 6) times 2`): reading
# the expression alone would pay a value the answer does not claim, so the answer is refused
_OPERATION = re.compile(
    r"\s*[,(]?\s*(?P<operation>squared|cubed|factorial|to the (?:\w+ )?power|raised to|power of|percent|per cent"
    r"|modulo|mod|(?:square |cube )?root|(?:times|plus|minus|divided by|multiplied by|over|add|subtract|less)(?=\s*[0-9(]))(?![^\W_])",  # `squared_`: emphasis
    re.IGNORECASE,
)
# a second answer offered beside the first (`A or B`, `A, alternatively B`): one answer too many,
# refused whichever is right (docs/answers.md), never read as A alone
_HEDGE = re.compile(
    rf"\s*[,;(]?\s*(?P<hedge>(?:and\s+)?(?:or|also|{HEDGE_WORDS})(?:\s+is)?"
    r"(?:[\s,]+(?:alternatively|else|perhaps|maybe|also))*)\b[\s:,]*(?=[\[(0-9])",
    re.IGNORECASE,
)
# a link after the first that computes with decimals (`5 × (5 − 1/5) = 5 × 4.8 = 24`, `8 / 0.333`): the
# working in decimals, often rounded, that explains the answer: skipped, neither checked nor refused
_DECIMAL_WORKING = re.compile(
    r"[0-9+\-*/() ]*[0-9]\.[0-9]+[ )]*[-+*/][0-9+\-*/(). ]*|[0-9+\-*/() ]*[-+*/][ (]*[0-9]+\.[0-9][0-9+\-*/(). ]*"
)
# a code comment that only states a value (`# = 24`, `# 24`): that value, as a link
_COMMENTED_VALUE = re.compile(r"\s+#\s*=?\s*(?=-?[0-9]+(?:\.[0-9]+)?\s*$)")
# a second expression listed right after the answer (`A, B`, `A; B`): one combining three numbers or more
# (two operators before any `=`), never a step that restates a value (`= 24; 2 * 12 = 24`)
_LISTED_SECOND = re.compile(r"\s*[,;]\s*(?=[(\[\d][\d\s()\[\]]*[-+*/][\d\s()\[\]]*\d[\d\s()\[\]]*[-+*/])")
_STATED = re.compile(r"-?\s*[0-9]{1,3}(?:,[0-9]{3})+|-?\s*[0-9]+(?:\.[0-9]+)?")
_ARITHMETIC = re.compile(r"[0-9+\-*/()=. ]*")
MAX_LINKS = 8


class Link(NamedTuple):
    """One side of the chain: a parsed expression, or a stated value; its value is num/den
    (not reduced: compared by cross-multiplication, never one Fraction per item). A named tuple:
    a few are made per scored item, at a third of a frozen dataclass's cost."""

    text: str
    expression: Evaluated | None  # None for a stated value
    num: int
    den: int

    @property
    def has_operator(self) -> bool:
        """Does it combine numbers? (The grammar has binary operators only: two numbers or more.)"""
        return self.expression is not None and len(self.expression.numbers) > 1

    def differs_from(self, num: int, den: int) -> bool:
        """Does this link state a value other than num/den?"""
        return self.num * den != num * self.den


@lru_cache(maxsize=1024)
def literal_link(digits: str) -> Link:
    """The link of a plain integer literal (the usual last link): what parse_plain would make of it,
    without its checks (the caller has made them). Cached: most answers state the same target."""
    value = int(digits)
    return Link(digits, Evaluated(digits, value, 1, (value,)), value, 1)


def without_commentary(plain: str) -> str:
    """`plain` up to where words or symbols that are not arithmetic begin (see the module
    docstring); a clause there that states a value (`, which is 25`) stays, as the link `= 25`."""
    if plain.endswith(")") and "=" in plain:  # `… = 24 (2 * 12)`: the aside restates the value, a link
        plain = _EQUALS_ASIDE.sub(r" = \1", _ASIDE_LINK.sub(r"\1 = \2", plain))
    if '"' in plain or "'" in plain:
        plain = _CLOSING_QUOTE.sub("", plain)
    if _ARITHMETIC.fullmatch(plain):  # most answers: nothing to cut
        return plain
    if "#" in plain:  # `(6-4)*(4+8)  # = 24`: a code comment that states the value is a link
        plain = _COMMENTED_VALUE.sub(" = ", plain)
    leading = _LEADING_WORDS.match(plain) if plain[:1].isalpha() else None
    if leading:
        plain = plain[leading.end() :]
    if "x" in plain or "X" in plain:
        plain = _TIMES.sub(" * ", plain)
    if ":" in plain:  # `24: (6-4)*(4+8)` opens with the value it states; `8 : 2` and `8:2` divide
        plain = _RATIO.sub(" / ", _WORKED_OUT.sub(" = ", _STATED_FIRST.sub(r"\1 = ", plain, count=1)))
    plain = with_word_operators_as_symbols(plain)
    if "!" in plain:
        plain = _EXCLAIMED.sub(r"\1", plain)
    cut = _COMMENTARY.search(plain)
    if cut is None:
        return plain
    denial = _DENIAL.match(plain, cut.start())
    if denial:
        raise ExpressionError(f"the answer denies a value ({denial.group('denial')!r}): only '=' states one")
    hedge = _HEDGE.match(plain, cut.start())
    if hedge:
        raise ExpressionError(f"two answers ({hedge.group('hedge')!r} offers a second): one answer too many")
    if _LISTED_SECOND.match(plain, cut.start()):
        raise ExpressionError(
            "two answers (a second expression listed after a comma or semicolon): one answer too many"
        )
    operation = _OPERATION.match(plain, cut.start())
    if operation:
        raise ExpressionError(
            f"the answer applies {operation.group('operation')!r} to its expression: the game has + - * / only"
        )
    head = plain[: cut.start()].rstrip(" ,=(")
    if head.endswith("."):  # `= 24. This uses…`, `16. Is …`: a sentence's full stop ends the answer
        return head.removesuffix(".")
    step = _STEP_CLAUSE.match(plain, cut.start())
    if step and head:  # `(6-4)*(4+8) gives 2 × 12 = 24`: every link is checked
        return f"{head} = {without_commentary(plain[step.end() :])}"
    clause = _CLAUSE.match(plain, cut.start())
    return f"{head} = {clause.group('value')}" if clause and head else head


def read_chain(text: str, max_chars: int) -> list[Link]:
    """The answer's links, in order; raises ExpressionError (with the failing link's reason)."""
    if len(text) > 4 * max_chars:  # before normalising, so a megabyte never reaches NFKC
        raise ExpressionError(f"expression longer than {max_chars} characters")
    plain = without_commentary(normalise(text))
    if "(" in plain and _IMPLIED_PRODUCT.search(plain):
        if _DIVIDES_AN_IMPLIED_PRODUCT.search(plain):
            raise ExpressionError("a product without '*' after a division (`8 / 2(2 + 2)`) reads by convention")
        plain = _IMPLIED_PRODUCT.sub(" * ", plain)
    parts = [p.strip() for p in plain.split("=")]
    if parts and not parts[0] and len(parts) > 1:  # "= 10 - 20 + 21 = 11": a leading "=" opens nothing
        parts = parts[1:]
    if len(parts) > MAX_LINKS:
        raise ExpressionError(f"more than {MAX_LINKS - 1} '=' in the answer")
    links = []
    for index, part in enumerate(parts):
        if not part:
            raise ExpressionError("an '=' with nothing on one side")
        bare = strip_emphasis(part)
        if index and _DECIMAL_WORKING.fullmatch(bare):  # `… = 5 × 4.8 = 24`: working, often rounded
            continue
        if bare.isdigit() and bare.isascii() and len(bare) <= max_chars and (bare[0] != "0" or bare == "0"):
            links.append(literal_link(bare))
            continue
        if _STATED.fullmatch(bare) and not bare.isdigit():  # a decimal, signed or grouped stated value
            value = Fraction(bare.replace(",", "").replace(" ", ""))
            links.append(Link(bare, None, value.numerator, value.denominator))
            continue
        expression = parse_plain(bare, max_chars)
        links.append(Link(expression.text, expression, expression.num, expression.den))
    return links
