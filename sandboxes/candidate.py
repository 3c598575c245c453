"""The candidate server: the only process that runs the model's code (shipped into the sandbox as
source text after `wire.py`, `rlimits.py` and `zygote.py`; forked by the sandbox's zygote, or run
as `python3 -I -S -c <source>`, with the channel on fds 3 and 4).

It loads the program, then answers the judge's requests: fetch a global, call a function, read an
attribute, iterate, take a length. Values go back as plain data; any other object stays here and
the judge gets a handle to it. Nothing here decides a verdict: what this process says is only the
program's own answer, which the program controls anyway.
"""

import builtins
import sys
import types

REQUESTS, REPLIES = 3, 4
MAX_ITEMS = 100_000


class Objects:
    """Objects the judge holds handles to, by number."""

    def __init__(self):
        self.by_number = {}

    def tag(self, value):
        number = len(self.by_number) + 1
        self.by_number[number] = value
        return {"handle": number}

    def resolve(self, namespace):
        def resolve(tag, inner):
            if tag == "handle":
                return self.by_number[inner]
            if tag == "obj":  # a plain-data object the judge built (a ListNode): rebuild it with our class
                class_name, fields = inner
                cls = namespace.get(class_name)
                if not isinstance(cls, type):
                    raise TypeError(f"the program defines no class {class_name!r}")
                made = object.__new__(cls)
                made.__dict__.update(decode(fields, resolve))
                return made
            raise ValueError(f"unknown tag {tag!r}")

        return resolve


def _exit(code=None):
    raise SystemExit(code)


def load(message):
    """Run the program as a module; return its namespace."""
    module = types.ModuleType(message["module"])
    module.__dict__["__builtins__"] = builtins
    for name in ("exit", "quit"):  # what `site` would add; the interpreter runs with -S
        if not hasattr(builtins, name):
            setattr(builtins, name, _exit)
    sys.modules[message["module"]] = module
    sys.setrecursionlimit(10_000)
    exec(compile(message["source"], "solution.py", "exec"), module.__dict__)
    return module.__dict__


def answer(objects, namespace, request):
    """The reply to one request, as a plain-data message."""
    resolve = objects.resolve(namespace)
    op = request["op"]
    if op == "globals":
        found = {name: namespace[name] for name in request["names"] if name in namespace}
        return {"value": encode(found, objects.tag)}
    if op == "eval":
        return {"value": encode(eval(request["expr"], own_names(namespace)), objects.tag)}
    if op == "call_each":  # many tests' calls in one request: the function under test afresh for each, as one by one
        function = compile(request["expr"], "function", "eval")  # once: evaluated again for every call
        return {"value": [call_entry(objects, namespace, function, args, kwargs) for args, kwargs in request["calls"]]}
    target = objects.by_number[request["handle"]]
    if op == "call":
        args = [decode(a, resolve) for a in request["args"]]
        kwargs = {k: decode(v, resolve) for k, v in request["kwargs"]}
        return {"value": encode(target(*args, **kwargs), objects.tag)}
    if op == "getitem":
        return {"value": encode(target[decode(request["key"], resolve)], objects.tag)}
    if op == "getattr":
        return {"value": encode(getattr(target, request["name"]), objects.tag)}
    if op == "iter":
        items = []
        for item in target:
            items.append(item)
            if len(items) > MAX_ITEMS:
                raise OverflowError(f"more than {MAX_ITEMS} items")
        return {"value": encode(items, objects.tag)}
    if op in ("len", "bool", "str"):
        value = {"len": len, "bool": bool, "str": str}[op](target)
        if type(value) is not {"len": int, "bool": bool, "str": str}[op]:
            raise TypeError(f"{op}() did not give a plain {op} value")
        return {"value": value}
    raise ValueError(f"unknown request {op!r}")


def own_names(namespace):
    """The program's globals without the builtins, for evaluating the function under test: an entry
    point `sum` the program never defined is a NameError, not Python's `sum` answering for it.
    (Inside the program's functions the builtins are there as usual: they read their module's.)"""
    names = dict(namespace)
    names["__builtins__"] = {}
    return names


def call_entry(objects, namespace, function, args, kwargs):
    """One test's call (`function`: the compiled expression of the function under test): its own
    reply, a value or what the program raised."""
    resolve = objects.resolve(namespace)
    try:
        target = eval(function, own_names(namespace))
        value = target(*[decode(a, resolve) for a in args], **{k: decode(v, resolve) for k, v in kwargs})
        return {"value": encode(value, objects.tag)}
    except BaseException as exc:
        if isinstance(exc, MemoryError):
            raise
        return failure(exc)


def failure(exc):
    return {"raise": [type(exc).__name__, str(exc)[:300]]}


def serve():
    message = receive(REQUESTS)
    try:
        namespace = load(message)
    except SystemExit as exc:
        ok = exc.code is None or exc.code == 0
        reply = {"value": None} if ok and message["module"] == "__main__" else failure(exc)
        _flush()
        send(REPLIES, reply)
        return
    except BaseException as exc:  # the program's bug: report it, never crash the server
        _flush()
        send(REPLIES, failure(exc))
        return
    _flush()
    send(REPLIES, {"value": None})
    if message["module"] == "__main__":
        return
    objects = Objects()
    while True:
        try:
            request = receive(REQUESTS)
        except ChannelClosed:
            return
        try:
            reply = answer(objects, namespace, request)
        except BaseException as exc:
            reply = failure(exc)
        _flush()
        try:
            send(REPLIES, reply)
        except Unencodable as exc:
            send(REPLIES, failure(exc))


def _flush():
    try:
        sys.stdout.flush()
    except BaseException:
        pass


if __name__ == "__main__":
    if sys.argv[1:2] == ["--zygote"]:
        fork_candidates(packages_argument(sys.argv))  # returns only in a fork, set up as a candidate (zygote.py)
    serve()
