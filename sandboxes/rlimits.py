"""The program's resource limits, set in its own process just before it runs the model's code
(shipped into the sandbox as source text in both programs; see `programs.py`): by the judge's
fork before `exec`, or by a zygote's fork (`zygote.py`)."""

import resource
import signal


def set_limits(limits):
    """`limits`: memory_mb, process_cpu_seconds (each process's RLIMIT_CPU, the backstop behind the
    per-test CPU clock), max_file_bytes, max_open_files, max_processes (None: no RLIMIT_NPROC)."""
    mb = limits["memory_mb"] * 1024 * 1024
    cpu = max(1, int(limits["process_cpu_seconds"] + 0.999))
    settings = [
        ("RLIMIT_CPU", (cpu, cpu + 1)),
        ("RLIMIT_AS", (mb, mb)),
        ("RLIMIT_FSIZE", (limits["max_file_bytes"],) * 2),
        ("RLIMIT_NOFILE", (limits["max_open_files"],) * 2),
        ("RLIMIT_CORE", (0, 0)),
        ("RLIMIT_MSGQUEUE", (0, 0)),  # no POSIX message queue: it would outlive the job, unlisted
    ]
    if limits["max_processes"] is not None:  # None: the sandbox's own pids limit binds (runner.py)
        settings.append(("RLIMIT_NPROC", (limits["max_processes"],) * 2))
    for name, value in settings:
        try:
            resource.setrlimit(getattr(resource, name), value)
        except (ValueError, OSError):
            pass
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # over-long writes fail with EFBIG, not a kill


def program_limits(job):
    """The limits a job sets on each of its program's processes, as plain data."""
    return {
        "memory_mb": job["memory_mb"],
        "process_cpu_seconds": job["process_cpu_seconds"],
        "max_file_bytes": job["max_file_bytes"],
        "max_open_files": job["max_open_files"],
        "max_processes": job["max_processes"],
    }
