"""Proxies in the judge for what stays in the program's process (shipped into the sandbox as
source text; see `programs.py`). Calls, attributes, iteration, `len`, truth and `str` travel to the
program; comparisons never do, since they would let its object see the expected value."""

import types


class Session:
    """The judge's view of the current candidate: proxies for its objects, conversions both ways."""

    def __init__(self, candidate):
        self.candidate = candidate
        self.proxies = {}

    def value(self, data):
        return decode(data, self._resolve)

    def _resolve(self, tag, inner):
        if tag != "handle" or type(inner) is not int:
            raise ValueError(f"unknown tag {tag!r}")
        if inner not in self.proxies:
            self.proxies[inner] = CandidateObject(self, inner)
        return self.proxies[inner]

    def argument(self, value):
        return encode(value, self._argument_tag)

    def _argument_tag(self, value):
        if type(value) is CandidateObject:
            if value._session is not self:
                raise CandidateGone("runtime_error", "an object from an earlier run of the program")
            return {"handle": value._number}
        fields = getattr(value, "__dict__", None)
        if type(fields) is dict:  # a plain object the test built (a ListNode): sent by value
            return {"obj": [type(value).__name__, encode(fields, self._argument_tag)]}
        raise Unencodable(f"a {type(value).__name__} cannot be sent to the program")

    def ask(self, message):
        reply = self.candidate.request(message)
        try:
            return self.value(reply)
        except (ValueError, TypeError, KeyError, RecursionError):
            # never an ordinary exception: a test that expects ValueError must not be passed by garbage
            raise CandidateGone("runtime_error", "the program sent something that is not plain data") from None

    def program_values(self, names):
        """The program's values of `names` (those it defines): a reply of exactly that shape, a dict
        whose keys are among the names asked. The reply is written by the program's process, which
        the program controls: a name not asked for (`math`, `abs`, ...) fails the test, and is never
        put where the judge would read it."""
        reply = self.ask({"op": "globals", "names": list(names)})
        if type(reply) is not dict or not all(type(k) is str and k in names for k in reply):
            raise CandidateGone("runtime_error", "the program answered with names it was not asked for")
        return reply


class CandidateObject:
    """An object that stays in the candidate's process. Calls, attributes, iteration, len and
    truth travel to it; comparisons never do (they would let the object see the expected value)."""

    __slots__ = ("_session", "_number")

    def __init__(self, session, number):
        object.__setattr__(self, "_session", session)
        object.__setattr__(self, "_number", number)

    def _ask(self, op, **fields):
        return self._session.ask(dict(op=op, handle=self._number, **fields))

    def __call__(self, *args, **kwargs):
        session = self._session
        return self._ask(
            "call",
            args=[session.argument(a) for a in args],
            kwargs=[[k, session.argument(v)] for k, v in kwargs.items()],
        )

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self._ask("getattr", name=name)

    def __setattr__(self, name, value):
        raise TypeError("objects of the program are read-only to tests")

    def __iter__(self):
        return iter(self._ask("iter"))

    def __len__(self):
        return self._typed("len", int)

    def __bool__(self):
        return self._typed("bool", bool)

    def __str__(self):
        return self._typed("str", str)

    def _typed(self, op, kind):
        value = self._ask(op)
        if type(value) is not kind:  # a forged reply must not surface as a TypeError a test could expect
            raise CandidateGone("runtime_error", f"{op}() of a program's object gave no {kind.__name__}")
        return value

    def __getitem__(self, key):
        return self._ask("getitem", key=self._session.argument(key))

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other

    def __hash__(self):
        return hash((id(self._session), self._number))

    def __repr__(self):
        return f"<object #{self._number} of the program>"


class SolutionModule(types.ModuleType):
    """`solution` for pytest-style tests: `from solution import f` gives the candidate's `f`."""

    def __init__(self, session):
        super().__init__("solution")
        self._session = session

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        found = self._session.program_values([name])
        if name not in found:
            raise AttributeError(f"the program defines no {name!r}")
        return found[name]
