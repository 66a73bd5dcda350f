"""The command's own worker pool is spawn-safe and stops cleanly on Ctrl-C.

With 64 files or more and ``-j 2`` the command checks files in a ``ProcessPoolExecutor``.  Run with the spawn
start method emulated (as on Windows and macOS) and with forkserver (Linux, Python >= 3.14), it must print
exactly what the serial run prints.  Ctrl-C sent to the whole process group (as a terminal does) ends it within
seconds, with status 130, the one line ``winspawn-lint: interrupted``, and no process left behind.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from winspawn_lint.cli import PARALLEL_THRESHOLD
from winspawn_lint.runtime.emulation import child_environment

pytestmark = pytest.mark.slow  # a few hundred files checked five times over, in spawned workers

FIXTURES = Path(__file__).resolve().parent / "fixtures"
COMMAND = [sys.executable, "-m", "winspawn_lint", "--isolated", "--extend-select", "WSP105,WSP901"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """Every fixture three times over (> 200 files, with findings of every rule), plus files that cannot be read."""
    root = tmp_path_factory.mktemp("corpus")
    for copy in range(3):
        shutil.copytree(FIXTURES, root / f"copy{copy}", ignore=shutil.ignore_patterns("__pycache__"))
    # (a walk parses only the files that mention a worker API: this one does)
    (root / "syntax_error.py").write_bytes(b"from multiprocessing import Pool\ndef f(:\n")
    (root / "nul.py").write_bytes(b"\0")
    (root / "latin1.py").write_bytes(b"x = '\xe9'\n")
    assert sum(1 for _ in root.rglob("*.py")) >= max(100, PARALLEL_THRESHOLD)
    return root


@pytest.fixture(scope="module")
def serial(corpus):
    return run([*COMMAND, "-j", "1", "."], corpus)


def run(command: list[str], cwd: Path, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


def test_serial_run_has_findings_and_errors(serial):
    assert serial.returncode == 2
    assert len(serial.stdout.splitlines()) > 100
    assert sorted(line.split(":")[0] for line in serial.stderr.splitlines()) == ["latin1.py", "nul.py",
                                                                                 "syntax_error.py"]


@pytest.mark.parametrize("method", ["spawn", "forkserver", "fork"])
def test_parallel_run_prints_what_the_serial_run_prints(corpus, serial, method):
    """`python -m winspawn_lint.spawnrun [--start-method M] -m winspawn_lint -j 2 .` == `winspawn-lint -j 1 .`"""
    proc = run([sys.executable, "-m", "winspawn_lint.spawnrun", "--start-method", method, "-m", *COMMAND[2:],
                "-j", "2", "."], corpus)
    assert "Traceback" not in proc.stderr
    assert (proc.returncode, proc.stdout, proc.stderr) == (serial.returncode, serial.stdout, serial.stderr)


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_the_emulation_reaches_the_pool(method):
    """The start method the parallel test above runs under is the one the executor actually uses."""
    code = ("from concurrent.futures import ProcessPoolExecutor; "
            "print(ProcessPoolExecutor(2)._mp_context.get_start_method())")
    proc = run([sys.executable, "-c", code], Path.cwd(), env=child_environment(method))
    assert proc.stdout.strip() == method


def test_parallel_diff_matches_serial(corpus):
    """The fixer runs in the workers too (libcst imported there): same diff, same notes."""
    serial_diff = run([*COMMAND, "--diff", "--unsafe-fixes", "-j", "1", "copy0", "copy1"], corpus)
    proc = run([*COMMAND, "--diff", "--unsafe-fixes", "-j", "2", "copy0", "copy1"], corpus,
               env=child_environment("spawn"))
    assert serial_diff.stdout.count("+++ ") > 10
    assert (proc.returncode, proc.stdout, proc.stderr) == (serial_diff.returncode, serial_diff.stdout,
                                                           serial_diff.stderr)


def _session(sid: int) -> list[tuple[int, str, str]]:
    """(pid, state, command line) of every process of session *sid* (Linux /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                cmdline = handle.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if int(fields[3]) == sid:  # fields after "(comm)": state ppid pgrp session ...
            found.append((int(entry), fields[0], cmdline))
    return found


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="inspects processes through Linux /proc")
@pytest.mark.parametrize("method", ["spawn", "forkserver", "fork"])
def test_ctrl_c_stops_promptly_without_noise_or_orphans(tmp_path, method):
    for copy in range(8):  # enough work to be interrupted in the middle of it
        shutil.copytree(FIXTURES, tmp_path / f"copy{copy}", ignore=shutil.ignore_patterns("__pycache__"))
    env = child_environment(method)
    # Python's own SIGINT handling, whatever this process inherited (one started in the background by a
    # non-interactive shell has SIGINT ignored, and so would the command).
    proc = subprocess.Popen([*COMMAND, "--diff", "-j", "2", "."], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        # Interrupt once both workers run (they are the command's children running Python).
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None:
            workers = [p for p in _session(proc.pid) if p[0] != proc.pid and p[1] != "Z"]
            if len(workers) >= 2:
                break
            time.sleep(0.05)
        time.sleep(1.0)  # let them get into the work
        assert proc.poll() is None, "the run ended before it could be interrupted"
        sent = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        elapsed = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    # No traceback: the fixer's notes on the files done before the signal, then one line.
    *notes, last = err.splitlines()
    assert last == "winspawn-lint: interrupted" and all(": note: " in note for note in notes), err
    assert elapsed < 5, f"took {elapsed:.1f} s to stop"
    # multiprocessing's helpers (resource tracker, forkserver) exit when their pipe from the command closes;
    # the workers were terminated and joined.  Exited processes (state Z, waiting to be reaped) do not count.
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        alive = [p for p in _session(proc.pid) if p[1] != "Z"]
        if not alive:
            break
        time.sleep(0.1)
    assert alive == [], alive


def test_a_result_cut_off_by_ctrl_c_does_not_keep_the_command_alive():
    """Ctrl-C can terminate a worker half-way through sending its results.  The pool's manager thread then
    waits for the rest of that message, and the interpreter waits for the thread at exit: the command hung
    after printing "interrupted" (CI, once in a few hundred runs under load).  Here the cut-off message is
    written into the pipe directly, so the hang, if it comes back, comes back every time."""
    script = """if True:
        import os, struct, time
        from concurrent.futures import ProcessPoolExecutor
        from winspawn_lint.cli import _abandon

        if __name__ == "__main__":
            executor = ProcessPoolExecutor(max_workers=1)
            executor.submit(time.sleep, 60)
            processes = dict(executor._processes)
            manager = executor._executor_manager_thread
            # a length, then fewer bytes than it announces: what a worker killed in the middle of a send leaves
            os.write(executor._result_queue._writer.fileno(), struct.pack("!i", 1000) + b"half")
            time.sleep(0.5)  # the manager thread is now reading the rest
            _abandon(executor, processes)
            assert not manager.is_alive() and not any(p.is_alive() for p in processes.values())
    """
    proc = subprocess.run([sys.executable, "-c", script], env=child_environment("spawn"), capture_output=True,
                          text=True, timeout=60)
    assert (proc.returncode, proc.stderr) == (0, "")


def test_ctrl_c_leaves_no_thread_traceback_from_the_futures_it_cancelled():
    """On the way out of Ctrl-C, ``map`` cancels the futures not yet started; terminating the workers then makes
    the pool's manager thread fail every pending one, and on CPython < 3.12 failing a cancelled future raised
    in that thread ("Exception in thread ... InvalidStateError: CANCELLED" after "interrupted"; CI, now and
    then).  Here the futures are cancelled before the manager thread could drop them, so the traceback, if it
    comes back, comes back every time."""
    script = """if True:
        import time
        from concurrent.futures import ProcessPoolExecutor
        from winspawn_lint.cli import _skip_cancelled_when_broken

        if __name__ == "__main__":
            executor = ProcessPoolExecutor(max_workers=1)
            futures = [executor.submit(time.sleep, 60) for _ in range(5)]  # more than its call queue holds
            time.sleep(0.5)
            processes = dict(executor._processes)
            manager = executor._executor_manager_thread
            assert sum(future.cancel() for future in futures) >= 1  # what map() does on the way out
            _skip_cancelled_when_broken(manager)
            for process in processes.values():
                process.terminate()
            manager.join(timeout=30)
            assert not manager.is_alive()
    """
    proc = subprocess.run([sys.executable, "-c", script], env=child_environment("spawn"), capture_output=True,
                          text=True, timeout=60)
    assert (proc.returncode, proc.stderr) == (0, "")


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="inspects processes through Linux /proc")
def test_a_worker_killed_is_one_error_line(tmp_path):
    """The OOM killer (or a user) ends a worker: one line and exit 2, no traceback, nothing left running."""
    for copy in range(4):
        shutil.copytree(FIXTURES, tmp_path / f"copy{copy}", ignore=shutil.ignore_patterns("__pycache__"))
    proc = subprocess.Popen([*COMMAND, "--diff", "-j", "2", "."], cwd=tmp_path, env=child_environment("spawn"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        workers: list = []
        while time.monotonic() < deadline and proc.poll() is None:
            workers = [p for p in _session(proc.pid)
                       if p[0] != proc.pid and p[1] != "Z" and "resource_tracker" not in p[2]]
            if len(workers) >= 2:
                break
            time.sleep(0.05)
        time.sleep(1.0)
        assert proc.poll() is None and workers, "the run ended before a worker could be killed"
        os.kill(workers[0][0], signal.SIGKILL)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 2
    assert err == ("winspawn-lint: a worker process died (killed, or out of memory); rerun with -j 1 to find the "
                   "file\n")
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and [p for p in _session(proc.pid) if p[1] != "Z"]:
        time.sleep(0.1)
    assert [p for p in _session(proc.pid) if p[1] != "Z"] == []


@pytest.mark.skipif(not hasattr(os, "fork"), reason="counts engines made in forked workers")
def test_a_workers_reader_keeps_what_it_found_for_every_chunk_of_files_it_is_given(tmp_path):
    """A worker is given the run's jobs once, not with each chunk of files: the facts its reader keeps are keyed by
    the job's registry of worker APIs, so a job unpickled with each chunk made every chunk find the facts of the
    modules around its files again (-j 2 on this project's own source: 8x the CPU of -j 1).  Here train.py hands
    the lambdas of 40 modules to a loader: each module's check asks for train.py's flows, and each of the two
    workers analyses train.py at most twice (its facts for the others' checks, its own check), however many chunks
    of files the worker gets."""
    names = [f"h{n:02d}" for n in range(40)]
    for name in names:
        (tmp_path / f"{name}.py").write_text("collate = lambda batch: batch\n", encoding="utf-8")
    (tmp_path / "train.py").write_text(
        "from torch.utils.data import DataLoader\n\n" + "".join(f"import {name}\n" for name in names)
        + "\n\ndef main():\n"
        + "".join(f"    for batch in DataLoader([1], num_workers=2, collate_fn={name}.collate):\n        pass\n"
                  for name in names)
        + "\n\nif __name__ == '__main__':\n    main()\n",
        encoding="utf-8")
    counts = tmp_path.parent / f"{tmp_path.name}-engines.txt"
    script = (
        "import multiprocessing, os, sys\n"
        "multiprocessing.set_start_method('fork', force=True)\n"
        "from winspawn_lint import cli\n"
        "from winspawn_lint.analysis import taint\n"
        "made = taint.Engine.__init__\n"
        "def counted(self, *args, **kwargs):\n"
        "    made(self, *args, **kwargs)\n"
        "    if (self.main.path or '').endswith('train.py'):\n"
        f"        with open({str(counts)!r}, 'a') as out:\n"
        "            out.write(f'{os.getpid()}\\n')\n"
        "taint.Engine.__init__ = counted\n"
        "sys.exit(cli.main(['--isolated', '--no-cache', '-j', '2', '.']))\n")
    run = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 1, run.stderr  # (findings: the lambda reaches the loader's workers)
    per_worker = Counter(counts.read_text().split())
    assert per_worker and max(per_worker.values()) <= 2, per_worker
