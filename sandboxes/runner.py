"""The runner inside the sandbox (shipped as source text after `wire.py`; see `programs.py`).

Three kinds of process, and why none of them can be fooled by the model's code:

    host ──job, nonce──▶ runner ──fork──▶ judge ──fork+exec──▶ candidate (the model's code)
         ◀─nonce-tagged lines─┘  ◀─records─┘  ◀── plain data over a pipe ──┘

- the **runner** holds the nonce and writes the only lines the host reads. It never runs
  anything of the model's, and the judge was forked before the nonce was read;
- the **judge** runs the task's trusted test code (setup, the check's statements, pytest
  functions). Every name the tests take from the program is a proxy: a call sends plain,
  type-tagged arguments to the candidate and gets plain data or a handle back. The judge compares
  with its own `==`; a handle never answers `==`, so an object whose `__eq__` always says True
  proves nothing. Expected values of `call == literal` tests never enter the sandbox at all:
  the judge sends the value out and the host compares it;
- the **candidate** is a fresh interpreter (`exec`, so it inherits no memory of the job or the
  tests) holding only its channel on fds 3/4 and its stdio files. It is kept warm across tests
  and replaced after a test that kills it or runs out of time.

Runner and judge are not dumpable (`PR_SET_DUMPABLE` 0): the candidate, though it runs as the same
user, cannot open their `/proc/<pid>/fd`, read their memory or ptrace them. All it can do to them
is kill them, and a missing record is a failed test, never a pass.
"""
import ast
import builtins
import ctypes
import fcntl
import json
import os
import resource
import signal
import sys
import time
import types

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
BUILTIN_NAMES = set(dir(builtins))


def not_dumpable():
    """Make this process (and its forks) unreachable through /proc and ptrace for its own user."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")


def set_limits(job, cpu_seconds):
    mb = job["memory_mb"] * 1024 * 1024
    cpu = max(1, int(cpu_seconds + 0.999))
    limits = [("RLIMIT_CPU", (cpu, cpu + 1)), ("RLIMIT_AS", (mb, mb)), ("RLIMIT_FSIZE", (job["max_file_bytes"],) * 2),
              ("RLIMIT_NOFILE", (job["max_open_files"],) * 2), ("RLIMIT_NPROC", (job["max_processes"],) * 2),
              ("RLIMIT_CORE", (0, 0))]
    for name, value in limits:
        try:
            resource.setrlimit(getattr(resource, name), value)
        except (ValueError, OSError):
            pass


# ---------------------------------------------------------------------------- the candidate process
class CandidateGone(BaseException):
    """The candidate timed out or died: ends the test whatever its code catches."""

    def __init__(self, status, detail=""):
        super().__init__(status, detail)
        self.status, self.detail = status, detail


class Clock:
    """One test's limits: a wall-clock deadline and the candidate's CPU seconds since the test began."""

    def __init__(self, cpu_seconds):
        self.cpu_seconds = cpu_seconds
        self.deadline = time.monotonic() + max(2.0 * cpu_seconds, cpu_seconds + 1.0)
        self.cpu_start = None


class Candidate:
    """A candidate server process and the judge's end of its channel."""

    def __init__(self, job, stdin_path, out_path, err_path, clock):
        self.job = job
        requests_read, self.requests = os.pipe()
        self.replies, replies_write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            try:
                self._become_candidate(requests_read, replies_write, stdin_path, out_path, err_path, clock)
            finally:
                os._exit(127)
        os.close(requests_read)
        os.close(replies_write)
        self.alive, self.exit_status = True, None
        self.use_clock(clock)

    def _become_candidate(self, requests_read, replies_write, stdin_path, out_path, err_path, clock):
        os.setsid()
        stdin = os.open(stdin_path, os.O_RDONLY)
        out = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        err = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        # move every source above the targets first, so no dup2 overwrites a source still needed
        moved = [fcntl.fcntl(fd, fcntl.F_DUPFD, 100) for fd in (stdin, out, err, requests_read, replies_write)]
        for target, fd in enumerate(moved):
            os.dup2(fd, target)
        os.closerange(5, 1 << 16)
        set_limits(self.job, self.job["solution_cpu_seconds"])
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # over-long writes fail with EFBIG, not a kill
        os.execv(self.job["python"], [self.job["python"], *self.job["python_flags"], "-c", self.job["candidate_source"]])

    def use_clock(self, clock):
        """Start charging this test's limits."""
        self.clock = clock
        clock.cpu_start = self.cpu_used()

    def cpu_used(self):
        try:
            with open(f"/proc/{self.pid}/stat") as fh:
                fields = fh.read().rpartition(")")[2].split()
            return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
        except (OSError, ValueError, IndexError):
            return 0.0

    def _check_cpu(self):
        if self.cpu_used() - self.clock.cpu_start > self.clock.cpu_seconds:
            raise ChannelTimeout("CPU limit")

    def request(self, message):
        """Send one request and return the reply's value; raise what the program raised."""
        if not self.alive:
            raise CandidateGone("runtime_error", "the program is no longer running")
        try:
            send(self.requests, message)
            reply = receive(self.replies, self.clock.deadline, self._check_cpu)
        except ChannelTimeout:
            self.kill()
            raise CandidateGone("timeout", "time limit") from None
        except (ChannelClosed, OSError):
            raise self._died() from None
        except Unencodable as exc:  # an argument too large to send: the test's own data
            raise CandidateGone("runtime_error", str(exc)) from None
        if not isinstance(reply, dict):
            raise self._died()
        if "raise" in reply:
            name, text = (list(reply["raise"]) + ["", ""])[:2]
            raise program_exception(str(name), str(text))
        return reply.get("value")

    def _died(self):
        status = self.wait(0.5)
        self.kill()
        if status is None:
            return CandidateGone("runtime_error", "the program broke its channel")
        if os.WIFSIGNALED(status):
            signum = os.WTERMSIG(status)
            if signum == signal.SIGXCPU:
                return CandidateGone("timeout", "time limit")
            if signum == signal.SIGKILL:
                return CandidateGone("killed", "killed (memory limit)")
            return CandidateGone("runtime_error", f"killed by signal {signum}")
        return CandidateGone("exited", f"the program exited with code {os.WEXITSTATUS(status)} during the test")

    def wait(self, seconds):
        """The exit status, waiting at most `seconds`; None if it still runs."""
        if self.exit_status is not None:
            return self.exit_status
        end = time.monotonic() + seconds
        while True:
            try:
                done, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                return self.exit_status
            if done:
                self.exit_status, self.alive = status, False
                return status
            if time.monotonic() >= end:
                return None
            time.sleep(0.005)

    def kill(self):
        for target in (lambda: os.killpg(self.pid, signal.SIGKILL), lambda: os.kill(self.pid, signal.SIGKILL)):
            try:
                target()
            except OSError:
                pass
        if self.exit_status is None:
            try:
                _, self.exit_status = os.waitpid(self.pid, 0)
            except ChildProcessError:
                pass
        self.alive = False
        for fd in (self.requests, self.replies):
            try:
                os.close(fd)
            except OSError:
                pass
        self.requests = self.replies = -1


def program_exception(name, text):
    """The program's exception, rebuilt in the judge: a built-in type by name, so tests that expect
    `ValueError` see one; anything else is a RuntimeError naming it."""
    if name == "MemoryError":
        return CandidateGone("memory", "memory limit")
    cls = getattr(builtins, name, None)
    if isinstance(cls, type) and issubclass(cls, Exception) and cls.__module__ == "builtins":
        try:
            return cls(text)
        except Exception:
            pass
    return RuntimeError(f"{name}: {text}")


# ---------------------------------------------------------------------------- proxies in the judge
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
        return self._ask("call", args=[session.argument(a) for a in args],
                         kwargs=[[k, session.argument(v)] for k, v in kwargs.items()])

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
        found = self._session.ask({"op": "globals", "names": [name]})
        if name not in found:
            raise AttributeError(f"the program defines no {name!r}")
        return found[name]


# ---------------------------------------------------------------------------- one test in the judge
def free_names(source):
    """Names the test code reads but never binds itself."""
    tree = ast.parse(source)
    loaded, bound = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return loaded - bound


def judge_namespace(job, session, test_source):
    """The trusted setup, then every free name of the test that the setup does not define, taken
    from the program (the entry point always from the program, even where the setup has a stub)."""
    namespace = {"__name__": "check", "__builtins__": builtins}
    sys.modules["solution"] = SolutionModule(session)
    exec(compile(job["judge_setup"], "setup", "exec"), namespace)
    entry = job.get("entry_point")
    wanted = sorted(n for n in free_names(test_source) if (n not in namespace or n == entry) and n not in BUILTIN_NAMES)
    if entry and "candidate" in wanted:
        namespace["candidate"] = session.ask({"op": "eval", "expr": entry})
        wanted.remove("candidate")
    if wanted:
        namespace.update(session.ask({"op": "globals", "names": wanted}))
    return namespace


def run_judged(job, test, session):
    """A call or exec test, driven by trusted code here; returns (status, fields)."""
    source = test.get("setup", "") + "\n" + (test["expr"] if test["kind"] == "call" else test["code"])
    namespace = judge_namespace(job, session, source)
    if test.get("setup"):
        exec(compile(test["setup"], "test", "exec"), namespace)
    if test["kind"] == "call":
        value = eval(compile(test["expr"], "test", "eval"), namespace)
        try:
            return "ok", {"value": encode(value)}
        except Unencodable as exc:
            return "unencodable", {"error": str(exc)}
    exec(compile(test["code"], "test", "exec"), namespace)
    return "ok", {}


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

    def run(self, index, test):
        """One test; returns its record (status, value or error, what it printed, seconds)."""
        start = time.monotonic()
        own_files = [os.path.join(self.work, f"{kind}{index}") for kind in ("in", "out", "err")]
        in_path, out_path, err_path = own_files
        if test["kind"] == "stdio":
            with open(in_path, "w") as fh:
                fh.write(test["stdin"])
        else:
            out_path, err_path = self.warm_out, self.warm_err
        for path in (out_path, err_path):
            open(path, "w").close()
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
        except AssertionError as exc:
            return "assertion", {"error": f"AssertionError: {str(exc)[:300]}"}
        except RecursionError:
            return "exception", {"error": "RecursionError"}
        except Exception as exc:
            return "exception", {"error": f"{type(exc).__name__}: {str(exc)[:300]}"}

    def _warm_candidate(self, clock):
        if self.load_failure is not None:
            raise self.load_failure
        if self.candidate is not None and self.candidate.wait(0) is None:
            self.candidate.use_clock(clock)
            return self.candidate
        self._retire()
        candidate = Candidate(self.job, os.devnull, self.warm_out, self.warm_err, clock)
        try:
            candidate.request({"source": self.job["setup"] + "\n" + self.job["code"], "module": "solution"})
        except CandidateGone as gone:
            candidate.kill()
            if gone.status == "timeout":
                raise
            # a crash while loading happens again on every test
            self.load_failure = LoadFailed("runtime_error", f"the program failed to load: {gone.detail}")
            raise self.load_failure from None
        except Exception as exc:
            candidate.kill()
            self.load_failure = LoadFailed("exception", f"the program raised while loading: {type(exc).__name__}: {exc}"[:300])
            raise self.load_failure from None
        self.candidate = candidate
        return candidate

    def _run_program(self, clock, in_path, out_path, err_path):
        """A stdin/stdout test: a fresh candidate runs the program as __main__. Exiting with code 0
        (sys.exit(0), os._exit(0)) after printing is a normal end."""
        program = Candidate(self.job, in_path, out_path, err_path, clock)
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


# ---------------------------------------------------------------------------- runner and judge
def judge_main(job, go_fd, report_fd, work):
    """The judge process: never sees the nonce. Waits for the go signal, runs every test, reports."""
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)  # the runner's stdin carries the nonce and later jobs: never ours to read
    os.read(go_fd, 1)
    os.close(go_fd)
    sys.setrecursionlimit(10_000)
    judge = Judge(job, work)
    for index, test in enumerate(job["tests"]):
        # "started" first: if the judge is killed while this test runs, the test is to blame
        os.write(report_fd, json.dumps({"started": index}).encode() + b"\n")
        line = json.dumps(judge.run(index, test)).encode()
        if len(line) > job["max_output_bytes"] + MAX_FRAME_BYTES + 65536:
            line = json.dumps({"i": index, "status": "output_limit", "error": "the result is too large"}).encode()
        os.write(report_fd, line + b"\n")
    judge.close()
    os._exit(0)


def read_exactly(fd, count):
    data = bytearray()
    while len(data) < count:
        piece = os.read(fd, count - len(data))
        if not piece:
            break
        data += piece
    return bytes(data)


def read_line(fd):
    data = bytearray()
    while not data.endswith(b"\n"):
        piece = os.read(fd, 1)
        if not piece:
            break
        data += piece
    return data.decode().strip()


def run_job(job, out):
    """Fork the judge, only then read the nonce, relay the judge's records tagged with it."""
    job["python"] = sys.executable
    work = job.get("work") or os.getcwd()
    os.makedirs(work, exist_ok=True)
    go_read, go_write = os.pipe()
    report_read, report_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(go_write)
        os.close(report_read)
        try:
            judge_main(job, go_read, report_write, work)
        finally:
            os._exit(1)
    os.close(go_read)
    os.close(report_write)
    nonce = read_line(0)  # read only now: the judge was forked without it
    os.write(go_write, b"x")
    os.close(go_write)
    with os.fdopen(report_read, "rb") as reports:
        for line in reports:
            out.write(f"EVALKIT-{nonce} {line.decode().strip()}\n")
            out.flush()
    os.waitpid(pid, 0)
    return nonce, work


def inside_sandbox():
    """True only in a sandbox's own pid namespace, where pid 1 is bubblewrap's or Docker's init:
    the only places where killing "every process we may signal" and emptying /tmp touch nothing
    but the sandbox."""
    try:
        with open("/proc/1/cmdline", "rb") as fh:
            init = fh.read().split(b"\0")[0]
    except OSError:
        return False
    return init.endswith(b"bwrap") or init.endswith(b"docker-init")


def clean_up(work):
    """Between jobs of a warm sandbox: kill every other process of ours in the sandbox (daemons
    that left their process group too), then empty every writable place."""
    try:
        os.kill(-1, signal.SIGKILL)  # all we may signal except ourselves and the namespace's init
    except OSError:
        pass
    for top in (work, "/tmp", "/dev/shm"):
        wipe(top)


def wipe(top):
    """Delete everything under `top` (kept), including what sits in dirs made unreadable."""
    for root, dirs, _files in os.walk(top):  # open each dir before the walk enters it
        for name in dirs:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                try:
                    os.chmod(path, 0o700)
                except OSError:
                    pass
    for root, dirs, files in os.walk(top, topdown=False):
        for name in files + dirs:
            path = os.path.join(root, name)
            try:
                os.rmdir(path) if name in dirs and not os.path.islink(path) else os.unlink(path)
            except OSError:
                pass


def main():
    """One job, or with `--serve` (a warm sandbox) one job after another, each ending with a
    `done` line written after the sandbox is clean again."""
    not_dumpable()
    serve = "--serve" in sys.argv
    if serve and not inside_sandbox():
        sys.exit("runner: --serve only runs inside a sandbox (bubblewrap or a Docker container)")
    out = sys.stdout
    while True:
        header = read_line(0)
        if not header:
            return
        job = json.loads(read_exactly(0, int(header)))
        nonce, work = run_job(job, out)
        if serve:
            clean_up(work)
        out.write(f"EVALKIT-{nonce} " + json.dumps({"done": True}) + "\n")
        out.flush()
        if not serve:
            return


if __name__ == "__main__":
    main()
