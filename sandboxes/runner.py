"""The runner that executes inside the sandbox. Standard library only; run as `python3 -I -S runner.py`.

Protocol: stdin holds the job's length in bytes and a newline, the job (JSON), then the nonce and
a newline; stdin is read unbuffered, so nothing beyond the job is in memory when the zygote forks. Each result goes to stdout as one line
`EVALKIT-<nonce> <json>`. Why it cannot be fooled by the code it runs:
- the runner itself never runs solution code: a "zygote" forked BEFORE the nonce is read forks
  one child per test, so no process that runs solution code ever held the nonce;
- each child writes only its own value (plain, type-tagged data) to its own pipe; the expected
  outputs never enter the sandbox, they are compared outside. A value of an unusual type (an
  object whose __eq__ always says True) cannot be encoded and counts as wrong;
- a child that exits early (exit(0), os._exit(0)) has written no value: that test fails;
- children get their own session and process group, CPU/memory/file/process limits, stdout and
  stderr redirected to files, and are killed (with their group) at the per-test wall clock.
"""
import json
import math
import os
import resource
import select
import signal
import sys
import time
import types

MAX_VALUE_BYTES = 1 << 20


class Unencodable(Exception):
    pass


def encode(value, depth=0):
    """Plain data only, by exact type: subclasses (and anything with a custom __eq__) are refused."""
    if depth > 100:
        raise Unencodable("nested too deeply")
    kind = type(value)
    if value is None or kind is bool or kind is str:
        return value
    if kind is int:
        return value if abs(value) < 2 ** 53 else {"int": str(value)}
    if kind is float:
        return value if math.isfinite(value) else {"float": repr(value)}
    if kind is list or kind is tuple:
        return {kind.__name__: [encode(v, depth + 1) for v in value]}
    if kind is dict:
        return {"dict": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]}
    if kind is set or kind is frozenset:
        return {"set": [encode(v, depth + 1) for v in value]}
    raise Unencodable(f"a {kind.__name__} is not plain data")


def set_limits(job):
    mb = job["memory_mb"] * 1024 * 1024
    cpu = math.ceil(job["cpu_seconds"])
    try:  # SIGXCPU at the soft limit (a timeout), SIGKILL one second later if it is ignored
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    except (ValueError, OSError):
        pass
    for name, value in (("RLIMIT_AS", mb), ("RLIMIT_FSIZE", job["max_file_bytes"]),
                        ("RLIMIT_NOFILE", job["max_open_files"]), ("RLIMIT_NPROC", job["max_processes"]),
                        ("RLIMIT_CORE", 0)):
        try:
            resource.setrlimit(getattr(resource, name), (value, value))
        except (ValueError, OSError):
            pass


def run_test(job, index, test, result_fd):
    """In the child: load the solution, run one test, write one JSON record to result_fd."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # over-long writes fail with EFBIG instead of killing
    namespace = {"__name__": "__main__" if test["kind"] == "stdio" else "solution", "__builtins__": __builtins__}
    module = types.ModuleType("solution")
    module.__dict__.update(namespace)
    sys.modules["solution"] = module
    namespace = module.__dict__
    record = {"i": index, "status": "ok"}
    try:
        exec(compile(job["setup"] + "\n" + job["code"], "solution.py", "exec"), namespace)
        if job.get("entry_point") and test["kind"] in ("call", "exec"):
            namespace["candidate"] = eval(job["entry_point"], namespace)
        if test["kind"] == "call":
            record["value"] = encode(eval(compile(test["expr"], "test", "eval"), namespace))
        elif test["kind"] == "exec":
            exec(compile(test["code"], "test", "exec"), namespace)
    except MemoryError:
        record = {"i": index, "status": "memory"}
    except Unencodable as exc:
        record = {"i": index, "status": "unencodable", "error": str(exc)}
    except SystemExit as exc:
        record = {"i": index, "status": "exit", "error": f"SystemExit({exc.code!r})"}
    except BaseException as exc:  # the model's bug: report it, never crash the runner
        record = {"i": index, "status": "exception", "error": f"{type(exc).__name__}: {str(exc)[:300]}"}
    try:
        sys.stdout.flush()
    except BaseException:
        pass
    data = json.dumps(record).encode()[:MAX_VALUE_BYTES]
    try:
        os.write(result_fd, data)
    except OSError:
        pass
    os._exit(0)


def child(job, index, test, result_fd, work):
    os.setsid()
    stdin = os.open(os.path.join(work, f"in{index}"), os.O_RDONLY) if test["kind"] == "stdio" else os.open(os.devnull, os.O_RDONLY)
    out = os.open(os.path.join(work, f"out{index}"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    err = os.open(os.path.join(work, f"err{index}"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    for fd, target in ((stdin, 0), (out, 1), (err, 2)):
        os.dup2(fd, target)
    for fd in range(3, 256):
        if fd != result_fd:
            try:
                os.close(fd)
            except OSError:
                pass
    set_limits(job)
    try:
        run_test(job, index, test, result_fd)
    finally:
        os._exit(1)


def supervise(job, index, test, work):
    """In the zygote: run one test in a child, bounded by the wall clock; return its record."""
    if test["kind"] == "stdio":
        with open(os.path.join(work, f"in{index}"), "w") as fh:
            fh.write(test["stdin"])
    read_fd, write_fd = os.pipe()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        child(job, index, test, write_fd, work)
    os.close(write_fd)
    deadline = start + job["test_wall_seconds"]
    chunks, status, timed_out, cpu_used = [], None, False, 0.0
    while status is None:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            break
        ready, _, _ = select.select([read_fd], [], [], min(left, 0.05))
        if ready:
            piece = os.read(read_fd, 65536)
            if piece and sum(map(len, chunks)) < MAX_VALUE_BYTES:
                chunks.append(piece)
        done, status_code, usage = os.wait4(pid, os.WNOHANG)
        if done:
            status, cpu_used = status_code, usage.ru_utime + usage.ru_stime
    for sig_target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            sig_target()
        except OSError:
            pass
    if status is None:
        _, status = os.waitpid(pid, 0)
    while True:
        ready, _, _ = select.select([read_fd], [], [], 0)
        if not ready:
            break
        piece = os.read(read_fd, 65536)
        if not piece:
            break
        chunks.append(piece)
    os.close(read_fd)
    elapsed = time.monotonic() - start
    try:
        record = json.loads(b"".join(chunks)) if chunks else None
    except ValueError:
        record = None
    if timed_out:
        record = {"i": index, "status": "timeout"}
    elif record is None:
        signum = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        if signum == signal.SIGXCPU or (signum == signal.SIGKILL and cpu_used >= job["cpu_seconds"]):
            record = {"i": index, "status": "timeout"}
        elif signum == signal.SIGKILL:
            record = {"i": index, "status": "killed"}
        else:
            code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
            record = {"i": index, "status": "no_result", "error": f"exited with code {code}" if signum is None else f"signal {signum}"}
    record["i"] = index
    record["seconds"] = round(elapsed, 4)
    out_path = os.path.join(work, f"out{index}")
    try:
        size = os.path.getsize(out_path)
        with open(out_path, "rb") as fh:
            record["stdout"] = fh.read(job["max_output_bytes"]).decode("utf-8", "replace")
        if size >= job["max_output_bytes"]:
            record["status"] = "output_limit"
    except OSError:
        record["stdout"] = ""
    for name in (f"in{index}", f"out{index}", f"err{index}"):
        try:
            os.unlink(os.path.join(work, name))
        except OSError:
            pass
    return record


def zygote(job, go_fd, report_fd, work):
    """Never sees the nonce. Waits for the go signal, then runs each test and reports a JSON line."""
    os.read(go_fd, 1)
    os.close(go_fd)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    for index, test in enumerate(job["tests"]):
        # "started" first: if the runner is killed while this test runs, the test is to blame
        os.write(report_fd, json.dumps({"started": index}).encode() + b"\n")
        line = json.dumps(supervise(job, index, test, work)).encode() + b"\n"
        os.write(report_fd, line)
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


def main():
    job = json.loads(read_exactly(0, int(read_line(0))))
    work = job.get("work") or os.getcwd()
    os.makedirs(work, exist_ok=True)
    go_read, go_write = os.pipe()
    report_read, report_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(go_write)
        os.close(report_read)
        zygote(job, go_read, report_write, work)
    os.close(go_read)
    os.close(report_write)
    nonce = read_line(0)  # read only now: the zygote was forked without it
    os.close(0)
    os.write(go_write, b"x")
    os.close(go_write)
    out = sys.stdout
    with os.fdopen(report_read, "rb") as reports:
        for line in reports:
            out.write(f"EVALKIT-{nonce} {line.decode().strip()}\n")
            out.flush()
    os.waitpid(pid, 0)
    out.write(f"EVALKIT-{nonce} " + json.dumps({"done": True}) + "\n")
    out.flush()


if __name__ == "__main__":
    main()
