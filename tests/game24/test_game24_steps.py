"""The step checker: arithmetic, bookkeeping, rounding and backtracking search traces."""

from verifiers.game24.steps import check_steps

TOT_EXAMPLE = """4 + 8 = 12 (left: 4 6 12)
6 - 4 = 2 (left: 2 12)
2 * 12 = 24 (left: 24)
Answer: (6 - 4) * (4 + 8) = 24"""


def test_the_tot_format_is_all_valid():
    r = check_steps(TOT_EXAMPLE, [4, 4, 6, 8])
    assert r.valid == (True, True, True) and r.share_valid == 1.0


def test_wrong_arithmetic_and_wrong_bookkeeping_are_caught():
    text = "4 + 8 = 13 (left: 4 6 13)\n4 + 8 = 12 (left: 4 6 11)\n4 + 8 = 12"
    r = check_steps(text, [4, 4, 6, 8])
    assert r.valid == (False, False, False)
    assert r.reasons == ("arithmetic is wrong", "left list does not match the numbers remaining", "no (left: …) list")


def test_operands_must_be_available():
    r = check_steps("9 + 15 = 24 (left: 24)", [4, 4, 6, 8])
    assert r.valid == (False,) and "not numbers available" in r.reasons[0]


def test_rounded_decimals_within_their_display_precision():
    text = "8 / 3 = 2.67 (left: 2.67 3 8)\n3 - 2.67 = 0.33 (left: 0.33 8)\n8 / 0.33 = 24 (left: 24)"
    assert check_steps(text, [3, 3, 8, 8]).valid == (True, True, True)
    assert check_steps("8 / 3 = 2.7 (left: 2.7 3 8)", [3, 3, 8, 8]).valid == (True,)
    assert check_steps("8 / 3 = 2.6 (left: 2.6 3 8)", [3, 3, 8, 8]).valid == (False,)
    assert check_steps("8 / 3 = 3 (left: 3 3 8)", [3, 3, 8, 8]).valid == (False,)  # integers are exact


def test_backtracking_to_an_earlier_state_is_valid():
    text = """1 + 2 = 3 (left: 3 3 4)
3 * 3 = 9 (left: 4 9)
4 + 9 = 13 (left: 13)
Backtrack to 1 2 3 4:
1 + 3 = 4 (left: 2 4 4)
2 * 4 = 8 (left: 4 8)
Back to 3 3 4:
3 + 3 = 6 (left: 4 6)
4 * 6 = 24 (left: 24)"""
    r = check_steps(text, [1, 2, 3, 4])
    assert r.valid == (True,) * 7
    # A step from a state never reached is not valid even if the arithmetic is right.
    assert check_steps("4 * 6 = 24 (left: 24)", [1, 2, 3, 4]).valid == (False,)


def test_step_count_includes_unchecked_lines_beyond_the_cap():
    text = "\n".join("1 + 2 = 3 (left: 3 3 4)" for _ in range(10))
    r = check_steps(text, [1, 2, 3, 4], max_checked=4)
    assert r.total_lines == 10 and len(r.valid) == 4
