"""The program's process, seen from the judge (shipped into the sandbox as source text; see
`programs.py`): starting an interpreter for the model's code with only its stdio files and its
channel (forked by the sandbox's zygote, or a fresh one by exec when there is none), its limits,
a request with a deadline and a CPU clock, and what its death means."""

import builtins
import fcntl
import os
import signal
import socket
import time

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
SPAWN_SECONDS = 2.0  # a zygote that does not answer by then is stopped or gone: exec instead
EXIT_STATUS_BYTES = 4
KILLED = signal.SIGKILL  # the wait status of a candidate whose zygote died before reporting it


class Zygote:
    """The judge's end of the sandbox's zygote (`zygote.py`); `None` fd: there is none (a one-shot
    run). After one failure it is not asked again in this job."""

    def __init__(self, fd):
        self.link = socket.socket(fileno=fd) if fd is not None else None

    def spawn(self, fds, request):
        """The pid of a candidate forked with `fds` (stdin, stdout, stderr, requests, replies,
        exit status), or None: start it the old way."""
        if self.link is None:
            return None
        try:
            socket.send_fds(self.link, [json.dumps(request).encode()], fds)
            ready = select.select([self.link], [], [], SPAWN_SECONDS)[0]
            reply = json.loads(self.link.recv(4096)) if ready else None
        except (OSError, ValueError):
            reply = None
        if type(reply) is not dict or type(reply.get("pid")) is not int:
            self.link = None
            return None
        return reply["pid"]


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

    def __init__(self, job, stdin_path, out_path, err_path, clock, zygote=None):
        self.job = job
        requests_read, self.requests = os.pipe()
        self.replies, replies_write = os.pipe()
        self.status_fd, self.pid, self.orphaned = None, None, False
        if zygote is not None:
            self.pid = self._fork_from(zygote, stdin_path, out_path, err_path, requests_read, replies_write)
        if self.pid is None:
            self.pid = os.fork()
            if self.pid == 0:
                try:
                    self._exec_candidate(requests_read, replies_write, stdin_path, out_path, err_path)
                finally:
                    os._exit(127)
        os.close(requests_read)
        os.close(replies_write)
        self.alive, self.exit_status = True, None
        self.use_clock(clock)

    def _fork_from(self, zygote, stdin_path, out_path, err_path, requests_read, replies_write):
        status_read, status_write = os.pipe()
        stdio = _stdio_files(stdin_path, out_path, err_path)
        pid = zygote.spawn(
            [*stdio, requests_read, replies_write, status_write],
            {"limits": program_limits(self.job), "paths": self.job.get("library_paths", [])},
        )
        for fd in (*stdio, status_write):
            os.close(fd)
        if pid is None:
            os.close(status_read)
        else:
            self.status_fd = status_read
        return pid

    def _exec_candidate(self, requests_read, replies_write, stdin_path, out_path, err_path):
        os.setsid()
        # move every source above the targets first, so no dup2 overwrites a source still needed
        sources = (*_stdio_files(stdin_path, out_path, err_path), requests_read, replies_write)
        moved = [fcntl.fcntl(fd, fcntl.F_DUPFD, 100) for fd in sources]
        for target, fd in enumerate(moved):
            os.dup2(fd, target)
        os.closerange(5, 1 << 16)
        set_limits(program_limits(self.job))
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
        if self.status_fd is not None or self.orphaned:
            return self._reported_status(seconds)
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

    def _reported_status(self, seconds):
        """A zygote's fork is the zygote's child: the zygote writes its wait status to our pipe. If
        the zygote died first (the pipe ends without a status), /proc says whether it still runs."""
        end = time.monotonic() + seconds
        while True:
            if (
                self.status_fd is not None
                and select.select([self.status_fd], [], [], max(0.0, end - time.monotonic()))[0]
            ):
                data = os.read(self.status_fd, EXIT_STATUS_BYTES)
                os.close(self.status_fd)
                self.status_fd = None
                if len(data) == EXIT_STATUS_BYTES:
                    self.exit_status, self.alive = int.from_bytes(data, "big", signed=True), False
                    return self.exit_status
                self.orphaned = True
            if self.orphaned and not _running(self.pid):
                self.exit_status, self.alive = KILLED, False  # its status went with the zygote
                return self.exit_status
            if time.monotonic() >= end:
                return None
            if self.orphaned:
                time.sleep(0.005)

    def kill(self):
        for target in (lambda: os.killpg(self.pid, signal.SIGKILL), lambda: os.kill(self.pid, signal.SIGKILL)):
            try:
                target()
            except OSError:
                pass
        if self.exit_status is None:
            if self.status_fd is not None or self.orphaned:
                self.wait(SPAWN_SECONDS)  # bounded: a stopped zygote never reports
            else:
                try:
                    _, self.exit_status = os.waitpid(self.pid, 0)
                except ChildProcessError:
                    pass
        if self.status_fd is not None:
            os.close(self.status_fd)
            self.status_fd = None
        self.alive = False
        for fd in (self.requests, self.replies):
            try:
                os.close(fd)
            except OSError:
                pass
        self.requests = self.replies = -1


def _running(pid):
    """Is `pid` a process that has not ended (a zombie has)?"""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rpartition(")")[2].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return False


def _stdio_files(stdin_path, out_path, err_path):
    return (
        os.open(stdin_path, os.O_RDONLY),
        os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600),
        os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600),
    )


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
