"""A seccomp filter for the sandbox: the system calls by which one job could reach the next (shipped
as source text in the runner, `programs.py`; the runner installs it before anything else, so the
judge, the zygote and every candidate inherit it, exec'd or forked, for good).

Two kinds, each refused with EPERM (an ordinary error to the program, as Docker's profile gives):
- **stores that outlive every process of a job**: the kernel's key stores (`add_key`,
  `request_key`, `keyctl`) belong to a user id; a key one job adds, the next job (and any sandbox
  of that user) reads back. The clean-up between jobs removes files, processes and SysV IPC, not
  keys. Docker's default profile refuses these calls; bubblewrap installs no filter of its own.
- **settings of another process** that the kernel lets a process change for any process of its
  user, without the ptrace check that keeps a candidate out of the runner's and zygote's memory:
  resource limits (`prlimit64`), priority (`setpriority`, `ioprio_set`), CPU affinity and scheduling
  policy (`sched_setaffinity`, `sched_setscheduler`, `sched_setparam`, `sched_setattr`). Set on the
  zygote or the runner they pass to every later program of the warm sandbox (a 60 MB address-space
  hard limit failed every later honest program); these calls may name only the calling process itself
  (pid 0).
- **new namespaces** (`unshare`, `setns`, `clone` with a `CLONE_NEW*` flag): a nested user namespace
  gives a job capabilities of its own (mounts over /proc, its own view of the sandbox); Docker's
  profile refuses them, bubblewrap does not. `clone3`, whose flags sit in memory a filter cannot read,
  answers ENOSYS, so the C library falls back to `clone` (as under Docker's profile).
System calls of another ABI (x86's 32-bit `int 0x80`, x32) would reach the same calls under other
numbers: refused.

A second filter, `job_filter`, goes on every process that runs a job's code (the judge, which runs
the task's setup, and through it every candidate): signals may not reach the processes that serve
later jobs (the runner, its process group, the zygote, the namespace's init, or everyone at once with
pid -1), and no pidfd of them can be opened. The runner stays free to signal what it must.
"""

import ctypes
import platform
import struct

# by machine: (audit architecture, {name: number})
SYSCALLS = {
    "x86_64": (
        0xC000003E,
        {
            "add_key": 248,
            "request_key": 249,
            "keyctl": 250,
            "prlimit64": 302,
            "setpriority": 141,
            "ioprio_set": 251,
            "sched_setaffinity": 203,
            "sched_setscheduler": 144,
            "sched_setparam": 142,
            "sched_setattr": 314,
            "unshare": 272,
            "setns": 308,
            "clone": 56,
            "clone3": 435,
            "kill": 62,
            "tkill": 200,
            "tgkill": 234,
            "rt_sigqueueinfo": 129,
            "rt_tgsigqueueinfo": 297,
            "pidfd_open": 434,
        },
    ),
    "aarch64": (
        0xC00000B7,
        {
            "add_key": 217,
            "request_key": 218,
            "keyctl": 219,
            "prlimit64": 261,
            "setpriority": 140,
            "ioprio_set": 30,
            "sched_setaffinity": 122,
            "sched_setscheduler": 119,
            "sched_setparam": 118,
            "sched_setattr": 274,
            "unshare": 97,
            "setns": 268,
            "clone": 220,
            "clone3": 435,
            "kill": 129,
            "tkill": 130,
            "tgkill": 131,
            "rt_sigqueueinfo": 138,
            "rt_tgsigqueueinfo": 240,
            "pidfd_open": 434,
        },
    ),
}
DENIED = ("add_key", "request_key", "keyctl", "unshare", "setns")
NO_SUCH_CALL = ("clone3",)  # ENOSYS: the C library falls back to clone, whose flags we can read
CLONE_NAMESPACES = 0x7E020000  # CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET
# calls that name a process in their first argument, refused by `job_filter` for protected targets
SIGNAL_CALLS = ("kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open")
# allowed only with these (argument index, value) pairs: the calling process itself
SELF_ONLY = {
    "prlimit64": ((0, 0),),  # pid 0
    "setpriority": ((0, 0), (1, 0)),  # PRIO_PROCESS, who 0 (never PRIO_PGRP or PRIO_USER: the whole user)
    "ioprio_set": ((0, 1), (1, 0)),  # IOPRIO_WHO_PROCESS, who 0
    "sched_setaffinity": ((0, 0),),
    "sched_setscheduler": ((0, 0),),
    "sched_setparam": ((0, 0),),
    "sched_setattr": ((0, 0),),
}
X32_BIT = 0x40000000  # x86_64's x32 ABI: the same numbers with this bit set
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
ALLOW, DENY, ENOSYS = 0x7FFF0000, 0x00050000 | 1, 0x00050000 | 38  # SECCOMP_RET_ALLOW; RET_ERRNO EPERM, ENOSYS
LD_ABS, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06  # BPF_LD|W|ABS, BPF_JMP|JEQ/JGE/JSET|K, BPF_RET|K
ARCH_AT, NR_AT = 4, 0  # offsets in struct seccomp_data


def arg_at(index):
    """Where argument `index`'s low 32 bits are (little-endian): all the kernel reads of a pid or an int."""
    return 16 + 8 * index


def sandbox_filter(machine):
    """The BPF program as (code, jump if true, jump if false, k) rows; None for a machine we have no
    numbers for. Jumps count the rows after their own (classic BPF jumps forward only)."""
    if machine not in SYSCALLS:
        return None
    arch, numbers = SYSCALLS[machine]
    rows = [(LD_ABS, 0, 0, ARCH_AT), (JEQ, 0, "deny", arch), (LD_ABS, 0, 0, NR_AT), (JGE, "deny", 0, X32_BIT)]
    rows += [(JEQ, "deny", 0, numbers[name]) for name in DENIED]
    rows += [(JEQ, "nosys", 0, numbers[name]) for name in NO_SUCH_CALL]
    rows.append((JEQ, "clone", 0, numbers["clone"]))
    rows += [(JEQ, name, 0, numbers[name]) for name in SELF_ONLY]
    rows.append((RET, 0, 0, ALLOW))
    labels = {"clone": len(rows)}
    rows += [(LD_ABS, 0, 0, arg_at(0)), (JSET, "deny", 0, CLONE_NAMESPACES), (RET, 0, 0, ALLOW)]
    for name, conditions in SELF_ONLY.items():
        labels[name] = len(rows)
        for index, value in conditions:
            rows += [(LD_ABS, 0, 0, arg_at(index)), (JEQ, 0, "deny", value)]
        rows.append((RET, 0, 0, ALLOW))
    return _resolved(rows, labels)


def job_filter(machine, protected):
    """The filter for processes that run a job's code: the calls of `SIGNAL_CALLS` may not name any
    pid of `protected` (nor its negation, a process group), pid 1, or -1 (every process we may
    signal). None for a machine we have no numbers for."""
    if machine not in SYSCALLS:
        return None
    arch, numbers = SYSCALLS[machine]
    targets = sorted({1, *protected})
    refused = sorted({0xFFFFFFFF, *targets, *((-pid) & 0xFFFFFFFF for pid in targets)})
    rows = [(LD_ABS, 0, 0, ARCH_AT), (JEQ, 0, "deny", arch), (LD_ABS, 0, 0, NR_AT)]
    rows += [(JEQ, "signal", 0, numbers[name]) for name in SIGNAL_CALLS]
    rows.append((RET, 0, 0, ALLOW))
    labels = {"signal": len(rows)}
    rows.append((LD_ABS, 0, 0, arg_at(0)))
    rows += [(JEQ, "deny", 0, value) for value in refused]
    rows.append((RET, 0, 0, ALLOW))
    return _resolved(rows, labels)


def _resolved(rows, labels):
    """Rows with their named jump targets ("deny", "nosys", labels) turned into forward offsets."""
    labels = {**labels, "deny": len(rows), "nosys": len(rows) + 1}
    rows = rows + [(RET, 0, 0, DENY), (RET, 0, 0, ENOSYS)]

    def offset(target, row):
        return labels[target] - row - 1 if isinstance(target, str) else target

    return [(code, offset(jt, i), offset(jf, i), k) for i, (code, jt, jf, k) in enumerate(rows)]


def install_sandbox_filter():
    """Install the sandbox's filter in this process (inherited by every child, for good). Returns
    False where this machine has no numbers in `SYSCALLS`; raises OSError where the kernel refuses it."""
    return install_filter(sandbox_filter(platform.machine()))


def install_job_filter(protected):
    """Install `job_filter` for `protected` pids in this process, before any job code runs."""
    return install_filter(job_filter(platform.machine(), protected))


def install_filter(rows):
    """Install one BPF program (rows of `sandbox_filter`'s shape); False for None."""
    if rows is None:
        return False
    program = b"".join(struct.pack("=HBBI", *row) for row in rows)
    buffer = ctypes.create_string_buffer(program, len(program))

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    libc = ctypes.CDLL(None, use_errno=True)
    prog = Program(len(rows), ctypes.cast(buffer, ctypes.c_void_p))
    for args in ((PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0)):
        if libc.prctl(*args) != 0:
            raise OSError(ctypes.get_errno(), f"prctl{args[:2]} failed: the sandbox's seccomp filter")
    return True
