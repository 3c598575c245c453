"""The only data that crosses a process boundary around the model's code: plain values, tagged by
exact type, as JSON.

Standard library only: this file is also shipped, as source text, into the sandbox, where it is
prepended to the runner and to the candidate server (see `programs.py`).

Why exact types: a subclass of int whose `__eq__` always says True, or any object with methods,
must never reach code that judges. Values that are not plain data become *handles* where the
sender allows it (the candidate keeps the object; the judge gets a proxy whose method calls travel
back over the channel) and are refused everywhere else. A subclass of int, float or str travels as
its value (read through the base type's own slot, never an override), and four containers of the standard library
that programs return where a dict or tuple is expected (`Counter`, `OrderedDict`, `defaultdict`, a
`namedtuple`) travel by value, read through the base type's own methods, and are rebuilt on the
other side as the genuine standard-library type: what the judge compares is trusted code holding
plain data, equal to a dict or tuple as Python's `==` says.
Frames on a channel are a 4-byte big-endian length and that many bytes of JSON.
"""

import collections
import json
import keyword
import math
import os
import select
import struct
import time

MAX_FRAME_BYTES = 4 << 20
MAX_DEPTH = 2000


class Unencodable(Exception):
    """The value is not plain data (and the sender takes no handles)."""


class ChannelTimeout(Exception):
    """The other side did not answer before the deadline."""


class ChannelClosed(Exception):
    """The other side went away, or sent something that is not a frame."""


def encode(value, handle_for=None, depth=0):
    """Plain data by exact type; anything else goes to `handle_for(value)` (a JSON-able tag) or is refused."""
    if depth > MAX_DEPTH:
        raise Unencodable("nested too deeply")
    kind = type(value)
    if value is None or kind is bool or kind is str:
        return value
    if kind is int:
        return value if abs(value) < 2**53 else {"int": _int_text(value)}
    if kind is float:
        return value if math.isfinite(value) else {"float": repr(value)}
    if kind is list or kind is tuple:
        return {kind.__name__: [encode(v, handle_for, depth + 1) for v in value]}
    if kind is dict:
        return {
            "dict": [[encode(k, handle_for, depth + 1), encode(v, handle_for, depth + 1)] for k, v in value.items()]
        }
    if kind is set or kind is frozenset:
        return {kind.__name__: [encode(v, handle_for, depth + 1) for v in value]}
    if kind is bytes:
        return {"bytes": value.hex()}
    for base, value_of in _BASE_VALUE.items():  # a subclass (an IntEnum, a float with methods): its value
        if isinstance(value, base):
            return encode(value_of(value), handle_for, depth)
    if kind in _MAPPINGS:  # by value, through dict's own methods (never the object's)
        return {kind.__name__: encode(dict(dict.items(value)), handle_for, depth + 1)["dict"]}
    if isinstance(value, tuple) and _is_namedtuple(kind):
        items = [encode(v, handle_for, depth + 1) for v in tuple.__iter__(value)]
        return {"namedtuple": [kind.__name__, list(kind._fields), items]}
    if handle_for is not None:
        return handle_for(value)
    raise Unencodable(f"a {kind.__name__} is not plain data")


_BASE_VALUE = {int: int.__index__, float: float.__float__, str: str.__str__}  # the base type's own slots
_MAPPINGS = {collections.Counter, collections.OrderedDict, collections.defaultdict}
_REBUILT_MAPPINGS = {"Counter": collections.Counter, "OrderedDict": collections.OrderedDict, "defaultdict": dict}


def _is_namedtuple(kind):
    fields = getattr(kind, "_fields", None)
    return type(fields) is tuple and all(type(f) is str for f in fields)


_NAMEDTUPLES = {}  # (name, fields) -> the class rebuilt for it, so that one result type is one class
MAX_FIELDS = 256
# classes one decoded value may make: each costs tens of microseconds of the reader's CPU (outside any
# sandbox limit), and a program whose `_fields` change on every read would otherwise make one per item
MAX_NEW_NAMEDTUPLES = 16
_made = [0]  # classes made during the current top-level `decode`


def _namedtuple(name, fields, items):
    if type(name) is not str or type(fields) is not list or not len(fields) == len(items) <= MAX_FIELDS:
        raise ValueError("not a namedtuple")
    if not all(type(f) is str for f in fields):
        raise ValueError("not a namedtuple")
    key = (name, tuple(fields))
    if key not in _NAMEDTUPLES:
        _made[0] += 1
        if _made[0] > MAX_NEW_NAMEDTUPLES:
            raise ValueError(f"more than {MAX_NEW_NAMEDTUPLES} kinds of namedtuple in one value")
        if len(_NAMEDTUPLES) >= 256:  # one program's many types never fill it for the next
            _NAMEDTUPLES.clear()
        typename = name if name.isidentifier() and not keyword.iskeyword(name) else "namedtuple"
        _NAMEDTUPLES[key] = collections.namedtuple(typename, fields, rename=True)
    return _NAMEDTUPLES[key](*items)


def _int_text(value):
    try:
        return str(value)
    except ValueError:  # more digits than int->str allows
        raise Unencodable("an integer too large to send") from None


def decode(data, resolve=None, depth=0):
    """Inverse of `encode`. Tags that are not plain data go to `resolve(tag, inner)` or are refused."""
    if depth == 0:
        _made[0] = 0
    if depth > MAX_DEPTH:
        raise ValueError("nested too deeply")
    if data is None or isinstance(data, (bool, str, int, float)):
        return data
    if isinstance(data, list):
        raise ValueError("a bare list is not a tagged value")
    if not isinstance(data, dict) or len(data) != 1:
        raise ValueError("a tagged value is a one-key object")
    ((tag, inner),) = data.items()
    if tag == "int":
        return int(inner)
    if tag == "float":
        return float(inner)
    if tag == "bytes":
        return bytes.fromhex(inner)
    if tag in ("list", "tuple", "set", "frozenset"):
        items = [decode(v, resolve, depth + 1) for v in inner]
        return {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[tag](items)
    if tag == "dict" or tag in _REBUILT_MAPPINGS:
        plain = {decode(k, resolve, depth + 1): decode(v, resolve, depth + 1) for k, v in inner}
        return plain if tag == "dict" else _REBUILT_MAPPINGS[tag](plain)
    if tag == "namedtuple" and type(inner) is list and len(inner) == 3 and type(inner[2]) is list:
        return _namedtuple(inner[0], inner[1], [decode(v, resolve, depth + 1) for v in inner[2]])
    if resolve is not None:
        return resolve(tag, inner)
    raise ValueError(f"unknown tag {tag!r}")


def send(fd, message):
    data = json.dumps(message, separators=(",", ":")).encode()
    if len(data) > MAX_FRAME_BYTES:
        raise Unencodable(f"a message of {len(data)} bytes is over the {MAX_FRAME_BYTES}-byte limit")
    view = memoryview(struct.pack(">I", len(data)) + data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def receive(fd, deadline=None, still_waiting=None):
    """One frame from `fd`, waiting at most until `deadline` (time.monotonic()). `still_waiting()`
    is called between short waits; it raises to give up early (e.g. the other side used its CPU)."""
    header = _read(fd, 4, deadline, still_waiting)
    size = struct.unpack(">I", header)[0]
    if size > MAX_FRAME_BYTES:
        raise ChannelClosed(f"a frame of {size} bytes is over the limit")
    try:
        return json.loads(_read(fd, size, deadline, still_waiting))
    except ValueError:
        raise ChannelClosed("a frame that is not JSON") from None


def _read(fd, count, deadline, still_waiting):
    data = bytearray()
    while len(data) < count:
        wait = 0.05 if deadline is None else min(0.05, deadline - time.monotonic())
        if deadline is not None and wait <= 0:
            raise ChannelTimeout("no answer in time")
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            if still_waiting is not None:
                still_waiting()
            continue
        piece = os.read(fd, count - len(data))
        if not piece:
            raise ChannelClosed("the other side closed the channel")
        data += piece
    return bytes(data)
