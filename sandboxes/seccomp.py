"""A seccomp filter for the sandbox: the system calls no program needs that would let one job leave
data for the next (shipped as source text in the runner, `programs.py`; the runner installs it
before anything else, so the judge, the zygote and every candidate inherit it, exec'd or forked).

The kernel's key stores (`add_key`, `request_key`, `keyctl`) belong to a user id, not to a
process: a key one job adds to its user's keyring outlives every process of the job, so the next
job (and any other sandbox running as that user) reads it back. The clean-up between jobs removes
files, processes and SysV IPC; a key store it cannot see, so no program may use one. Docker's
default profile refuses them too; bubblewrap installs no filter of its own. System calls of
another ABI (x86's 32-bit `int 0x80`, x32) would reach the same stores under other numbers: refused.
A refused call fails with EPERM, as under Docker's profile, so a program sees an ordinary error.
"""

import ctypes
import platform
import struct

# (audit architecture, the numbers of add_key, request_key and keyctl) by machine
KEYRING_CALLS = {
    "x86_64": (0xC000003E, (248, 249, 250)),
    "aarch64": (0xC00000B7, (217, 218, 219)),
}
X32_BIT = 0x40000000  # x86_64's x32 ABI: the same numbers with this bit set
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
ALLOW, DENY = 0x7FFF0000, 0x00050000 | 1  # SECCOMP_RET_ALLOW; SECCOMP_RET_ERRNO with EPERM
LD_ABS, JEQ, JGE, RET = 0x20, 0x15, 0x35, 0x06  # BPF_LD|W|ABS, BPF_JMP|JEQ|K, BPF_JMP|JGE|K, BPF_RET|K


def keyring_filter(machine):
    """The BPF program, as (code, jump if true, jump if false, k) rows: another ABI's call and a
    key-store call are refused, everything else allowed. None for a machine we have no numbers for."""
    if machine not in KEYRING_CALLS:
        return None
    arch, calls = KEYRING_CALLS[machine]
    checks = [(JGE, X32_BIT)] + [(JEQ, nr) for nr in calls]  # after loading the number: each jumps to DENY
    deny = 3 + len(checks) + 1  # the last row; a jump counts the rows after its own
    rows = [(LD_ABS, 0, 0, 4), (JEQ, 0, deny - 2, arch), (LD_ABS, 0, 0, 0)]
    rows += [(code, deny - (3 + i) - 1, 0, k) for i, (code, k) in enumerate(checks)]
    return rows + [(RET, 0, 0, ALLOW), (RET, 0, 0, DENY)]


def deny_key_stores():
    """Install the filter in this process (inherited by every child, for good). Returns False where
    this machine has no numbers in `KEYRING_CALLS`; raises OSError where the kernel refuses it."""
    rows = keyring_filter(platform.machine())
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
