"""A real two-node Ray cluster on this machine, for tests/engine/test_ray_executor.py and
benchmarks/bench_ray.py: a head and a second node started with the real ``ray start``,
each with its own temp dir, and stopped by killing their processes by PID (found by their
temp dirs, with all their descendants) -- ``ray stop --force`` would also stop any other
Ray running on the machine.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _processes() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of every process (Linux /proc)."""
    found = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{name}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            ppid = int(Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        found[int(name)] = (ppid, cmd)
    return found


def process_tree(marks: list[str]) -> dict[int, str]:
    """The processes whose command line names one of ``marks`` (a node's temp dir: its
    raylet, GCS, monitors) and all their descendants (agents, Ray workers, the local pools'
    workers), pid -> command line. Never this process."""
    procs = _processes()
    tree = {pid for pid, (_, cmd) in procs.items() if pid != os.getpid() and any(m in cmd for m in marks)}
    grown = True
    while grown:
        grown = False
        for pid, (ppid, _) in procs.items():
            if ppid in tree and pid not in tree:
                tree.add(pid)
                grown = True
    return {pid: procs[pid][1] for pid in tree}


def kill(pids) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _ray_cli() -> list[str]:
    script = Path(sys.executable).with_name("ray")
    return [str(script)] if script.exists() else [sys.executable, "-c", "from ray.scripts.scripts import main; main()"]


class LocalCluster:
    """``with LocalCluster() as c:`` a head (``c.head_dir``) and a second node
    (``c.node_dir``), one CPU each, this process connected as the driver (``c.address``)."""

    def __init__(self, cpus_per_node: int = 1):
        self.cpus = cpus_per_node
        # Short paths: Ray's socket paths (under the temp dir) must fit in 107 bytes.
        self.head_dir = tempfile.mkdtemp(prefix="va-ray-h-")
        self.node_dir = tempfile.mkdtemp(prefix="va-ray-n-")
        self.address = f"127.0.0.1:{free_port()}"

    def __enter__(self) -> LocalCluster:
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def _start(self) -> None:
        import ray

        from verifier_audit.engine import ray_executor

        path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
        # HOME: the cluster's own, so a token left in the user's ~/.ray/auth_token (by an
        # earlier `ray get-auth-token` or token-mode cluster) cannot turn authentication on
        # for one node and not the other (the second node's `ray start` then fails).
        env = {
            **os.environ,
            "PYTHONPATH": path,
            "RAY_USAGE_STATS_ENABLED": "0",
            "HOME": self.head_dir,
            # A killed node is declared dead within seconds, not the default half a minute.
            "RAY_health_check_initial_delay_ms": "500",
            "RAY_health_check_period_ms": "500",
            "RAY_health_check_timeout_ms": "1000",
            "RAY_health_check_failure_threshold": "3",
        }
        common = [
            "--num-cpus",
            str(self.cpus),
            "--object-store-memory",
            "80000000",
            "--disable-usage-stats",
            "--include-log-monitor=false",  # the driver reads no worker logs (log_to_driver off)
            "--dashboard-agent-listen-port",
            str(free_port()),
        ]
        port = self.address.rpartition(":")[2]
        # Both at once: the second node's `ray start` waits for the head's GCS to answer.
        starts = []
        for args in (
            ["--head", "--port", port, "--include-dashboard=false", "--temp-dir", self.head_dir],
            ["--address", self.address, "--temp-dir", self.node_dir],
        ):
            common[-1] = str(free_port())
            starts.append(
                (
                    args,
                    subprocess.Popen(
                        _ray_cli() + ["start", *args, *common],
                        env=env,
                        text=True,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT,
                    ),
                )
            )
            time.sleep(0.5)
        for args, proc in starts:
            try:
                out, _ = proc.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, _ = proc.communicate()
            if proc.returncode != 0:
                raise RuntimeError(f"ray start {' '.join(args)} failed:\n{out}")
        ray_executor.connect(self.address)
        deadline = time.monotonic() + 60
        while sum(n["Alive"] for n in ray.nodes()) < 2:
            if time.monotonic() > deadline:
                raise RuntimeError("the second Ray node did not join the head")
            time.sleep(0.2)
        ray_executor.start(self.address)  # as the CLI does: the nodes' Ray workers warm up meanwhile

    def kill_node(self) -> int:
        """SIGKILL the second node: its raylet and every process under it. Returns how many."""
        tree = process_tree([self.node_dir])
        kill(tree)
        return len(tree)

    def stop(self) -> None:
        try:
            import ray

            ray.shutdown()
        finally:
            marks = [self.head_dir, self.node_dir]
            for _ in range(3):  # what was starting while the others were killed, too
                tree = process_tree(marks)
                if not tree:
                    break
                kill(tree)
                time.sleep(0.3)
            shutil.rmtree(self.head_dir, ignore_errors=True)
            shutil.rmtree(self.node_dir, ignore_errors=True)
