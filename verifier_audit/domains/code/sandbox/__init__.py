"""Run untrusted Python in a separate, limited process and get its result back as data.

Modules, one job each: ``codec`` (what crosses the boundary), ``server`` (the zygote: one
fork per run, tree kill), ``pool`` (the parent side: ``Sandbox``). The walls they apply --
rlimits, the uid drop, namespaces and the read-only file-system view, the memory bound of a
run's whole process tree, seccomp, the host's socket files covered, the tripwires swept
after each run, and the table of levels -- are ``verifier_audit.isolation``'s, shared with
the engine's workers. docs/code-sandbox.md has the picture and the table of what each
level blocks.
"""

from __future__ import annotations

from .codec import TAMPERED, decode_value, encode_value
from .pool import LEVELS, WARM_MODULES, Sandbox, SandboxResult, available_levels, default_level, run_python

__all__ = [
    "LEVELS",
    "WARM_MODULES",
    "Sandbox",
    "SandboxResult",
    "TAMPERED",
    "available_levels",
    "default_level",
    "decode_value",
    "encode_value",
    "levels",
    "run_python",
]


def levels() -> list[dict]:
    """What each level blocks, and the test (in tests/domains/code/test_code_sandbox.py or
    tests/security/test_sandbox_escapes.py) that shows it. Levels are cumulative: a row blocked at
    ``process`` is blocked at the levels above."""
    rows = [
        (
            "process",
            "reading expected outputs",
            "own process; result serialised, compared in the parent",
            "test_expected_values_never_reach_child",
        ),
        (
            "process",
            "sys.exit(0) / os._exit(0) before returning",
            "no result message = crash, never a pass",
            "test_exit_before_return_is_not_ok",
        ),
        (
            "process",
            "objects that fake equality (__eq__ always True)",
            "only exact builtin types serialise",
            "test_fake_eq_object_is_rejected",
        ),
        ("process", "infinite loop", "wall-clock timeout, SIGKILL", "test_infinite_loop_times_out"),
        (
            "process",
            "inherited file descriptors",
            "all fds closed except stdio and the result pipe",
            "test_inherited_fds_closed",
        ),
        (
            "process",
            "secrets in environment variables",
            "environment replaced by a minimal one",
            "test_environment_scrubbed",
        ),
        (
            "process",
            "leftover files in the working directory",
            "private temporary cwd, removed after the run",
            "test_private_workdir_removed",
        ),
        (
            "process",
            "a grandchild that calls setsid()",
            "the zygote is a child subreaper and kills all its descendants",
            "test_setsid_grandchild_killed[process]",
        ),
        (
            "process",
            "a result line written by the run itself, then an abnormal end (non-zero exit, a signal, a hang)",
            "result lines count only when the run's process ends with status 0, the harness's own exit after its last line; an abnormal end voids a batch's last answer",
            "test_a_result_line_then_an_abnormal_end_is_not_ok",
        ),
        ("rlimits", "memory bomb", "RLIMIT_AS", "test_memory_bomb"),
        ("rlimits", "CPU burn in C code", "RLIMIT_CPU (SIGXCPU, then SIGKILL)", "test_cpu_limit"),
        ("rlimits", "huge file", "RLIMIT_FSIZE (EFBIG)", "test_big_file_fsize"),
        ("rlimits", "fd exhaustion", "RLIMIT_NOFILE", "test_nofile_limit"),
        (
            "rlimits",
            "fork bomb",
            "RLIMIT_NPROC, binding because each zygote's runs use their own unprivileged uid",
            "test_fork_bomb_contained",
        ),
        (
            "rlimits",
            "reading the parent's private files",
            "uid/gid dropped to an unprivileged uid, no supplementary groups",
            "test_cannot_read_parent_private_file",
        ),
        (
            "rlimits",
            "memory held across a process tree (forked children, each under its own RLIMIT_AS)",
            "a memory cgroup per zygote (v2, else v1) where one can be made, else a watcher summing the tree's memory every 10 ms; over the limit the tree is killed, kind memory; SandboxResult.memory_guard says which",
            "test_memory_limit_covers_the_process_tree",
        ),
        (
            "rlimits",
            "kernel keys that outlive the run (add_key, request_key, keyctl)",
            "seccomp filter (x86_64, aarch64): the keyring calls and other ABIs fail with EPERM; no_new_privs",
            "test_kernel_keys_cannot_be_added",
        ),
        (
            "namespaces",
            "a grandchild that calls setsid()",
            "the zygote is PID 1 of its PID namespace: kill(-1) after every run",
            "test_setsid_grandchild_killed[namespaces]",
        ),
        (
            "namespaces",
            "network (loopback included)",
            "new network namespace: only its own loopback is up, where the zygote listens as a tripwire (isolation/_walls.py)",
            "test_network_blocked_namespaces",
        ),
        (
            "namespaces",
            "writes outside the workdir reaching the host (/tmp, /var/tmp, /dev/shm, the home, the project)",
            "mount namespace: every mount remounted read-only; /tmp, /var/tmp and /dev/shm are a private scratch tmpfs, swept for escape markers and wiped after each run",
            "test_writes_outside_workdir_blocked",
        ),
        (
            "namespaces",
            "reading the home directory that holds the interpreter",
            "an empty tmpfs over it, only the interpreter's paths bound back",
            "test_private_home_hidden",
        ),
        (
            "namespaces",
            "SysV shared memory, message queues, semaphores and POSIX message queues that outlive the run",
            "a new IPC namespace per run: they die with its tree",
            "test_ipc_objects_die_with_the_run",
        ),
        (
            "namespaces",
            "the host's Unix socket files (connect() ignores the network namespace and read-only mounts)",
            "an empty tmpfs over /run; every other socket the host has bound covered by a bind mount of a tripwire socket, at start and before each run (isolation/_unixsockets.py)",
            "test_host_unix_socket_files_unreachable",
        ),
    ]
    return [dict(level=lv, blocks=b, mechanism=m, test=t) for lv, b, m, t in rows]
