"""The judge (shipped into the sandbox as source text; see `programs.py`): runs the task's trusted
test code, one test at a time, against proxies of the program, and reports one record per test."""

import ast
import builtins
import importlib
import json
import os
import sys
import time

BUILTIN_NAMES = set(dir(builtins))
STDLIB_MODULES = frozenset(getattr(sys, "stdlib_module_names", ()))


class TaskBroken(Exception):
    """The task's tests read a name that neither its setup nor the program may provide: ERROR, not the model's fault."""


def free_names(*trees):
    """Names the test code (its parsed parts) reads but never binds itself."""
    loaded, bound = set(), set()
    for node in (n for tree in trees for n in ast.walk(tree)):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return loaded - bound


def called_names(*trees):
    """Names the test code calls directly (`area(5)`): where a task names no entry point, these are
    the functions under test."""
    return {
        node.func.id
        for tree in trees
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }


def setup_code(job):
    """The trusted setup, compiled once per job (it runs afresh for every test), unless the runner
    already compiled it for an earlier job (`compiled_setup`)."""
    if "setup_code" not in job:
        job["setup_code"] = compile(job["judge_setup"], "setup", "exec")
    return job["setup_code"]


def declared_names(job):
    """The names the program provides: those of the entry point (`Solution` of `Solution().f`) and
    those the task declares (`program_names`)."""
    if "declared_names" not in job:
        names = set(job.get("program_names") or ())
        entry = job.get("entry_point")
        if entry:
            try:
                names |= {n.id for n in ast.walk(ast.parse(entry, "entry", "eval")) if isinstance(n, ast.Name)}
            except SyntaxError:
                pass
        job["declared_names"] = names
    return job["declared_names"]


def trusted_value(job, name):
    """`name` as the judge itself provides it: a standard module, or a public name of an allowed
    package (`SortedList`); `missing` when neither has it."""
    if name in STDLIB_MODULES:
        return importlib.import_module(name)
    for package in job.get("packages") or ():
        try:
            module = importlib.import_module(package)
        except ImportError:
            continue
        public = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
        if name in public:
            return getattr(module, name)
    return missing


missing = object()


def judge_namespace(job, session, names, called=frozenset()):
    """The trusted setup, then every free name of the test (`names`) that the setup does not define.
    Only the entry point and the names the task declares come from the program (the entry point even
    where the setup has a stub); a standard module or an allowed package's name is the judge's own
    import, whatever the program defines under that name (`class math: isclose = ... True` proves
    nothing). A task that declares no name takes the functions its tests call from the program.
    Any other name is the task's fault (`TaskBroken`). The setup runs afresh for every test."""
    namespace = {"__name__": "check", "__builtins__": builtins}
    sys.modules["solution"] = SolutionModule(session)
    exec(setup_code(job), namespace)
    entry_first = bool(job.get("entry_point"))  # the entry point is asked for before any other name
    from_program, trusted = [], {}
    for name in sorted(names, key=lambda n: (not (entry_first and n == "candidate"), n)):
        source = name_source(job, name, namespace, called)
        if source is ENTRY_POINT:
            namespace[name] = session.ask({"op": "eval", "expr": job["entry_point"]})
        elif source is FROM_PROGRAM:
            from_program.append(name)
        elif source is not None:
            trusted[name] = source
    if from_program:
        found = session.program_values(from_program)  # exactly the names asked, or the test fails
        namespace.update(found)
        unanswered = {name for name in from_program if name not in found and name in BUILTIN_NAMES}
        if unanswered:  # the program's `sum` is missing: a NameError, never Python's `sum` answering for it
            namespace["__builtins__"] = {k: v for k, v in vars(builtins).items() if k not in unanswered}
    namespace.update(trusted)  # set last: nothing taken from the program stands in for them
    return namespace


ENTRY_POINT = object()  # `name_source`: `candidate`, the program's entry point
FROM_PROGRAM = object()  # `name_source`: the program's own value of the name


def name_source(job, name, namespace, called):
    """Where a free name of the tests comes from (`judge_namespace`'s rule, written only here: tests
    run one by one and calls batched to the program both follow it). None: the setup's `namespace`
    or the builtins have it. ENTRY_POINT for `candidate`; FROM_PROGRAM for the entry point, a
    declared name, or, where the task declares none, a `called` name that no standard module or
    allowed package provides; otherwise the judge's own value (a standard module, a package's name).
    Raises TaskBroken where nothing may provide it."""
    entry = job.get("entry_point")
    if name in namespace and name != entry:
        return None
    if name == "candidate" and entry:
        return ENTRY_POINT
    declared = declared_names(job)
    if name in declared:
        return FROM_PROGRAM  # the function under test, even where a builtin has its name (`sum`)
    if name in BUILTIN_NAMES:
        return FROM_PROGRAM if name in tested_builtins(job, namespace) else None
    value = missing if (not declared and name in called and name in STDLIB_MODULES) else trusted_value(job, name)
    if value is not missing:
        return value
    if not declared and name in called:
        return FROM_PROGRAM  # a module is never called: this is the function under test
    raise TaskBroken(
        f"the tests read `{name}`, which neither the task's setup (imports) nor its entry point or "
        "program_names provide"
    )


def tested_builtins(job, namespace):
    """The builtins' names that are the task's functions under test: where the task declares no
    names and its tests call no function but builtins (`assert pow(2, 3) == 8` in a task that asks
    for `pow`), those names are the program's, never Python's (else `pass` would score 1.0). Where
    any test calls another name (`f`), that is the function under test and builtins stay Python's.
    Decided once for the whole task, so every test of it reads a name the same way."""
    if declared_names(job):
        return set()
    if "tested_builtins" not in job:
        called = set()
        for test in job["tests"]:
            try:
                parts = [ast.parse(test.get("setup", ""), "test", "exec")]
                if test["kind"] == "call":
                    parts.append(ast.parse(test["expr"], "test", "eval"))
                elif test["kind"] == "exec":
                    parts.append(ast.parse(test["code"], "test", "exec"))
            except SyntaxError:
                continue
            called |= called_names(*parts)
        loose = {name for name in called if name not in namespace}
        job["tested_builtins"] = set() if any(name not in BUILTIN_NAMES for name in loose) else loose
    return job["tested_builtins"]


def run_judged(job, test, session):
    """A call or exec test, driven by trusted code here; returns (status, fields)."""
    setup = ast.parse(test.get("setup", ""), "test", "exec")
    body = (
        ast.parse(test["expr"], "test", "eval") if test["kind"] == "call" else ast.parse(test["code"], "test", "exec")
    )
    namespace = judge_namespace(job, session, free_names(setup, body), called_names(setup, body))
    if test.get("setup"):
        exec(compile(setup, "test", "exec"), namespace)
    if test["kind"] == "call":
        value = eval(compile(body, "test", "eval"), namespace)
        try:
            return "ok", {"value": encode(value)}
        except Unencodable as exc:
            return "unencodable", {"error": str(exc)}
    exec(compile(body, "test", "exec"), namespace)
    return "ok", {}


CALLS_PER_REQUEST = 64


def failed(exc):
    """The record fields for an exception a test raised (the program's, rebuilt here, or the test's)."""
    if isinstance(exc, AssertionError):
        return "assertion", {"error": f"AssertionError: {str(exc)[:300]}"}
    if isinstance(exc, RecursionError):
        return "exception", {"error": "RecursionError"}
    return "exception", {"error": f"{type(exc).__name__}: {str(exc)[:300]}"}


def plain_call(test):
    """The call node of a test that is exactly `name(args)` (no setup, no starred arguments), which
    may go to the program together with others; None for any other test."""
    if test["kind"] != "call" or test.get("setup"):
        return None
    try:
        call = ast.parse(test["expr"], "test", "eval").body
    except SyntaxError:
        return None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
        return None
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    return call


def program_function(job, name, setup_namespace):
    """The expression the program evaluates for a test's `name(args)` call where the judge would
    take `name` from the program (`name_source`); None where it would not."""
    try:
        source = name_source(job, name, setup_namespace, {name})
    except TaskBroken:
        return None  # the one-by-one path reports it
    if source is ENTRY_POINT:
        return job["entry_point"]
    return name if source is FROM_PROGRAM else None


def emptied(path):
    """Truncate a stdio file the candidate appends to (absent before the first candidate)."""
    try:
        os.truncate(path, 0)
    except FileNotFoundError:
        pass


class LoadFailed(CandidateGone):
    """The program could not be loaded; every later test of this run fails the same way."""


class Judge:
    """Runs the tests one by one, keeping one warm candidate for call and exec tests."""

    def __init__(self, job, work):
        self.job, self.work = job, work
        self.candidate = None
        self.load_failure = None
        self.timeout_left = job["timeout_budget_seconds"]
        self.warm_out = os.path.join(work, "candidate.out")
        self.warm_err = os.path.join(work, "candidate.err")
        self.calls = {}  # test index -> (its plain call node, the program's function it calls), or None
        self.setup_namespace = None  # the trusted setup's names, made at the first request of calls
        self.batching = True
        self.zygote = Zygote(job.get("zygote_fd"))  # None in a one-shot run: each candidate exec'd
        self.start_seconds = 0.0  # spent starting candidates and loading the program (the profile)

    def run(self, index, test):
        """One test; returns its record (status, value or error, what it printed, seconds)."""
        start = time.monotonic()
        own_files = [os.path.join(self.work, f"{kind}{index}") for kind in ("in", "out", "err")]
        in_path, out_path, err_path = own_files
        if test["kind"] == "stdio":
            with open(in_path, "w") as fh:
                fh.write(test["stdin"])
        else:
            out_path, err_path, own_files = self.warm_out, self.warm_err, []
        for path in (out_path, err_path):
            emptied(path)
        limit = min(self.job["cpu_seconds"], self.timeout_left)
        if limit <= 0:
            status, fields = "timeout", {"error": "not run: the solution's time budget is spent"}
        else:
            status, fields = self._run(test, Clock(limit), in_path, out_path, err_path)
        if status == "timeout":  # charged in wall seconds: a sleeping program costs its wall clock
            self.timeout_left -= max(limit, time.monotonic() - start)
        record = {"i": index, "status": status, "seconds": round(time.monotonic() - start, 4), **fields}
        try:
            size = os.path.getsize(out_path)
            record["stdout"] = ""
            if size:
                with open(out_path, "rb") as fh:
                    record["stdout"] = fh.read(self.job["max_output_bytes"]).decode("utf-8", "replace")
            if size >= self.job["max_output_bytes"]:
                record["status"] = "output_limit"
        except OSError:
            record["stdout"] = ""
        for path in own_files:
            try:
                os.unlink(path)
            except OSError:
                pass
        return record

    def _run(self, test, clock, in_path, out_path, err_path):
        try:
            if test["kind"] == "stdio":
                return self._run_program(clock, in_path, out_path, err_path)
            return run_judged(self.job, test, Session(self._warm_candidate(clock)))
        except CandidateGone as gone:
            if not isinstance(gone, LoadFailed):
                self._retire()
            return gone.status, {"error": gone.detail}
        except TaskBroken as exc:
            return "task_error", {"error": str(exc)}
        except Exception as exc:
            return failed(exc)

    # ------------------------------------------------------------------ plain calls, many at once
    def calls_from(self, index, most=CALLS_PER_REQUEST):
        """How many tests from `index` on are plain calls of the same function of the program, up to `most`."""
        if not self.batching or most < 2:  # one test goes alone: no need to look at it
            return 0
        first = self._call(index)
        if first is None:
            return 0
        count = 1
        while index + count < len(self.job["tests"]) and count < most:
            following = self._call(index + count)
            if following is None or following[1] != first[1]:
                break
            count += 1
        return count

    def _call(self, index):
        """(call node, the program's function it calls) of a plain call test, or None."""
        if index not in self.calls:
            call = plain_call(self.job["tests"][index])
            function = None
            if call is not None:
                try:
                    function = program_function(self.job, call.func.id, self._setup_namespace())
                except Exception:  # the setup itself fails: the one-by-one path reports it, test by test
                    self.batching = False
            self.calls[index] = (call, function) if function is not None else None
        return self.calls[index]

    def run_calls(self, first, count):
        """Tests first..first+count-1 in one request: the program evaluates the function under test
        afresh for each and calls it with the test's arguments (evaluated here, in the trusted setup,
        and sent as plain data, as one by one). Returns their records, or None when anything went wrong that
        the one-by-one path judges exactly (a timeout, a death, a crash while loading, too much
        output, an argument that needs the program): the caller then runs them one by one, and
        stops batching for this job."""
        start = time.monotonic()
        records = self._try_calls(first, count)
        if records is None:
            self.batching = False
            return None
        seconds = round((time.monotonic() - start) / count, 4)
        return [{"i": first + k, "seconds": seconds, "stdout": "", **record} for k, record in enumerate(records)]

    def _try_calls(self, first, count):
        limit = min(self.job["cpu_seconds"], self.timeout_left)
        if limit <= 0 or self.load_failure is not None:
            return None
        for path in (self.warm_out, self.warm_err):
            emptied(path)
        try:
            session = Session(self._warm_candidate(Clock(limit)))
            namespace = self._setup_namespace()
            calls = [self._arguments(self._call(first + k)[0], namespace, session) for k in range(count)]
            if any(c is None for c in calls):
                return None
            function = self._call(first)[1]
            replies = session.candidate.request({"op": "call_each", "expr": function, "calls": calls})
            if os.path.getsize(self.warm_out) >= self.job["max_output_bytes"] or type(replies) is not list:
                return None
            records = [self._call_record(reply, session) for reply in replies]
        except CandidateGone as gone:
            if not isinstance(gone, LoadFailed):
                self._retire()
            return None
        except Exception:
            return None
        return records if len(records) == count and all(r is not None for r in records) else None

    def _setup_namespace(self):
        """The trusted setup's names, for evaluating arguments: run once per job (as one request's
        calls always shared it), not once per request."""
        if self.setup_namespace is None:
            namespace = {"__name__": "check", "__builtins__": builtins}
            exec(setup_code(self.job), namespace)
            self.setup_namespace = namespace
        return self.setup_namespace

    @staticmethod
    def _arguments(call, namespace, session):
        """The call's arguments as plain data, or None if they read a name the setup lacks (the
        one-by-one path then takes it from the program). Literals are built from the syntax tree;
        anything else is evaluated as one tuple (one compile per test)."""
        nodes = [*call.args, *(k.value for k in call.keywords)]
        try:  # most tests' arguments are literals: built from the tree at a fraction of compile's cost
            evaluated = [literal_value(node) for node in nodes]
        except NotLiteral:
            together = ast.fix_missing_locations(ast.Expression(ast.Tuple(nodes, ast.Load())))
            try:
                evaluated = eval(compile(together, "test", "eval"), namespace)
            except NameError:
                return None
        values = [session.argument(v) for v in evaluated]
        return [values[: len(call.args)], [[k.arg, v] for k, v in zip(call.keywords, values[len(call.args) :])]]

    @staticmethod
    def _call_record(reply, session):
        """One call's reply as the record the one-by-one path would write (None: let it decide)."""
        if type(reply) is not dict:
            return None
        if "raise" in reply:
            name, text = (list(reply["raise"]) + ["", ""])[:2]
            exc = program_exception(str(name), str(text))
            if isinstance(exc, CandidateGone):  # memory: the one-by-one path retires the candidate
                return None
            status, fields = failed(exc)
            return {"status": status, **fields}
        try:
            return {"status": "ok", "value": encode(session.value(reply.get("value")))}
        except Unencodable as exc:
            return {"status": "unencodable", "error": str(exc)}
        except CandidateGone:
            return None

    def _warm_candidate(self, clock):
        if self.load_failure is not None:
            raise self.load_failure
        if self.candidate is not None and self.candidate.wait(0) is None:
            self.candidate.use_clock(clock)
            return self.candidate
        self._retire()
        start = time.monotonic()
        candidate = Candidate(self.job, os.devnull, self.warm_out, self.warm_err, clock, self.zygote)
        try:
            candidate.request({"source": self.job["setup"] + "\n" + self.job["code"], "module": "solution"})
            self.start_seconds += time.monotonic() - start
        except CandidateGone as gone:
            candidate.kill()
            if gone.status == "timeout":
                raise
            # a crash while loading happens again on every test
            self.load_failure = LoadFailed("runtime_error", f"the program failed to load: {gone.detail}")
            raise self.load_failure from None
        except Exception as exc:
            candidate.kill()
            self.load_failure = LoadFailed(
                "exception", f"the program raised while loading: {type(exc).__name__}: {exc}"[:300]
            )
            raise self.load_failure from None
        self.candidate = candidate
        return candidate

    def _run_program(self, clock, in_path, out_path, err_path):
        """A stdin/stdout test: a fresh candidate runs the program as __main__. Exiting with code 0
        (sys.exit(0), os._exit(0)) after printing is a normal end."""
        program = Candidate(self.job, in_path, out_path, err_path, clock, self.zygote)
        try:
            program.request({"source": self.job["setup"] + "\n" + self.job["code"], "module": "__main__"})
        except CandidateGone as gone:
            if gone.status == "exited" and gone.detail.startswith("the program exited with code 0 "):
                return "ok", {}
            raise
        finally:
            program.kill()
        return "ok", {}

    def _retire(self):
        if self.candidate is not None:
            self.candidate.kill()
        self.candidate = None

    def close(self):
        self._retire()


class Report:
    """Records on their way to the runner: gathered up to 64 KiB, then written (one system call for
    a request's records and the next one's "started" line, not one per line: each write is a message
    the runner relays, through Docker's daemon on that backend; a large record is never held beside
    many others)."""

    def __init__(self, fd):
        self.fd, self.pending = fd, []
        self.size = 0

    def add(self, line):
        self.pending.append(line)
        self.size += len(line)
        if self.size >= 1 << 16:
            self.flush()

    def flush(self):
        data = memoryview(b"".join(self.pending))
        self.pending, self.size = [], 0
        while data:
            data = data[os.write(self.fd, data) :]


def judge_main(job, go_fd, report_fd, work):
    """The judge process: never sees the nonce. Waits for the go signal, runs every test, reports."""
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)  # the runner's stdin carries the nonce and later jobs: never ours to read
    os.read(go_fd, 1)
    os.close(go_fd)
    started = time.monotonic()
    sys.setrecursionlimit(10_000)
    judge = Judge(job, work)
    tests, index, most = job["tests"], 0, 1
    report = Report(report_fd)  # a request's records go out with the next request's "started" line
    while index < len(tests):
        # requests grow (1, 2, 4, ... CALLS_PER_REQUEST calls): an early failure reaches the host,
        # which may stop the run there (a pass/fail reward), before many more tests have run; a
        # program that loops on the first test is timed on that test alone
        count = judge.calls_from(index, most)
        most = min(2 * most, CALLS_PER_REQUEST)
        # "started" out before the request runs: a judge killed before any record is the program's
        # doing, not the sandbox's
        report.add(json.dumps({"started": index}).encode() + b"\n")
        report.flush()
        records = judge.run_calls(index, count) if count > 1 else None
        if records is None:  # one by one
            records = [judge.run(index + k, tests[index + k]) for k in range(max(count, 1))]
        for record in records:
            line = json.dumps(record).encode()
            if len(line) > job["max_output_bytes"] + MAX_FRAME_BYTES + 65536:
                line = json.dumps({"i": record["i"], "status": "output_limit", "error": "the result is too large"})
                line = line.encode()
            report.add(line + b"\n")
        index += len(records)
    report.flush()
    judge.close()
    total = time.monotonic() - started
    profile = {"candidate_start": judge.start_seconds, "tests": total - judge.start_seconds}
    os.write(report_fd, json.dumps({"phases": profile}).encode() + b"\n")
    os._exit(0)
