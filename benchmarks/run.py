"""Benchmark winspawn-lint against the parse floor, flake8 and ruff, side by side.

    python benchmarks/run.py [--quick] [--repeat N]

Corpus: every ``.py`` file of the installed site-packages (``sysconfig``
purelib/platlib) plus the standard library, minus the files that do not
``ast.parse`` under the running Python (so every tool sees the same set).
The files are copied into a temporary directory, one numbered directory per
file (``corpus/q<shard>/<n>/<original name>``), so no tool's default
excludes (``build``, ``site-packages``, ``tests``...) can skip any of them;
the harness checks that every tool saw every file.

Each measurement is a subprocess, started by a small launcher process that
records its wall time, CPU time (user + system of the process and of the
workers it reaped) and peak RSS (``getrusage(RUSAGE_CHILDREN)``: the largest
single process of its tree).  The measurements are
interleaved within each repetition and reported as medians; ratios are
medians of the per-repetition ratios, so slow drift of a shared machine's
load cancels out.  Results: a table on stdout and ``docs/performance.md``
(the part below the "end of generated part" marker is kept across runs).

ML repositories (what users check): the extracted public repositories in
``--ml-corpus`` (default ``.corpus/`` at the project root, see
shared/corpus/README.md; the section is skipped with a message when it is
absent), copied into the benchmark's directory (the originals are never
written): the ``.py`` files of ``--ml-repos`` (default: examples, diffusers,
pytorch-image-models, trl, pytorch-lightning, detectron2).  Measured there,
side by side in each repetition: the parse floor, winspawn-lint cold
(``--no-cache``) on one and on all cores, a run that fills the results cache,
a warm rerun (nothing changed) and a warm rerun after one line is appended
to the module that the most files of its repository import, ruff ``E,F``
without its cache on one thread and on all, the check and the fix run
(``--diff --unsafe-fixes``, which writes nothing) of the largest repository,
and the wall time of one small file (winspawn-lint, ruff, and a bare
``python -c pass`` for the interpreter's own start).  After the repetitions,
the cold, warm and after-an-edit runs are profiled by phase
(``benchmarks/phases.py``, never beside a timed run), and each speed target
missed gets a line saying what stands in its way.

winspawn-lint is byte-compiled first, as an installer does.  POSIX only
(``resource``).  Needs ``flake8`` and ``ruff`` installed next to
winspawn-lint.  ``--quick``: a ~2000-file sample, one repetition (smoke test);
``--ml-only``: only the ML-repository section (prints, writes no report).
"""

from __future__ import annotations

import argparse
import ast
import datetime
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import freeze_support
from pathlib import Path
from typing import Callable, Optional

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "performance.md"
FIXTURES = ROOT / "tests" / "fixtures"
KEEP_MARKER = "<!-- end of generated part: text below this line is kept when the benchmark rewrites the file -->"
CACHE = Path(tempfile.gettempdir()) / "winspawn-lint-bench-parse-cache.json"
ML_CORPUS = ROOT / ".corpus"
ML_REPOS = ("examples", "diffusers", "pytorch-image-models", "trl", "pytorch-lightning", "detectron2")
ONE_FILE = ROOT / "docs" / "examples" / "train_unsafe.py"
ONE_FILE_RUNS = 10  # per repetition; the sample is their median (a one-file run is a few tens of ms)
PY = sys.executable

FLOOR = """\
import ast, sys, warnings
warnings.simplefilter("ignore")
paths = open(sys.argv[1], encoding="utf-8").read().splitlines()
for path in paths:
    with open(path, "rb") as handle:
        ast.parse(handle.read(), path)
print(len(paths), "files parsed")
"""

# The floor for a real repository: a file that does not parse under this Python is counted, not fatal.
FLOOR_TOLERANT = """\
import ast, sys, warnings
warnings.simplefilter("ignore")
paths = open(sys.argv[1], encoding="utf-8").read().splitlines()
failed = 0
for path in paths:
    with open(path, "rb") as handle:
        try:
            ast.parse(handle.read(), path)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            failed += 1
print(len(paths), "files parsed,", failed, "failed")
"""

# Runs one measured command and writes its wall time, CPU time (user + system of it and every process it
# reaped: pool workers included) and peak RSS (the largest single process) as JSON.
LAUNCHER = """\
import json, resource, subprocess, sys, time
report, argv = sys.argv[1], sys.argv[2:]
start = time.perf_counter()
status = subprocess.call(argv)
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(report, "w") as handle:
    json.dump({"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "maxrss": usage.ru_maxrss,
               "status": status}, handle)
"""

# The analysis alone through the public API, in one process: what the CLI adds (file discovery, pool, output)
# is the difference.
API_ONLY = """\
import sys, warnings
warnings.simplefilter("ignore")
from winspawn_lint import check_text
from winspawn_lint.settings import Settings
from winspawn_lint.io.source import SourceError, read
settings = Settings()
paths = open(sys.argv[1], encoding="utf-8").read().splitlines()
found = 0
for path in paths:
    try:
        found += len(check_text(read(path).text, path, settings))
    except SourceError:
        pass
print(len(paths), "files", found, "findings")
"""

# The plugin's own cost inside flake8, timed call by call: importing it, then Plugin(tree, lines, path).run()
# on every file with the lines flake8 would hand it. Far less noisy than the difference of two flake8 runs.
PLUGIN_COST = """\
import ast, sys, time, tokenize, warnings
warnings.simplefilter("ignore")
start = time.process_time()
from winspawn_lint.flake8_plugin import Plugin
cost = time.process_time() - start
for path in open(sys.argv[1], encoding="utf-8").read().splitlines():
    with tokenize.open(path) as handle:
        lines = handle.readlines()
    tree = ast.parse("".join(lines), path)
    start = time.process_time()
    for _ in Plugin(tree, lines, path).run():
        pass
    cost += time.process_time() - start
print(f"{cost:.4f}")
"""

# flake8 finds plugins with importlib.metadata.distributions(); with WSP_BENCH_PLUGIN=off the shim hides
# the winspawn-lint distribution from it, so flake8 never sees our entry point. Both arms run this same shim.
FLAKE8_SHIM = """\
import importlib.metadata, os, sys
if os.environ.get("WSP_BENCH_PLUGIN") == "off":
    _distributions = importlib.metadata.distributions
    def _without_winspawn_lint(**kwargs):
        for dist in _distributions(**kwargs):
            if (dist.metadata["Name"] or "").lower().replace("_", "-") != "winspawn-lint":
                yield dist
    importlib.metadata.distributions = _without_winspawn_lint
from flake8.main.cli import main
sys.argv[0] = "flake8"
raise SystemExit(main())
"""


# ---------------------------------------------------------------- corpus


def source_files() -> list[str]:
    """Every .py file of site-packages and the stdlib, each once, in a stable order."""
    paths = sysconfig.get_paths()
    site_dirs = {os.path.realpath(paths["purelib"]), os.path.realpath(paths["platlib"])}
    roots = [*sorted(site_dirs), os.path.realpath(paths["stdlib"])]
    seen: set[str] = set()
    found: list[str] = []
    for root in roots:
        for directory, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__"
                             and os.path.realpath(os.path.join(directory, d)) not in site_dirs)
            for name in sorted(files):
                if name.endswith(".py"):
                    full = os.path.join(directory, name)
                    key = os.path.realpath(full)
                    if key not in seen and os.path.isfile(key):
                        seen.add(key)
                        found.append(full)
    return found


def _probe(path: str) -> tuple[bool, int]:
    """(parses under this Python, physical lines)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return False, 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(data, path)
        except (SyntaxError, ValueError, RecursionError, MemoryError, UnicodeError):
            return False, len(data.splitlines())
    return True, len(data.splitlines())


def probe_all(paths: list[str]) -> dict[str, tuple[bool, int]]:
    """_probe for every path, in parallel, cached by (path, size, mtime) across runs."""
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    try:
        cache = json.loads(CACHE.read_text())
        if cache.get("python") != version:
            cache = {}
    except (OSError, ValueError):
        cache = {}
    entries = cache.get("files", {})
    result: dict[str, tuple[bool, int]] = {}
    todo: list[str] = []
    stamps: dict[str, list[int]] = {}
    for path in paths:
        st = os.stat(path)
        stamps[path] = [st.st_size, st.st_mtime_ns]
        hit = entries.get(path)
        if hit and hit[:2] == stamps[path]:
            result[path] = (bool(hit[2]), int(hit[3]))
        else:
            todo.append(path)
    if todo:
        print(f"checking that {len(todo)} files parse (cached for the next run)...", flush=True)
        with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            for path, outcome in zip(todo, pool.map(_probe, todo, chunksize=32)):
                result[path] = outcome
        for path in todo:
            entries[path] = [*stamps[path], int(result[path][0]), result[path][1]]
        try:
            CACHE.write_text(json.dumps({"python": version, "files": entries}))
        except OSError:
            pass
    return result


@dataclass
class Corpus:
    work: Path
    files: list[str]  # copies, relative to work
    lines: dict[str, int]
    shards: list[list[str]]  # 4 shards of the copies (shuffled, seed 0)
    flake8_files: list[str]
    fix_extra: list[str]  # hazardous fixtures mixed into fix/
    excluded: int
    candidates: int

    def total_lines(self, files: list[str]) -> int:
        return sum(self.lines[f] for f in files)


def _place(src: str, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dest)


def fixable_fixtures() -> list[Path]:
    """Hazardous fixtures the fixer rewrites: those with a ``.fixed.py`` twin."""
    chosen = [p for p in sorted(FIXTURES.glob("wsp*.py"))
              if not p.name.endswith(".fixed.py") and p.with_name(p.stem + ".fixed.py").exists()]
    if not chosen:  # no expected-fix twins yet: every hazardous fixture
        chosen = [p for p in sorted(FIXTURES.glob("wsp*.py")) if "_ok_" not in p.name and ".fixed" not in p.name]
    return chosen


def build_corpus(work: Path, quick: bool, sample: int, flake8_sample: int) -> Corpus:
    candidates = source_files()
    if quick:
        candidates = sorted(random.Random(0).sample(candidates, min(sample, len(candidates))))
    probed = probe_all(candidates)
    valid = [p for p in candidates if probed[p][0]]
    order = valid[:]
    random.Random(0).shuffle(order)
    copies: list[str] = []
    lines: dict[str, int] = {}
    shards: list[list[str]] = [[], [], [], []]
    origin: dict[str, str] = {}
    for index, path in enumerate(order):
        shard = index * 4 // len(order)
        rel = f"corpus/q{shard}/{index:05d}/{os.path.basename(path)}"
        _place(path, work / rel)
        copies.append(rel)
        shards[shard].append(rel)
        lines[rel] = probed[path][1]
        origin[rel] = path
    k = min(flake8_sample, len(valid))
    flake8_files = []
    for index, path in enumerate(random.Random(0).sample(valid, k)):
        rel = f"flake8/{index:05d}/{os.path.basename(path)}"
        _place(path, work / rel)
        flake8_files.append(rel)
        lines[rel] = probed[path][1]
    # The fix corpus: a copy of the corpus plus ~1% hazardous fixtures (never hard links: a writing
    # bug must not touch the check corpus).
    for rel in copies:
        _place(str(work / rel), work / ("fix/" + rel[len("corpus/"):]))
    fixtures = fixable_fixtures()
    extra = []
    for index in range(max(1, round(len(copies) / 100))):
        fixture = fixtures[index % len(fixtures)]
        rel = f"fix/mixed/{index:05d}/{fixture.name}"
        _place(str(fixture), work / rel)
        extra.append(rel)
        lines[rel] = len(fixture.read_bytes().splitlines())
    (work / "lists").mkdir(exist_ok=True)
    (work / "lists" / "all.txt").write_text("\n".join(copies) + "\n")
    (work / "lists" / "flake8.txt").write_text("\n".join(flake8_files) + "\n")
    return Corpus(work, copies, lines, shards, flake8_files, extra, len(candidates) - len(valid), len(candidates))


# ---------------------------------------------------------------- running


@dataclass
class Sample:
    wall: float
    cpu: float
    rss_mb: Optional[float]
    status: int


@dataclass
class Measurement:
    key: str
    label: str
    argv: list[str]
    files: int
    lines: int
    env: dict = field(default_factory=dict)
    ok_status: tuple = (0, 1)
    samples: list[Sample] = field(default_factory=list)
    stdout: str = ""
    reported: list = field(default_factory=list)  # a number the command prints (the plugin's cost)
    stderr: str = ""
    #: launches per sample (their median): a one-file run takes tens of milliseconds
    runs: int = 1
    #: a directory emptied before each sample (the results cache that a "fill" run starts from)
    reset: Optional[Path] = None
    #: called before each sample (the edit that a "warm after an edit" run follows)
    prepare: Optional[Callable[[], None]] = None

    def median(self, attr: str) -> Optional[float]:
        values = [getattr(s, attr) for s in self.samples if getattr(s, attr) is not None]
        return statistics.median(values) if values else None

    def peak_rss(self) -> Optional[float]:
        values = [s.rss_mb for s in self.samples if s.rss_mb is not None]
        return max(values) if values else None


def run_sample(m: Measurement, work: Path) -> Sample:
    """One sample of *m*: the median (by wall time) of ``m.runs`` launches."""
    if m.reset is not None:
        shutil.rmtree(m.reset, ignore_errors=True)
    if m.prepare is not None:
        m.prepare()
    samples = sorted((run_once(m, work) for _ in range(m.runs)), key=lambda x: x.wall)
    return samples[len(samples) // 2]


def run_once(m: Measurement, work: Path) -> Sample:
    env = {**os.environ, **m.env}
    env.pop("PYTHONPROFILEIMPORTTIME", None)
    out_path, err_path = work / "out" / f"{m.key}.out", work / "out" / f"{m.key}.err"
    report = work / "out" / f"{m.key}.json"
    out_path.parent.mkdir(exist_ok=True)
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        # Through the small launcher: on Linux a process exec'd straight from this one would start with this
        # process's own peak RSS as its ru_maxrss.
        proc = subprocess.run([PY, "-c", LAUNCHER, str(report), *m.argv], cwd=work, env=env, stdout=out,
                              stderr=err, stdin=subprocess.DEVNULL, check=False)
    if proc.returncode != 0 or not report.exists():
        raise SystemExit(f"{m.label}: the launcher failed\n{err_path.read_text(errors='replace')[-3000:]}")
    data = json.loads(report.read_text())
    # ru_maxrss: KiB on Linux, bytes on macOS; the largest single process among those the launcher waited for.
    rss = data["maxrss"] / (1024 * 1024 if sys.platform == "darwin" else 1024)
    m.stdout = out_path.read_text(errors="replace")
    m.stderr = err_path.read_text(errors="replace")
    if m.key == "plugin":
        m.reported.append(float(m.stdout.split()[-1]))
    if data["status"] not in m.ok_status:
        raise SystemExit(f"{m.label}: exit status {data['status']}\n{' '.join(m.argv)}\n{m.stderr[-3000:]}")
    return Sample(data["wall"], data["cpu"], rss, data["status"])


def ruff_binary() -> str:
    try:
        from ruff.__main__ import find_ruff_bin

        return os.fsdecode(find_ruff_bin())
    except Exception:
        found = shutil.which("ruff")
        if not found:
            raise SystemExit("ruff is not installed (pip install ruff)")
        return found


def tool_version(argv: list[str]) -> str:
    proc = subprocess.run(argv, capture_output=True, text=True)
    return " ".join(proc.stdout.split())


def sanity_checks(c: Corpus, ruff: str) -> None:
    """Every tool sees every file; the flake8 switch really switches the plugin."""
    from winspawn_lint.io.discover import discover
    from winspawn_lint.settings import Settings

    seen = sum(1 for _ in discover([str(c.work / "corpus")], Settings()))
    if seen != len(c.files):
        raise SystemExit(f"winspawn-lint would check {seen} of {len(c.files)} files")
    proc = subprocess.run([ruff, "check", "--isolated", "--no-cache", "--show-files", "corpus"],
                          cwd=c.work, capture_output=True, text=True)
    shown = sum(1 for line in proc.stdout.splitlines() if line.strip().endswith(".py"))
    if shown != len(c.files):
        raise SystemExit(f"ruff would check {shown} of {len(c.files)} files")
    for state, expected in (("on", True), ("off", False)):
        version = subprocess.run([PY, "-c", FLAKE8_SHIM, "--version"], capture_output=True, text=True,
                                 env={**os.environ, "WSP_BENCH_PLUGIN": state}).stdout
        if ("winspawn-lint" in version) is not expected:
            raise SystemExit(f"flake8 plugin switch failed ({state}): {version}")
    probe = FIXTURES / "wsp201_pool_map_lambda.py"
    if probe.exists():
        for state, expected in (("on", True), ("off", False)):
            out = subprocess.run([PY, "-c", FLAKE8_SHIM, "--isolated", "--select", "WSP,E9", str(probe)],
                                 capture_output=True, text=True, env={**os.environ, "WSP_BENCH_PLUGIN": state}).stdout
            if ("WSP201" in out) is not expected:
                raise SystemExit(f"flake8 plugin switch failed ({state}): {out!r}")


def measurements(c: Corpus, ruff: str) -> list[Measurement]:
    n, lines = len(c.files), c.total_lines(c.files)
    half = c.shards[0] + c.shards[1]
    f8n, f8lines = len(c.flake8_files), c.total_lines(c.flake8_files)
    fixn = n + len(c.fix_extra)
    fixlines = lines + c.total_lines(c.fix_extra)
    wsp = [PY, "-m", "winspawn_lint", "--isolated", "--no-cache"]
    ruff_cmd = [ruff, "check", "--no-cache", "--isolated", "--select", "E,F", "--output-format", "concise", "corpus"]
    f8 = [PY, "-c", FLAKE8_SHIM, "--isolated", "--benchmark"]
    jobs = os.cpu_count() or 1
    return [
        Measurement("floor", "floor: read + ast.parse, 1 process", [PY, "-c", FLOOR, "lists/all.txt"], n, lines),
        Measurement("wsp_j1", "winspawn-lint -j 1", [*wsp, "-j", "1", "corpus"], n, lines),
        Measurement("wsp_jN", f"winspawn-lint (default -j {jobs})", [*wsp, "corpus"], n, lines),
        # (over the flake8 sample: each call asks whether the project's files changed since the last one, a stat
        # of each of the corpus's files and folders, so the whole corpus file by file would take hours)
        Measurement("api", "check_text() API, flake8 sample, 1 process", [PY, "-c", API_ONLY, "lists/flake8.txt"],
                    f8n, f8lines),
        Measurement("ruff", "ruff check --select E,F (default threads)", ruff_cmd, n, lines),
        Measurement("ruff_1t", "ruff check --select E,F (1 thread)", ruff_cmd, n, lines,
                    env={"RAYON_NUM_THREADS": "1"}),
        Measurement("wsp_q1", "winspawn-lint -j 1, 1/4 corpus", [*wsp, "-j", "1", "corpus/q0"],
                    len(c.shards[0]), c.total_lines(c.shards[0])),
        Measurement("wsp_q2", "winspawn-lint -j 1, 1/2 corpus", [*wsp, "-j", "1", "corpus/q0", "corpus/q1"],
                    len(half), c.total_lines(half)),
        Measurement("fixcheck", f"winspawn-lint (-j {jobs}) on fix corpus", [*wsp, "fix"], fixn, fixlines),
        Measurement("fix", f"winspawn-lint --fix --diff --unsafe-fixes (-j {jobs})",
                    [*wsp, "--fix", "--diff", "--unsafe-fixes", "fix"], fixn, fixlines),
        Measurement("floor_f8", "floor on the flake8 sample", [PY, "-c", FLOOR, "lists/flake8.txt"], f8n, f8lines),
        Measurement("plugin", "the plugin's own work inside flake8 (timed per call)",
                    [PY, "-c", PLUGIN_COST, "lists/flake8.txt"], f8n, f8lines),
        Measurement("f8_off_j1", "flake8 -j1, plugin off", [*f8, "-j", "1", "flake8"], f8n, f8lines,
                    env={"WSP_BENCH_PLUGIN": "off"}),
        Measurement("f8_on_j1", "flake8 -j1, plugin on", [*f8, "-j", "1", "flake8"], f8n, f8lines,
                    env={"WSP_BENCH_PLUGIN": "on"}),
        Measurement("f8_off_jN", f"flake8 (default -j {jobs}), plugin off", [*f8, "flake8"], f8n, f8lines,
                    env={"WSP_BENCH_PLUGIN": "off"}),
        Measurement("f8_on_jN", f"flake8 (default -j {jobs}), plugin on", [*f8, "flake8"], f8n, f8lines,
                    env={"WSP_BENCH_PLUGIN": "on"}),
    ]


def _run_order(ms: list[Measurement], rep: int) -> list[Measurement]:
    # Alternate the order of the pairs compared with each other so drift in load does not favour one arm.
    order = ms[:]
    if rep % 2:
        swap = {"f8_off_j1": "f8_on_j1", "f8_off_jN": "f8_on_jN", "fixcheck": "fix", "wsp_j1": "floor",
                "ml_cold_j1": "ml_ruff_1t", "one_wsp": "one_ruff", "ml_big_check": "ml_big_fix"}
        # (ml_fill, ml_warm and ml_edit stay together, in that order)
        index = {m.key: i for i, m in enumerate(order)}
        for a, b in swap.items():
            if a not in index or b not in index:
                continue
            order[index[a]], order[index[b]] = order[index[b]], order[index[a]]
    return order


def check_outputs(ms: dict[str, Measurement], c: Corpus) -> dict[str, str]:
    """Facts from the outputs of the last repetition: files seen, findings, fixes, errors."""
    notes = {}
    for key in ("floor", "floor_f8", "api"):
        got = ms[key].stdout.split()[0]
        want = len(c.flake8_files) if key in ("floor_f8", "api") else len(c.files)
        if int(got) != want:
            raise SystemExit(f"{key}: parsed {got} of {want} files")
    for key in ("f8_off_j1", "f8_on_j1", "f8_off_jN", "f8_on_jN"):
        counts = [line.split()[0] for line in ms[key].stdout.splitlines() if line.rstrip().endswith("files processed")
                  and "total" in line]
        if not counts or int(counts[0]) != len(c.flake8_files):
            raise SystemExit(f"{key}: flake8 processed {counts} of {len(c.flake8_files)} files")
    wsp_findings = sum(1 for line in ms["wsp_j1"].stdout.splitlines() if ": WSP" in line)
    wsp_errors = sum(1 for line in ms["wsp_j1"].stderr.splitlines() if ": error:" in line)
    notes["wsp"] = f"{wsp_findings} findings, {wsp_errors} files reported as errors"
    f8_wsp = sum(1 for line in ms["f8_on_j1"].stdout.splitlines() if ": WSP" in line)
    f8_off_wsp = sum(1 for line in ms["f8_off_j1"].stdout.splitlines() if ": WSP" in line)
    notes["flake8"] = f"plugin on: {f8_wsp} WSP findings; plugin off: {f8_off_wsp}"
    rewritten = sum(1 for line in ms["fix"].stdout.splitlines() if line.startswith("+++ "))
    share = len(c.fix_extra) / (len(c.files) + len(c.fix_extra))
    notes["fix"] = (f"{len(c.fix_extra)} fixture copies mixed in ({share:.1%} of files), "
                    f"files the diff rewrites: {rewritten}")
    ruff_lines = sum(1 for line in ms["ruff"].stdout.splitlines() if ".py:" in line)
    notes["ruff"] = f"{ruff_lines} E/F diagnostics"
    return notes


# ---------------------------------------------------------------- ML repositories


@dataclass
class MLCorpus:
    root: Path
    repos: list[str]
    commits: dict[str, str]
    files: list[str]  # absolute paths, in winspawn-lint's walk order
    lines: int
    one_file_lines: int
    largest: str  # the repository with the most lines
    largest_files: int
    largest_lines: int
    edited: Path  # the module the most files of its repository import
    edited_importers: int

    @property
    def paths(self) -> list[str]:
        return [str(self.root / repo) for repo in self.repos]


def _most_imported(root: Path, repo: str, files: list[str]) -> tuple[Path, int]:
    """The module of *repo* that the most of its files import, and how many do: by its dotted name from the
    repository's root, or from under its ``src/`` folder (``import a.b.c``, ``from a.b import c``,
    ``from a.b.c import x``), or relatively (``from ..c import x`` in a module of ``a.b.d``)."""
    import re

    absolute = re.compile(r"^\s*(?:import\s+([\w.]+)|from\s+([\w.]+)\s+import\s+([^#\n]*))", re.MULTILINE)
    relative = re.compile(r"^\s*from\s+(\.+)([\w.]*)\s+import\s+([^#\n]*)", re.MULTILINE)

    def dotted(path: str) -> tuple[str, ...]:
        parts = Path(path).relative_to(root / repo).with_suffix("").parts
        parts = parts[1:] if parts[:1] == ("src",) else parts
        return parts[:-1] if parts and parts[-1] == "__init__" else parts

    importers: dict[tuple[str, ...], set[str]] = {}
    for path in files:
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8", "replace")
        here = dotted(path)
        package = here if Path(path).name == "__init__.py" else here[:-1]
        targets: set[tuple[str, ...]] = set()
        for match in absolute.finditer(text):
            module = tuple((match.group(1) or match.group(2)).split("."))
            targets.add(module)
            targets.update((*module, name.strip("() ").split(" as ")[0]) for name in (match.group(3) or "").split(","))
        for match in relative.finditer(text):
            up = len(match.group(1)) - 1
            base = package[:len(package) - up] if up <= len(package) else None
            if base is None:
                continue
            module = (*base, *(match.group(2).split(".") if match.group(2) else ()))
            targets.add(module)
            targets.update((*module, name.strip("() ").split(" as ")[0]) for name in match.group(3).split(","))
        for target in targets:
            importers.setdefault(target, set()).add(path)
    best: tuple[int, str] = (-1, "")
    for path in files:
        module = dotted(path)
        if module:
            best = max(best, (len(importers.get(module, set()) - {path}), path))
    return Path(best[1]), best[0]


def _as_a_clone(folder: Path) -> None:
    """Give *folder* the `.git` folder a user's clone has, which makes it a project of its own.  The extraction
    keeps only Python files, so a copied repository may have no project marker left; without one, its project
    would be the folder the benchmark runs in, which holds the site-packages corpus: past the project scan's
    file limit (cross-module analysis measured switched off), and a 20k-file walk for a one-file run."""
    (folder / ".git").mkdir(exist_ok=True)


def build_ml_corpus(root: Path, repos: tuple[str, ...], work: Path) -> Optional[MLCorpus]:
    """The repositories found under *root*, copied into *work*; None (with a message) when none is there."""
    present = [repo for repo in repos if (root / repo).is_dir()]
    missing = [repo for repo in repos if repo not in present]
    if not present:
        print(f"ML corpus: no repository of {', '.join(repos)} under {root}: section skipped "
              "(see shared/corpus/README.md to extract them)", flush=True)
        return None
    if missing:
        print(f"ML corpus: not found under {root}, left out: {', '.join(missing)}", flush=True)
    from winspawn_lint.io.discover import discover
    from winspawn_lint.settings import Settings

    commits = {}
    for repo in present:
        marker = root / repo / ".commit"
        commits[repo] = marker.read_text().strip()[:12] if marker.exists() else "?"
    # A copy, so that the "edit" row can change a module without touching the extracted repositories.
    copy = work / "ml"
    for repo in present:
        shutil.copytree(root / repo, copy / repo, symlinks=True,
                        ignore=shutil.ignore_patterns(".winspawn_lint_cache", ".git"))
        _as_a_clone(copy / repo)
    # Notebooks are left out on both sides (RUFF_ML_FLAGS, WSP_ML_FLAGS): both tools check the same .py files.
    files = [os.path.abspath(path)
             for path, _ in discover([str(copy / repo) for repo in present], Settings(extend_exclude=("*.ipynb",)))]
    per_repo: dict[str, list[str]] = {repo: [] for repo in present}
    repo_lines = dict.fromkeys(present, 0)
    for path in files:
        repo = Path(path).relative_to(copy).parts[0]
        per_repo[repo].append(path)
        with open(path, "rb") as handle:
            repo_lines[repo] += handle.read().count(b"\n")
    largest = max(present, key=lambda repo: repo_lines[repo])
    edited, importers = _most_imported(copy, largest, per_repo[largest])
    (work / "lists").mkdir(exist_ok=True)
    (work / "lists" / "ml.txt").write_text("\n".join(files) + "\n")
    one = work / "one" / ONE_FILE.name
    one.parent.mkdir(parents=True, exist_ok=True)
    _as_a_clone(one.parent)  # (pre-commit runs a file in its clone)
    shutil.copyfile(ONE_FILE, one)
    return MLCorpus(copy, present, commits, files, sum(repo_lines.values()), len(ONE_FILE.read_bytes().splitlines()),
                    largest, len(per_repo[largest]), repo_lines[largest], edited, importers)


def ml_sanity(ml: MLCorpus, ruff: str) -> None:
    """ruff checks the same files as winspawn-lint (notebooks left out by both)."""
    proc = subprocess.run([ruff, "check", "--isolated", "--no-cache", "--show-files", *RUFF_ML_FLAGS, *ml.paths],
                          capture_output=True, text=True)
    shown = sum(1 for line in proc.stdout.splitlines() if line.strip().endswith(".py"))
    if shown != len(ml.files):
        raise SystemExit(f"ML corpus: ruff would check {shown} files, winspawn-lint {len(ml.files)}")


RUFF_ML_FLAGS = ("--extend-exclude", "*.ipynb")
WSP_ML_FLAGS = ("--extend-exclude", "*.ipynb")


def ml_measurements(ml: MLCorpus, ruff: str, work: Path) -> list[Measurement]:
    n, lines = len(ml.files), ml.lines
    wsp = [PY, "-m", "winspawn_lint", "--isolated", *WSP_ML_FLAGS]
    ruff_cmd = [ruff, "check", "--no-cache", "--isolated", "--select", "E,F", "--output-format", "concise",
                *RUFF_ML_FLAGS, *ml.paths]
    cache = work / "ml-cache"
    cache_env = {"WINSPAWN_LINT_CACHE_DIR": str(cache)}
    jobs = os.cpu_count() or 1
    one = str(work / "one" / ONE_FILE.name)
    big = str(ml.root / ml.largest)
    edits = iter(range(1, 1_000_000))

    def edit() -> None:  # one line more in the module the most files import: it and its importers change
        with open(ml.edited, "a", encoding="utf-8") as handle:
            handle.write(f"\nEDITED_BY_THE_BENCHMARK = {next(edits)}\n")

    return [
        Measurement("ml_floor", "ML: floor (read + ast.parse, 1 process)", [PY, "-c", FLOOR_TOLERANT, "lists/ml.txt"],
                    n, lines),
        Measurement("ml_cold_j1", "ML: winspawn-lint --no-cache -j 1", [*wsp, "--no-cache", "-j", "1", *ml.paths],
                    n, lines),
        Measurement("ml_cold_jN", f"ML: winspawn-lint --no-cache (default -j {jobs})", [*wsp, "--no-cache", *ml.paths],
                    n, lines),
        Measurement("ml_fill", "ML: winspawn-lint -j 1, empty cache (fills it)", [*wsp, "-j", "1", *ml.paths], n, lines,
                    env=cache_env, reset=cache),
        Measurement("ml_warm", "ML: winspawn-lint -j 1, warm cache, nothing changed", [*wsp, "-j", "1", *ml.paths],
                    n, lines, env=cache_env),
        Measurement("ml_edit", f"ML: winspawn-lint -j 1, warm cache, one module edited ({ml.edited_importers} files "
                    "import it)", [*wsp, "-j", "1", *ml.paths], n, lines, env=cache_env, prepare=edit),
        Measurement("ml_ruff_1t", "ML: ruff check --select E,F --no-cache (1 thread)", ruff_cmd, n, lines,
                    env={"RAYON_NUM_THREADS": "1"}),
        Measurement("ml_ruff", "ML: ruff check --select E,F --no-cache (default threads)", ruff_cmd, n, lines),
        Measurement("ml_big_check", f"ML, {ml.largest}: winspawn-lint --no-cache -j 1",
                    [*wsp, "--no-cache", "-j", "1", big], ml.largest_files, ml.largest_lines),
        Measurement("ml_big_fix", f"ML, {ml.largest}: winspawn-lint --no-cache -j 1 --diff --unsafe-fixes",
                    [*wsp, "--no-cache", "-j", "1", "--diff", "--unsafe-fixes", big], ml.largest_files,
                    ml.largest_lines),
        Measurement("one_wsp", f"one file ({ml.one_file_lines} lines): winspawn-lint --no-cache",
                    [*wsp, "--no-cache", one], 1, ml.one_file_lines, runs=ONE_FILE_RUNS),
        Measurement("one_wsp_warm", f"one file ({ml.one_file_lines} lines): winspawn-lint, warm cache",
                    [*wsp, one], 1, ml.one_file_lines, runs=ONE_FILE_RUNS, env=cache_env),
        Measurement("one_ruff", f"one file ({ml.one_file_lines} lines): ruff check --select E,F --no-cache",
                    [ruff, "check", "--no-cache", "--isolated", "--select", "E,F", one], 1, ml.one_file_lines,
                    runs=ONE_FILE_RUNS),
        Measurement("one_python", "interpreter start alone: python -c pass", [PY, "-c", "pass"], 0, 0,
                    runs=ONE_FILE_RUNS),
    ]


PHASES = ROOT / "benchmarks" / "phases.py"
#: launches of the warm profile (a warm run takes tens of milliseconds: one gives too few samples) and of the
#: profile after an edit (each after its own edit)
WARM_PROFILE_LAUNCHES, EDIT_PROFILE_LAUNCHES = 10, 5


@dataclass
class Profile:
    """What ``benchmarks/phases.py`` measured of a run (medians of its launches): CPU seconds of the interpreter's
    start, of importing the command and of the run itself, and the run's share per phase (of all samples)."""
    interpreter: float
    imports: float
    run: float
    samples: int
    shares: dict[str, float]

    def phases(self) -> str:
        return ", ".join(f"{phase} {share:.0%}" for phase, share in self.shares.items() if share >= 0.005)


def profile(m: Measurement, work: Path, launches: int = 1) -> Profile:
    """*m*'s command (a serial winspawn-lint run) under the sampling profiler, *launches* times (each after
    *m*'s ``prepare``); the shares weighted by samples."""
    found = []
    for _ in range(launches):
        if m.prepare is not None:
            m.prepare()
        proc = subprocess.run([PY, str(PHASES), "--", *m.argv[3:]], cwd=work,
                              env={**os.environ, **m.env}, capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"profile of {m.label}: exit status {proc.returncode}\n{proc.stderr[-3000:]}")
        found.append(json.loads(proc.stdout.splitlines()[-1]))
    samples = sum(f["samples"] for f in found)
    shares: dict[str, float] = {}
    for f in found:
        for phase, share in f["shares"].items():
            shares[phase] = shares.get(phase, 0.0) + share * f["samples"] / (samples or 1)
    return Profile(statistics.median(f["interpreter_cpu"] for f in found),
                   statistics.median(f["import_cpu"] for f in found),
                   statistics.median(f["run_cpu"] for f in found), samples,
                   dict(sorted(shares.items(), key=lambda item: -item[1])))


def ml_profiles(ms: dict[str, Measurement], work: Path) -> dict[str, Profile]:
    """The cold, warm and after-an-edit runs of the ML section, profiled by phase once the timed repetitions are
    done (the profiler costs time of its own: it never runs beside a timed measurement)."""
    warm = ms["ml_warm"]
    run_once(warm, work)  # (the cache as the last edit left it: brought up to date, so the profile is of a warm run)
    return {"cold": profile(ms["ml_cold_j1"], work), "warm": profile(warm, work, launches=WARM_PROFILE_LAUNCHES),
            "edit": profile(ms["ml_edit"], work, launches=EDIT_PROFILE_LAUNCHES)}


def ml_notes(ms: dict[str, Measurement], ml: MLCorpus) -> dict[str, str]:
    """Facts from the outputs of the last repetition; the cached runs must report what the cold one does."""
    cold = ms["ml_cold_j1"].stdout
    for key in ("ml_cold_jN", "ml_fill", "ml_warm", "ml_edit"):
        if ms[key].stdout != cold:
            raise SystemExit(f"{key}: findings differ from the cold -j 1 run")
    parsed, failed = ms["ml_floor"].stdout.split()[0], ms["ml_floor"].stdout.split()[3]
    if int(parsed) != len(ml.files):
        raise SystemExit(f"ml_floor: read {parsed} of {len(ml.files)} files")
    findings = sum(1 for line in cold.splitlines() if ": WSP" in line)
    ruff_lines = sum(1 for line in ms["ml_ruff_1t"].stdout.splitlines() if ".py:" in line)
    rewritten = sum(1 for line in ms["ml_big_fix"].stdout.splitlines() if line.startswith("+++ "))
    edited = ml.edited.relative_to(ml.root)
    return {"ml": f"winspawn-lint {findings} findings (identical cold, cached, warm and after the edit); ruff "
                  f"{ruff_lines} E/F diagnostics; {failed} files do not parse under this Python (the floor skips "
                  f"them); the edited module: `{edited}`, imported by {ml.edited_importers} files of "
                  f"{ml.largest}; the fix run's diff rewrites {rewritten} files of {ml.largest}"}


def ml_targets(ms: dict[str, Measurement], ml: MLCorpus, profiles: Optional[dict[str, Profile]] = None) -> list[str]:
    """Issue 26's targets, each a ratio of two measurements of the same repetition (medians of the ratios); for
    each missed, what stands in the way, from the profiles (:func:`ml_profiles`) when there are any."""
    out = []
    cold = paired(ms, "ml_cold_j1", "ml_ruff_1t", "cpu")
    floor = paired(ms, "ml_cold_j1", "ml_floor", "cpu")
    out.append(f"- cold CPU, `-j 1` / ruff `E,F` on one thread: **{fmt(cold)}** (target ≤ 2.0: {verdict(cold, 2.0)}; "
               f"stretch ≤ 1.0: {verdict(cold, 1.0)}); / the parse floor: {fmt(floor)}; "
               f"wall on every core / ruff's default threads: {fmt(paired(ms, 'ml_cold_jN', 'ml_ruff', 'wall'))}.")
    if profiles and verdict(cold, 2.0) == "MISSED":
        out.append(f"  - in the way: reading and `ast.parse` of every file alone (the floor) is "
                   f"{fmt(paired(ms, 'ml_floor', 'ml_ruff_1t', 'cpu'))}× ruff's run; the cold run's CPU by phase "
                   f"({profiles['cold'].samples} samples): {profiles['cold'].phases()}.")
    warm = paired(ms, "ml_warm", "ml_ruff_1t", "cpu")
    warm_wall = paired(ms, "ml_warm", "ml_ruff", "wall")
    out.append(f"- warm rerun, nothing changed / ruff `E,F --no-cache` on one thread: **{fmt(warm)}** CPU (target "
               f"≤ 0.10: {verdict(warm, 0.10)}); wall / ruff on every core: {fmt(warm_wall)}; "
               f"the run that fills the cache / the cold run: {fmt(paired(ms, 'ml_fill', 'ml_cold_j1', 'cpu'))} CPU.")
    if profiles and verdict(warm, 0.10) == "MISSED":
        out.append("  - in the way: " + _in_the_way(ms, profiles["warm"], f"{WARM_PROFILE_LAUNCHES} runs"))
    edit = paired(ms, "ml_edit", "ml_ruff_1t", "cpu")
    out.append(f"- warm rerun after editing one module that {ml.edited_importers} files import / ruff `E,F --no-cache` "
               f"on one thread: **{fmt(edit)}** CPU (target ≤ 0.25: {verdict(edit, 0.25)}).")
    if profiles and verdict(edit, 0.25) == "MISSED":
        each = f"{EDIT_PROFILE_LAUNCHES} runs, each after its own edit"
        out.append("  - in the way: " + _in_the_way(ms, profiles["edit"], each))
    one = paired(ms, "one_wsp", "one_python", "wall")
    ms_ = (lambda v: "–" if v is None else f"{v * 1000:.0f} ms")
    out.append(f"- one small file, wall / `python -c pass` (medians of {ONE_FILE_RUNS} launches per repetition): "
               f"**{fmt(one)}** (target ≤ 2.5: {verdict(one, 2.5)}): {ms_(ms['one_wsp'].median('wall'))} against "
               f"{ms_(ms['one_python'].median('wall'))}; with a warm cache {ms_(ms['one_wsp_warm'].median('wall'))}; "
               f"ruff {ms_(ms['one_ruff'].median('wall'))}.")
    fix = paired(ms, "ml_big_fix", "ml_big_check", "cpu")
    out.append(f"- `--diff --unsafe-fixes` / check, `-j 1 --no-cache` on the largest repository measured "
               f"({ml.largest}, {ml.largest_lines:,} lines): **{fmt(fix)}** CPU (target ≤ 1.5: {verdict(fix, 1.5)}); "
               f"wall {fmt(paired(ms, 'ml_big_fix', 'ml_big_check', 'wall'))}.")
    big = max((r for r in (ms["ml_big_check"].peak_rss(), ms["ml_big_fix"].peak_rss()) if r is not None), default=None)
    peak = max((r for r in (ms[k].peak_rss() for k in ("ml_cold_j1", "ml_cold_jN", "ml_fill", "ml_warm", "ml_edit"))
                if r is not None), default=None)
    out.append(f"- peak RSS on {ml.largest} (check and fix runs): **{fmt(big, 0)} MB** (target ≤ 300 MB: "
               f"{verdict(big, 300)}); on all the ML repositories at once: {fmt(peak, 0)} MB.")
    if "f8_on_j1" not in ms:
        out.append("- flake8 + plugin / flake8: measured in the site-packages section (not run with `--ml-only`).")
    return out


def _in_the_way(ms: dict[str, Measurement], p: Profile, runs: str) -> str:
    """A short run's cost, split: the interpreter's start, importing the command, and the run by phase."""
    ms_ = (lambda seconds: f"{seconds * 1000:.0f} ms")
    return (f"the interpreter's start alone (`python -c pass`) is "
            f"{fmt(paired(ms, 'one_python', 'ml_ruff_1t', 'cpu'))}× ruff's CPU; under the profiler ({runs}), "
            f"the interpreter's start took {ms_(p.interpreter)} of CPU, importing the command {ms_(p.imports)}, "
            f"the run {ms_(p.run)}, by phase ({p.samples} samples): {p.phases()}.")


def ml_section(ml: MLCorpus, ms: dict[str, Measurement], notes: dict[str, str],
               profiles: Optional[dict[str, Profile]] = None) -> list[str]:
    repos = ", ".join(f"{repo} ({ml.commits[repo]})" for repo in ml.repos)
    return [
        "## ML repositories",
        "",
        f"{len(ml.files)} files, {ml.lines:,} lines: the `.py` files of {repos}, extracted under `.corpus/` "
        "(shared/corpus/README.md; commits in parentheses), read in place. These are what users check: the "
        "prefilter lets through a far larger share of them than of site-packages.",
        "",
        *table({k: m for k, m in ms.items() if k.startswith(("ml_", "one_"))}),
        "",
        *ml_targets(ms, ml, profiles),
        "",
        "Outputs: " + notes["ml"] + ".",
        "",
        "- The warm rerun uses the cache the \"fills it\" run wrote just before it (`WINSPAWN_LINT_CACHE_DIR` in "
        "the benchmark's directory, emptied before each fill); ruff always runs with `--no-cache`, notebooks "
        "excluded (`--extend-exclude '*.ipynb'`), and the harness checks that it sees the same files.",
        "- One file: `docs/examples/train_unsafe.py` (five findings), launched "
        f"{ONE_FILE_RUNS} times per repetition; wall times on a shared machine include its load.",
        "",
    ]


# ---------------------------------------------------------------- reporting


def paired(ms: dict[str, Measurement], a: str, b: str, attr: str) -> Optional[float]:
    pairs = [(getattr(x, attr), getattr(y, attr)) for x, y in zip(ms[a].samples, ms[b].samples)]
    ratios = [x / y for x, y in pairs if x is not None and y]
    return statistics.median(ratios) if ratios else None


def fmt(value: Optional[float], digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def table(ms: dict[str, Measurement]) -> list[str]:
    rows = ["| measurement | files | lines | wall s | CPU s | wall / floor | CPU / floor | peak RSS MB |",
            "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for m in ms.values():
        floor = "floor_f8" if m.key.startswith("f8_") or m.key in ("floor_f8", "api") else \
            "ml_floor" if m.key.startswith("ml_") else "floor"
        if m.key in ("wsp_q1", "wsp_q2", "fixcheck", "fix", "plugin") or m.key.startswith("one_"):
            wall_ratio = cpu_ratio = None  # different file sets: see the targets below
        else:
            wall_ratio, cpu_ratio = paired(ms, m.key, floor, "wall"), paired(ms, m.key, floor, "cpu")
        rows.append(f"| {m.label} | {m.files} | {m.lines:,} | {fmt(m.median('wall'))} | {fmt(m.median('cpu'))} | "
                    f"{fmt(wall_ratio)} | {fmt(cpu_ratio)} | {fmt(m.peak_rss(), 0)} |")
    return rows


def verdict(value: Optional[float], limit: float) -> str:
    if value is None:
        return "not measured"
    return "met" if value <= limit else "MISSED"


def targets(ms: dict[str, Measurement]) -> list[str]:
    out = []
    r = paired(ms, "f8_on_j1", "f8_off_j1", "cpu")
    rw = paired(ms, "f8_on_j1", "f8_off_j1", "wall")
    rn = paired(ms, "f8_on_jN", "f8_off_jN", "wall")
    own = [1 + cost / off.cpu for cost, off in zip(ms["plugin"].reported, ms["f8_off_j1"].samples) if off.cpu]
    direct = statistics.median(own) if own else None
    out.append(f"- flake8 + plugin / flake8 alone, `-j1`: **{fmt(r, 3)}** CPU, {fmt(rw, 3)} wall "
               f"(target ≤ 1.05: {verdict(r, 1.05)}); default jobs: {fmt(rn, 3)} wall. Timing the plugin's "
               f"own calls instead (far less noisy than the difference of two runs): **{fmt(direct, 3)}** "
               f"({fmt(statistics.median(ms['plugin'].reported) if ms['plugin'].reported else None)} s of plugin "
               f"work per run; target: {verdict(direct, 1.05)}).")
    s_cpu, s_wall = paired(ms, "wsp_j1", "floor", "cpu"), paired(ms, "wsp_j1", "floor", "wall")
    p_wall = paired(ms, "wsp_jN", "floor", "wall")
    out.append(f"- winspawn-lint / parse floor: serial **{fmt(s_cpu)}** CPU ({fmt(s_wall)} wall), parallel "
               f"**{fmt(p_wall)}** wall (target ≤ 0.5: serial {verdict(s_cpu, 0.5)}, parallel {verdict(p_wall, 0.5)}).")
    api = paired(ms, "api", "floor_f8", "cpu")
    out.append(f"- the flake8 sample through the `check_text()` API in one process, file by file (no file discovery, "
               f"pool or output; each call checks that the project's files are as the last one read them): "
               f"**{fmt(api)}** CPU / floor.")
    r1 = paired(ms, "wsp_j1", "ruff_1t", "cpu")
    rp = paired(ms, "wsp_jN", "ruff", "wall")
    out.append(f"- winspawn-lint / ruff (stretch: < 1): serial vs ruff on 1 thread {fmt(r1)} CPU; "
               f"parallel vs ruff default threads {fmt(rp)} wall.")
    fx = paired(ms, "fix", "fixcheck", "wall")
    fx2 = paired(ms, "fix", "wsp_jN", "wall")
    out.append(f"- `--fix --diff` / check of the same corpus: **{fmt(fx)}** wall (target ≤ 1.5: {verdict(fx, 1.5)}); "
               f"/ (2) parallel check of the plain corpus: {fmt(fx2)}.")
    per = []
    for key in ("wsp_q1", "wsp_q2", "wsp_j1"):
        m = ms[key]
        cpu = m.median("cpu")
        per.append(f"{m.files} files, {m.lines / 1e6:.2f} M lines: {fmt(cpu)} s CPU = "
                   f"{fmt(cpu / (m.lines / 1e6) if cpu else None)} s per M lines")
    growth = paired(ms, "wsp_j1", "wsp_q2", "cpu")
    line_growth = ms["wsp_j1"].lines / max(1, ms["wsp_q2"].lines)
    ok = growth is not None and growth <= line_growth * 1.1
    out.append(f"- scaling (`-j 1`): {'; '.join(per)}. Whole / half: time × {fmt(growth)} for lines × "
               f"{line_growth:.2f} ({'linear: met' if ok else 'MISSED'}).")
    rss = [ms[k].peak_rss() for k in ("wsp_j1", "wsp_jN")]
    out.append(f"- peak RSS of the check: {fmt(rss[0], 0)} MB serial, {fmt(rss[1], 0)} MB largest process of the "
               f"parallel run (target ≤ 200 MB: {verdict(max(r for r in rss if r is not None), 200)}); "
               f"`--fix --diff`: {fmt(ms['fix'].peak_rss(), 0)} MB.")
    return out


def machine() -> list[str]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import winspawn_lint

    return [
        f"- {os.cpu_count()} cores ({cpu}), {platform.system()} {platform.release()}",
        f"- Python {platform.python_version()} ({platform.python_implementation()}), "
        f"winspawn-lint {winspawn_lint.__version__}, flake8 {tool_version([PY, '-m', 'flake8', '--version'])}, "
        f"{tool_version([ruff_binary(), '--version'])}",
    ]


def site_only(ms: dict[str, Measurement]) -> dict[str, Measurement]:
    return {k: m for k, m in ms.items() if not k.startswith(("ml_", "one_"))}


def write_doc(c: Corpus, ms: dict[str, Measurement], notes: dict[str, str], meta: dict, quick: bool,
              previous: Path, ml: Optional[MLCorpus] = None, profiles: Optional[dict[str, Profile]] = None) -> str:
    n_lines = c.total_lines(c.files)
    lines = [
        "# Performance",
        "",
        "Generated by `python benchmarks/run.py` (see its docstring for the method); rerun it to refresh this "
        "table. Ratios are the medians of per-repetition ratios from the same run, which is what to compare: "
        "absolute seconds depend on the machine and its load.",
        "",
        "## Machine and run",
        "",
        *machine(),
        f"- {meta['date']}; {meta['repeat']} repetition(s){' (--quick)' if quick else ''}; "
        f"load average {meta['load_before']} before, {meta['load_after']} after "
        "(1/5/15 min; the machine was shared with other jobs — wall times are inflated by the load, CPU times "
        "less so)",
        f"- corpus: {len(c.files)} files, {n_lines:,} lines: the `.py` files of site-packages and the "
        f"standard library{' (a seed-0 sample)' if quick else ''}; {c.excluded} of {c.candidates} files that do "
        "not parse under this Python are left out of every measurement",
        f"- flake8: a fixed random sample (seed 0) of {len(c.flake8_files)} of these files, "
        f"{c.total_lines(c.flake8_files):,} lines (flake8 takes ~20× the parse floor; the full corpus would take "
        "too long); the same sample for both arms",
        f"- benchmark wall time: {meta['elapsed'] / 60:.0f} min",
        "",
        *(ml_section(ml, ms, notes, profiles) if ml is not None else []),
        "## site-packages and the standard library",
        "",
        *table(site_only(ms)),
        "",
        "CPU s is user + system time of the process and all its workers; for parallel runs it exceeds wall "
        "time. Peak RSS is `ru_maxrss` from `getrusage(RUSAGE_CHILDREN)` in a small launcher process: the "
        "largest single process of the run (for a parallel run, the largest worker or the parent, not their sum).",
        "",
        "## Targets",
        "",
        *targets(ms),
        *([""] + ["Load: the 1-minute load average was above the core count during the run, so the parallel runs "
                  "did not get every core and wall-time ratios mix in other jobs' load; the CPU ratios of the "
                  "serial runs are the reliable ones."] if meta["load_max"] > (os.cpu_count() or 1) else []),
        "",
        "Outputs: winspawn-lint " + notes["wsp"] + "; flake8 " + notes["flake8"] + "; ruff " + notes["ruff"]
        + "; fix corpus: " + notes["fix"] + ".",
        "",
        "## How it is measured",
        "",
        "- The corpus is copied into a temporary directory, one numbered directory per file, so that no "
        "tool's default excludes skip a file; the harness checks that winspawn-lint (its file discovery), "
        "ruff (`--show-files`), flake8 (`--benchmark` file count) and the floor each see every file.",
        "- **floor**: one `python` process that reads every file and calls `ast.parse` on it.",
        "- **flake8 with and without the plugin**: both arms run flake8 through the same small shim "
        "(`python -c ...`, in `benchmarks/run.py`); with `WSP_BENCH_PLUGIN=off` the shim hides the "
        "`winspawn-lint` distribution from `importlib.metadata.distributions()`, which is where flake8 "
        "finds plugins, so flake8 runs exactly its default plugins (pyflakes, pycodestyle, mccabe). "
        "The harness checks the switch: `flake8 --version` lists the plugin only when on, and a hazardous "
        "fixture gets its WSP finding only when on. The worker processes of `-j` inherit the plugin set.",
        "- **ruff**: `ruff check --no-cache --isolated --select E,F --output-format concise` on the corpus "
        "directory (concise output, like flake8's and ours), with its default thread count and with "
        "`RAYON_NUM_THREADS=1`.",
        "- **fix path**: a second copy of the corpus plus copies of the hazardous fixtures that have a "
        "`.fixed.py` twin (about 1% of the files), checked and fixed (`--fix --diff --unsafe-fixes`, which "
        "writes nothing) with the default job count.",
        "- **scaling**: the corpus is shuffled (seed 0) into four equal shards; `-j 1` on 1/4, 1/2 and all.",
        "- **cache**: every winspawn-lint run on site-packages passes `--no-cache` (cold); the ML section "
        "measures the cache.",
        "",
        KEEP_MARKER,
    ]
    text = "\n".join(lines) + "\n"
    kept = ""
    if previous.exists():
        old = previous.read_text()
        if KEEP_MARKER in old:
            kept = old.split(KEEP_MARKER, 1)[1].lstrip("\n")
    return text + ("\n" + kept if kept else "")


def _compile_package() -> None:
    """Byte-compile winspawn-lint as an installer does: with PYTHONDONTWRITEBYTECODE set (or a source
    checkout never imported), every measured run would otherwise compile its modules (~40 ms a run)."""
    import compileall

    import winspawn_lint

    compileall.compile_dir(os.path.dirname(winspawn_lint.__file__), quiet=1)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a ~2000-file sample, one repetition (smoke test)")
    parser.add_argument("--repeat", type=int, help="repetitions (default 3; 1 with --quick)")
    parser.add_argument("--sample", type=int, default=2000, help="corpus size with --quick (default 2000)")
    parser.add_argument("--flake8-sample", type=int, help="files for the flake8 runs (default 1500; 300 with --quick)")
    parser.add_argument("--output", help="the Markdown report (default: docs/performance.md; none with --quick)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary corpus directory")
    parser.add_argument("--ml-corpus", default=str(ML_CORPUS),
                        help="the extracted ML repositories (default: .corpus/ at the project root)")
    parser.add_argument("--ml-repos", default=",".join(ML_REPOS), help="comma-separated repositories to use there")
    parser.add_argument("--ml-only", action="store_true", help="only the ML-repository section; no report written")
    ns = parser.parse_args(argv)
    if os.name != "posix":
        raise SystemExit("benchmarks/run.py needs a POSIX system (resource.getrusage)")
    repeat = ns.repeat or (1 if ns.quick else 3)
    flake8_sample = ns.flake8_sample or (300 if ns.quick else 1500)
    started = time.perf_counter()
    _compile_package()
    load_before = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    date = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    work = Path(tempfile.mkdtemp(prefix="winspawn-lint-bench-"))
    try:
        ruff = ruff_binary()
        ml = build_ml_corpus(Path(ns.ml_corpus), tuple(r for r in ns.ml_repos.split(",") if r), work)
        ms: dict[str, Measurement] = {}
        corpus = None
        if ml is not None:
            print(f"ML corpus: {len(ml.files)} files, {ml.lines:,} lines in {', '.join(ml.repos)}", flush=True)
            ml_sanity(ml, ruff)
            ms.update((m.key, m) for m in ml_measurements(ml, ruff, work))
        if ns.ml_only:
            if ml is None:
                raise SystemExit("--ml-only: no ML corpus")
        else:
            corpus = build_corpus(work, ns.quick, ns.sample, flake8_sample)
            print(f"corpus: {len(corpus.files)} files, {corpus.total_lines(corpus.files):,} lines "
                  f"({corpus.excluded} unparsable left out); flake8 sample {len(corpus.flake8_files)}; "
                  f"work dir {work}", flush=True)
            sanity_checks(corpus, ruff)
            ms.update((m.key, m) for m in measurements(corpus, ruff))
        output = None if ns.ml_only else Path(ns.output) if ns.output else (None if ns.quick else DOC)
        load_max = os.getloadavg()[0]
        for rep in range(repeat):
            for m in _run_order(list(ms.values()), rep):
                sample = run_sample(m, work)
                m.samples.append(sample)
                load_max = max(load_max, os.getloadavg()[0])
                print(f"  [{rep + 1}/{repeat}] {m.label}: {sample.wall:.2f} s wall, {sample.cpu:.2f} s CPU, "
                      f"{sample.rss_mb:.0f} MB", flush=True)
            # (every repetition: the cached runs must agree with the cold one each time)
            notes = check_outputs(ms, corpus) if corpus is not None else {}
            if ml is not None:
                notes.update(ml_notes(ms, ml))
            meta = {"date": date, "repeat": rep + 1, "load_before": load_before, "load_max": load_max,
                    "load_after": " / ".join(f"{x:.1f}" for x in os.getloadavg()),
                    "elapsed": time.perf_counter() - started}
            if output is not None:  # after every repetition, so an interrupted run still leaves a report
                output.parent.mkdir(parents=True, exist_ok=True)
                output.write_text(write_doc(corpus, ms, notes, meta, ns.quick, output, ml))
        profiles = None
        if ml is not None:
            print("profiling the cold, warm and after-an-edit runs by phase", flush=True)
            profiles = ml_profiles(ms, work)
            if output is not None:
                output.write_text(write_doc(corpus, ms, notes, meta, ns.quick, output, ml, profiles))
        print()
        print("\n".join(table(ms)))
        print()
        if ml is not None:
            print("\n".join(ml_targets(ms, ml, profiles)))
            print("\nOutputs: " + notes["ml"] + ".")
            print("Commits: " + ", ".join(f"{repo} {ml.commits[repo]}" for repo in ml.repos) + ".")
        if corpus is not None:
            print("\n".join(targets(ms)))
        if output is not None:
            print(f"\nwrote {output}")
    finally:
        if ns.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    freeze_support()
    sys.exit(main())
