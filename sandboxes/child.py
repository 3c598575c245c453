"""The program's process, seen from the judge (shipped into the sandbox as source text; see
`programs.py`): starting a fresh interpreter for the model's code with only its stdio files and
its channel, its limits, a request with a deadline and a CPU clock, and what its death means."""

import builtins
import fcntl
import os
import resource
import signal
import time

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def set_limits(job, cpu_seconds):
    mb = job["memory_mb"] * 1024 * 1024
    cpu = max(1, int(cpu_seconds + 0.999))
    limits = [
        ("RLIMIT_CPU", (cpu, cpu + 1)),
        ("RLIMIT_AS", (mb, mb)),
        ("RLIMIT_FSIZE", (job["max_file_bytes"],) * 2),
        ("RLIMIT_NOFILE", (job["max_open_files"],) * 2),
        ("RLIMIT_NPROC", (job["max_processes"],) * 2),
        ("RLIMIT_CORE", (0, 0)),
        ("RLIMIT_MSGQUEUE", (0, 0)),  # no POSIX message queue: it would outlive the job, unlisted
    ]
    for name, value in limits:
        try:
            resource.setrlimit(getattr(resource, name), value)
        except (ValueError, OSError):
            pass


class CandidateGone(BaseException):
    """The candidate timed out or died: ends the test whatever its code catches."""

    def __init__(self, status, detail=""):
        super().__init__(status, detail)
        self.status, self.detail = status, detail


class Clock:
    """One test's limits: a wall-clock deadline and the candidate's CPU seconds since the test began."""

    def __init__(self, cpu_seconds):
        self.cpu_seconds = cpu_seconds
        # a sleeping program uses no CPU, so a wall clock backs the CPU limit
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
        os.execv(
            self.job["python"], [self.job["python"], *self.job["python_flags"], "-c", self.job["candidate_source"]]
        )

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
