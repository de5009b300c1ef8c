"""Run untrusted Python in a separate, limited process and get its result back as data.

Modules, one job each: ``codec`` (what crosses the boundary), ``isolation`` (rlimits, uid
drop, namespaces and the read-only file-system view), ``walls`` (tripwires on the walls:
the scratch directories and the loopback listener, swept after each run), ``server`` (the
zygote: one fork per run, tree kill), ``pool`` (the parent side: ``Sandbox``). docs/code-sandbox.md has the
picture and the table of what each level blocks.
"""

from __future__ import annotations

from .codec import decode_value, encode_value
from .pool import LEVELS, WARM_MODULES, Sandbox, SandboxResult, available_levels, default_level, run_python

__all__ = ["LEVELS", "WARM_MODULES", "Sandbox", "SandboxResult", "available_levels", "default_level",
           "decode_value", "encode_value", "levels", "run_python"]


def levels() -> list[dict]:
    """What each level blocks, and the test in tests/test_code_sandbox.py that shows it.
    Levels are cumulative: a row blocked at ``process`` is blocked at the levels above."""
    rows = [
        ("process", "reading expected outputs", "own process; result serialised, compared in the parent", "test_expected_values_never_reach_child"),
        ("process", "sys.exit(0) / os._exit(0) before returning", "no result message = crash, never a pass", "test_exit_before_return_is_not_ok"),
        ("process", "objects that fake equality (__eq__ always True)", "only exact builtin types serialise", "test_fake_eq_object_is_rejected"),
        ("process", "infinite loop", "wall-clock timeout, SIGKILL", "test_infinite_loop_times_out"),
        ("process", "inherited file descriptors", "all fds closed except stdio and the result pipe", "test_inherited_fds_closed"),
        ("process", "secrets in environment variables", "environment replaced by a minimal one", "test_environment_scrubbed"),
        ("process", "leftover files in the working directory", "private temporary cwd, removed after the run", "test_private_workdir_removed"),
        ("process", "a grandchild that calls setsid()", "the zygote is a child subreaper and kills all its descendants", "test_setsid_grandchild_killed[process]"),
        ("rlimits", "memory bomb", "RLIMIT_AS", "test_memory_bomb"),
        ("rlimits", "CPU burn in C code", "RLIMIT_CPU (SIGXCPU, then SIGKILL)", "test_cpu_limit"),
        ("rlimits", "huge file", "RLIMIT_FSIZE (EFBIG)", "test_big_file_fsize"),
        ("rlimits", "fd exhaustion", "RLIMIT_NOFILE", "test_nofile_limit"),
        ("rlimits", "fork bomb", "RLIMIT_NPROC, binding because each zygote's runs use their own unprivileged uid", "test_fork_bomb_contained"),
        ("rlimits", "reading the parent's private files", "uid/gid dropped to an unprivileged uid, no supplementary groups", "test_cannot_read_parent_private_file"),
        ("namespaces", "a grandchild that calls setsid()", "the zygote is PID 1 of its PID namespace: kill(-1) after every run", "test_setsid_grandchild_killed[namespaces]"),
        ("namespaces", "network (loopback included)", "new network namespace: only its own loopback is up, where the zygote listens as a tripwire (walls.py)", "test_network_blocked_namespaces"),
        ("namespaces", "writes outside the workdir reaching the host (/tmp, /var/tmp, /dev/shm, the home, the project)", "mount namespace: every mount remounted read-only; /tmp, /var/tmp and /dev/shm are a private scratch tmpfs, swept for escape markers and wiped after each run", "test_writes_outside_workdir_blocked"),
        ("namespaces", "reading the home directory that holds the interpreter", "an empty tmpfs over it, only the interpreter's paths bound back", "test_private_home_hidden"),
    ]
    return [dict(level=lv, blocks=b, mechanism=m, test=t) for lv, b, m, t in rows]
