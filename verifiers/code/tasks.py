"""The code verifier's built-in tasks: problems written for evalkit (not copied from any dataset), each with tests and a
reference solution, in all four task formats. Used for demos, tests and benchmarks."""

from __future__ import annotations

from typing import Any, Mapping

FUNCTION_PROMPT = """{statement}

Write a Python function `{signature}`. Answer with the complete code in one ```python block."""
STDIO_PROMPT = """{statement}

Write a complete Python program that reads standard input and writes standard output. \
Answer with the code in one ```python block."""


def _f(pid: str, signature: str, statement: str, reference: str, cases: list[str]) -> dict[str, Any]:
    return {"id": pid, "signature": signature, "statement": statement, "reference": reference, "test_cases": cases}


PROBLEMS: list[dict[str, Any]] = [
    _f(
        "add-digits",
        "digit_sum(n: int) -> int",
        "Return the sum of the decimal digits of a non-negative integer n.",
        "def digit_sum(n):\n    return sum(int(c) for c in str(n))\n",
        [
            "assert digit_sum(0) == 0",
            "assert digit_sum(7) == 7",
            "assert digit_sum(1234) == 10",
            "assert digit_sum(99999) == 45",
            "assert digit_sum(10**20) == 1",
            "assert digit_sum(505) == 10",
        ],
    ),
    _f(
        "reverse-words",
        "reverse_words(s: str) -> str",
        "Reverse the order of the words in s; words are separated by single spaces.",
        "def reverse_words(s):\n    return ' '.join(reversed(s.split(' ')))\n",
        [
            "assert reverse_words('hello world') == 'world hello'",
            "assert reverse_words('a') == 'a'",
            "assert reverse_words('one two three') == 'three two one'",
            "assert reverse_words('x y') == 'y x'",
        ],
    ),
    _f(
        "is-palindrome",
        "is_palindrome(s: str) -> bool",
        "Return True if s reads the same backwards, ignoring case and non-letters.",
        "def is_palindrome(s):\n    t = [c.lower() for c in s if c.isalpha()]\n    return t == t[::-1]\n",
        [
            "assert is_palindrome('Racecar') == True",
            "assert is_palindrome('A man, a plan, a canal: Panama') == True",
            "assert is_palindrome('abc') == False",
            "assert is_palindrome('') == True",
            "assert is_palindrome('ab') == False",
        ],
    ),
    _f(
        "fizzbuzz",
        "fizzbuzz(n: int) -> list[str]",
        "Return the FizzBuzz strings for 1..n ('Fizz' for multiples of 3, 'Buzz' of 5, 'FizzBuzz' of both).",
        "def fizzbuzz(n):\n    out = []\n    for i in range(1, n + 1):\n        s = ('Fizz' if i % 3 == 0 else '') + ('Buzz' if i % 5 == 0 else '')\n        out.append(s or str(i))\n    return out\n",
        [
            "assert fizzbuzz(1) == ['1']",
            "assert fizzbuzz(3) == ['1', '2', 'Fizz']",
            "assert fizzbuzz(15)[-1] == 'FizzBuzz'",
            "assert fizzbuzz(5) == ['1', '2', 'Fizz', '4', 'Buzz']",
            "assert fizzbuzz(0) == []",
        ],
    ),
    _f(
        "two-sum",
        "two_sum(nums: list[int], target: int) -> list[int]",
        "Return the indices [i, j] (i < j) of the two numbers in nums that add up to target; exactly one answer exists.",
        "def two_sum(nums, target):\n    seen = {}\n    for j, x in enumerate(nums):\n        if target - x in seen:\n            return [seen[target - x], j]\n        seen[x] = j\n",
        [
            "assert two_sum([2, 7, 11, 15], 9) == [0, 1]",
            "assert two_sum([3, 2, 4], 6) == [1, 2]",
            "assert two_sum([3, 3], 6) == [0, 1]",
            "assert two_sum([1, 5, 9, -2], 7) == [2, 3]",
            "assert two_sum([0, 4, 3, 0], 0) == [0, 3]",
        ],
    ),
    _f(
        "max-subarray",
        "max_subarray(nums: list[int]) -> int",
        "Return the largest sum of a non-empty contiguous subarray.",
        "def max_subarray(nums):\n    best = cur = nums[0]\n    for x in nums[1:]:\n        cur = max(x, cur + x)\n        best = max(best, cur)\n    return best\n",
        [
            "assert max_subarray([-2, 1, -3, 4, -1, 2, 1, -5, 4]) == 6",
            "assert max_subarray([1]) == 1",
            "assert max_subarray([-3, -1, -2]) == -1",
            "assert max_subarray([5, 4, -1, 7, 8]) == 23",
            "assert max_subarray([0, 0, 0]) == 0",
        ],
    ),
    _f(
        "valid-parentheses",
        "valid_brackets(s: str) -> bool",
        "Return True if the brackets ()[]{} in s are balanced and properly nested.",
        "def valid_brackets(s):\n    pairs = {')': '(', ']': '[', '}': '{'}\n    stack = []\n    for c in s:\n        if c in '([{':\n            stack.append(c)\n        elif c in pairs:\n            if not stack or stack.pop() != pairs[c]:\n                return False\n    return not stack\n",
        [
            "assert valid_brackets('()[]{}') == True",
            "assert valid_brackets('(]') == False",
            "assert valid_brackets('([{}])') == True",
            "assert valid_brackets('((') == False",
            "assert valid_brackets('') == True",
            "assert valid_brackets('}{') == False",
        ],
    ),
    _f(
        "fibonacci",
        "fib(n: int) -> int",
        "Return the n-th Fibonacci number (fib(0) = 0, fib(1) = 1); n can be up to 1000.",
        "def fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n",
        [
            "assert fib(0) == 0",
            "assert fib(1) == 1",
            "assert fib(10) == 55",
            "assert fib(50) == 12586269025",
            "assert fib(100) == 354224848179261915075",
            "assert fib(2) == 1",
        ],
    ),
    _f(
        "gcd-list",
        "gcd_all(nums: list[int]) -> int",
        "Return the greatest common divisor of all numbers in a non-empty list of positive integers.",
        "import math\ndef gcd_all(nums):\n    g = 0\n    for x in nums:\n        g = math.gcd(g, x)\n    return g\n",
        [
            "assert gcd_all([12, 18, 24]) == 6",
            "assert gcd_all([7]) == 7",
            "assert gcd_all([5, 10, 3]) == 1",
            "assert gcd_all([100, 75]) == 25",
        ],
    ),
    _f(
        "count-vowels",
        "count_vowels(s: str) -> int",
        "Count the vowels (a, e, i, o, u, either case) in s.",
        "def count_vowels(s):\n    return sum(c in 'aeiouAEIOU' for c in s)\n",
        [
            "assert count_vowels('hello') == 2",
            "assert count_vowels('') == 0",
            "assert count_vowels('AEIOU xyz') == 5",
            "assert count_vowels('rhythm') == 0",
        ],
    ),
    _f(
        "merge-intervals",
        "merge_intervals(intervals: list[list[int]]) -> list[list[int]]",
        "Merge overlapping closed intervals and return them sorted by start.",
        "def merge_intervals(intervals):\n    out = []\n    for s, e in sorted(intervals):\n        if out and s <= out[-1][1]:\n            out[-1][1] = max(out[-1][1], e)\n        else:\n            out.append([s, e])\n    return out\n",
        [
            "assert merge_intervals([[1, 3], [2, 6], [8, 10], [15, 18]]) == [[1, 6], [8, 10], [15, 18]]",
            "assert merge_intervals([[1, 4], [4, 5]]) == [[1, 5]]",
            "assert merge_intervals([]) == []",
            "assert merge_intervals([[5, 6], [1, 2]]) == [[1, 2], [5, 6]]",
            "assert merge_intervals([[1, 10], [2, 3]]) == [[1, 10]]",
        ],
    ),
    _f(
        "anagram-groups",
        "group_anagrams(words: list[str]) -> int",
        "Return how many groups of anagrams the words form.",
        "def group_anagrams(words):\n    return len({''.join(sorted(w)) for w in words})\n",
        [
            "assert group_anagrams(['eat', 'tea', 'tan', 'ate', 'nat', 'bat']) == 3",
            "assert group_anagrams([]) == 0",
            "assert group_anagrams(['a']) == 1",
            "assert group_anagrams(['ab', 'ba', 'abc']) == 2",
        ],
    ),
    _f(
        "roman-to-int",
        "roman_to_int(s: str) -> int",
        "Convert a Roman numeral (I V X L C D M, subtractive notation) to an integer.",
        "def roman_to_int(s):\n    v = {'I': 1, 'V': 5, 'X': 10, 'L': 50, 'C': 100, 'D': 500, 'M': 1000}\n    total = 0\n    for a, b in zip(s, s[1:] + ' '):\n        total += -v[a] if b != ' ' and v[a] < v[b] else v[a]\n    return total\n",
        [
            "assert roman_to_int('III') == 3",
            "assert roman_to_int('IV') == 4",
            "assert roman_to_int('LVIII') == 58",
            "assert roman_to_int('MCMXCIV') == 1994",
            "assert roman_to_int('MMXXVI') == 2026",
        ],
    ),
    _f(
        "rotate-list",
        "rotate(nums: list[int], k: int) -> list[int]",
        "Return nums rotated to the right by k steps (k may exceed the length).",
        "def rotate(nums, k):\n    if not nums:\n        return []\n    k %= len(nums)\n    return nums[-k:] + nums[:-k] if k else list(nums)\n",
        [
            "assert rotate([1, 2, 3, 4, 5], 2) == [4, 5, 1, 2, 3]",
            "assert rotate([1, 2], 5) == [2, 1]",
            "assert rotate([], 3) == []",
            "assert rotate([7], 0) == [7]",
            "assert rotate([1, 2, 3], 3) == [1, 2, 3]",
        ],
    ),
    _f(
        "prime-count",
        "count_primes(n: int) -> int",
        "Count the primes strictly less than n (n up to 10**6).",
        "def count_primes(n):\n    if n < 3:\n        return 0\n    sieve = bytearray([1]) * n\n    sieve[0] = sieve[1] = 0\n    for i in range(2, int(n ** 0.5) + 1):\n        if sieve[i]:\n            sieve[i * i::i] = bytearray(len(range(i * i, n, i)))\n    return sum(sieve)\n",
        [
            "assert count_primes(10) == 4",
            "assert count_primes(0) == 0",
            "assert count_primes(2) == 0",
            "assert count_primes(100) == 25",
            "assert count_primes(10**6) == 78498",
        ],
    ),
    _f(
        "flatten",
        "flatten(nested: list) -> list[int]",
        "Flatten an arbitrarily nested list of integers, keeping order.",
        "def flatten(nested):\n    out = []\n    for x in nested:\n        out.extend(flatten(x) if isinstance(x, list) else [x])\n    return out\n",
        [
            "assert flatten([1, [2, [3, [4]], 5]]) == [1, 2, 3, 4, 5]",
            "assert flatten([]) == []",
            "assert flatten([[[]]]) == []",
            "assert flatten([1, 2]) == [1, 2]",
        ],
    ),
    _f(
        "word-count",
        "word_freq(text: str) -> dict[str, int]",
        "Return how often each lower-cased word occurs; words are split on whitespace.",
        "def word_freq(text):\n    out = {}\n    for w in text.lower().split():\n        out[w] = out.get(w, 0) + 1\n    return out\n",
        [
            "assert word_freq('a b a') == {'a': 2, 'b': 1}",
            "assert word_freq('') == {}",
            "assert word_freq('The the THE') == {'the': 3}",
        ],
    ),
    _f(
        "mean-median",
        "mean_median(nums: list[float]) -> tuple[float, float]",
        "Return (mean, median) of a non-empty list of numbers.",
        "def mean_median(nums):\n    s = sorted(nums)\n    n = len(s)\n    mid = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2\n    return (sum(s) / n, mid)\n",
        [
            "assert mean_median([1, 2, 3]) == (2.0, 2)",
            "assert mean_median([1, 2, 3, 4]) == (2.5, 2.5)",
            "assert mean_median([0.1, 0.2]) == (0.15000000000000002, 0.15000000000000002)",
            "assert mean_median([5]) == (5.0, 5)",
        ],
    ),
    _f(
        "binary-search",
        "search(nums: list[int], target: int) -> int",
        "Return the index of target in the sorted list nums, or -1.",
        "import bisect\ndef search(nums, target):\n    i = bisect.bisect_left(nums, target)\n    return i if i < len(nums) and nums[i] == target else -1\n",
        [
            "assert search([-1, 0, 3, 5, 9, 12], 9) == 4",
            "assert search([-1, 0, 3, 5, 9, 12], 2) == -1",
            "assert search([], 1) == -1",
            "assert search([5], 5) == 0",
            "assert search(list(range(0, 10**6, 2)), 123456) == 61728",
        ],
    ),
    _f(
        "climb-stairs",
        "climb(n: int) -> int",
        "Count the ways to climb n stairs taking 1 or 2 steps at a time.",
        "def climb(n):\n    a, b = 1, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n",
        [
            "assert climb(1) == 1",
            "assert climb(2) == 2",
            "assert climb(5) == 8",
            "assert climb(0) == 1",
            "assert climb(40) == 165580141",
        ],
    ),
    _f(
        "matrix-transpose",
        "transpose(m: list[list[int]]) -> list[list[int]]",
        "Return the transpose of a rectangular matrix.",
        "def transpose(m):\n    return [list(r) for r in zip(*m)]\n",
        [
            "assert transpose([[1, 2, 3], [4, 5, 6]]) == [[1, 4], [2, 5], [3, 6]]",
            "assert transpose([[1]]) == [[1]]",
            "assert transpose([]) == []",
        ],
    ),
    _f(
        "unique-sorted",
        "unique_sorted(nums: list[int]) -> list[int]",
        "Return the distinct values of nums in increasing order.",
        "def unique_sorted(nums):\n    return sorted(set(nums))\n",
        [
            "assert unique_sorted([3, 1, 3, 2, 1]) == [1, 2, 3]",
            "assert unique_sorted([]) == []",
            "assert unique_sorted([-1, -1]) == [-1]",
        ],
    ),
    _f(
        "longest-common-prefix",
        "common_prefix(words: list[str]) -> str",
        "Return the longest common prefix of the words ('' for an empty list).",
        "import os\ndef common_prefix(words):\n    return os.path.commonprefix(words) if words else ''\n",
        [
            "assert common_prefix(['flower', 'flow', 'flight']) == 'fl'",
            "assert common_prefix(['dog', 'car']) == ''",
            "assert common_prefix([]) == ''",
            "assert common_prefix(['same', 'same']) == 'same'",
        ],
    ),
    _f(
        "set-ops",
        "symmetric(a: list[int], b: list[int]) -> set[int]",
        "Return the set of values in exactly one of a and b.",
        "def symmetric(a, b):\n    return set(a) ^ set(b)\n",
        [
            "assert symmetric([1, 2, 3], [2, 3, 4]) == {1, 4}",
            "assert symmetric([], []) == set()",
            "assert symmetric([1], [1]) == set()",
        ],
    ),
    # call-based (APPS/TACO style with fn_name)
    {
        "id": "power-mod",
        "signature": "power_mod(base: int, exp: int, mod: int) -> int",
        "statement": "Return base**exp modulo mod (exp up to 10**18).",
        "reference": "def power_mod(base, exp, mod):\n    return pow(base, exp, mod)\n",
        "fn_name": "power_mod",
        "inputs": [[2, 10, 1000], [3, 0, 7], [7, 10**18, 13], [10, 5, 1]],
        "outputs": [[24], [1], [9], [0]],
    },
    {
        "id": "hamming",
        "signature": "hamming(a: int, b: int) -> int",
        "statement": "Return the number of bit positions where a and b differ.",
        "reference": "def hamming(a, b):\n    return bin(a ^ b).count('1')\n",
        "fn_name": "hamming",
        "inputs": [[1, 4], [0, 0], [255, 0], [2**40, 1]],
        "outputs": [[2], [0], [8], [2]],
    },
    # stdin/stdout (APPS/TACO style)
    {
        "id": "sum-lines",
        "statement": "The first line holds n; the next n lines hold one integer each. Print their sum.",
        "reference": "import sys\ndata = sys.stdin.read().split()\nn = int(data[0])\nprint(sum(map(int, data[1:1 + n])))\n",
        "inputs": ["3\n1\n2\n3\n", "1\n-5\n", "0\n", "4\n1000000000\n1000000000\n1000000000\n1000000000\n"],
        "outputs": ["6\n", "-5\n", "0\n", "4000000000\n"],
    },
    {
        "id": "average",
        "statement": "Read whitespace-separated numbers and print their average with 4 decimals.",
        "reference": "import sys\nxs = list(map(float, sys.stdin.read().split()))\nprint(f'{sum(xs) / len(xs):.4f}')\n",
        "inputs": ["1 2 3 4\n", "2.5\n", "1 2\n"],
        "outputs": ["2.5000\n", "2.5000\n", "1.5000\n"],
    },
    {
        "id": "grid-paths",
        "statement": "Read r and c; print the number of monotone lattice paths through an r x c grid of cells (moving right or down from the top-left to the bottom-right cell).",
        "reference": "import math\nr, c = map(int, input().split())\nprint(math.comb(r + c - 2, r - 1))\n",
        "inputs": ["2 2\n", "3 7\n", "1 1\n", "18 18\n"],
        "outputs": ["2\n", "28\n", "1\n", "2333606220\n"],
    },
    {
        "id": "echo-upper",
        "statement": "Print every input line in upper case, keeping the order.",
        "reference": "import sys\nfor line in sys.stdin:\n    print(line.rstrip('\\n').upper())\n",
        "inputs": ["abc\nDef\n", "x\n", "hello world\n"],
        "outputs": ["ABC\nDEF\n", "X\n", "HELLO WORLD\n"],
    },
    # LeetCodeDataset style
    {
        "id": "leetcode-single-number",
        "entry_point": "Solution().singleNumber",
        "statement": "Given a list where every element appears twice except one, return that one (class Solution, method singleNumber(nums)).",
        "signature": "Solution.singleNumber(self, nums: List[int]) -> int",
        "prompt": "from typing import List\n",
        "reference": "class Solution:\n    def singleNumber(self, nums: List[int]) -> int:\n        x = 0\n        for n in nums:\n            x ^= n\n        return x\n",
        "test": "def check(candidate):\n    assert candidate(nums = [2, 2, 1]) == 1\n    assert candidate(nums = [4, 1, 2, 1, 2]) == 4\n    assert candidate(nums = [1]) == 1\n    assert candidate(nums = [-3, 7, 7]) == -3\n",
    },
    # KodCode style pytest file
    {
        "id": "pytest-stack",
        "signature": "class MinStack with push(x), pop(), top(), get_min()",
        "statement": "Implement a stack that returns its minimum in O(1): class MinStack with push(x), pop(), top() and get_min().",
        "reference": "class MinStack:\n    def __init__(self):\n        self.items = []\n    def push(self, x):\n        self.items.append((x, min(x, self.items[-1][1]) if self.items else x))\n    def pop(self):\n        self.items.pop()\n    def top(self):\n        return self.items[-1][0]\n    def get_min(self):\n        return self.items[-1][1]\n",
        "test": "from solution import MinStack\n\ndef test_basic():\n    s = MinStack()\n    s.push(3); s.push(1); s.push(2)\n    assert s.get_min() == 1 and s.top() == 2\n\ndef test_pop_restores_min():\n    s = MinStack()\n    s.push(2); s.push(1); s.pop()\n    assert s.get_min() == 2\n\ndef test_negative():\n    s = MinStack()\n    s.push(-5); s.push(0)\n    assert s.get_min() == -5\n",
    },
]


def prompt_for(task: Mapping[str, Any]) -> str:
    """The user message for a task: the statement, the signature or I/O contract, the answer format."""
    if "statement" not in task:
        return str(task.get("question") or task.get("problem_description") or task.get("prompt") or "")
    if "inputs" in task and "fn_name" not in task:
        return STDIO_PROMPT.format(statement=task["statement"])
    return FUNCTION_PROMPT.format(statement=task["statement"], signature=task.get("signature", ""))


def reference_completion(task: Mapping[str, Any]) -> str:
    return f"Here is my solution.\n```python\n{task['reference']}```\n"
