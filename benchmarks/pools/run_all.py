"""Run every pool probe under emulated spawn, forkserver and fork, one run at a time, and write RESULTS.md.

    python benchmarks/pools/run_all.py [--probe torch] [--method spawn] [--timeout 60]

Each run is one probe, one API (or one share of a slow API's cases) and one start method, in a fresh interpreter
started by ``winspawn_lint.runtime.emulation.run_script`` from this checkout's ``src/`` (its own session: what it
leaves running is killed at its end).  Runs go one after another, since the machine is small and shared.
Raw results are kept in ``RESULTS.json``; a run limited with ``--probe`` or ``--method`` replaces those entries
only, and RESULTS.md is written again from the whole file.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(HERE))

import _harness  # noqa: E402
from winspawn_lint.runtime.emulation import run_script  # noqa: E402

METHODS = ("fork", "forkserver", "spawn")
#: probes whose APIs are run in this many shares, one run each, to keep every run under half a minute: their workers
#: import torch or datasets (seconds per case under spawn), or their hung cases wait out the timeout
SHARES = {"probe_torch.py": 2, "probe_datasets.py": 3, "probe_mpire.py": 2, "probe_notebook.py": 3}
#: the order of the payload rows in RESULTS.md (other cases follow in the order they were run)
CASE_ORDER = ("module_fn", "lambda", "nested_fn", "local_class", "closure_lock", "notebook_fn", "notebook_global",
              "nb_fn", "nb_global", "nb_import", "nb_lambda", "nb_instance")
ERROR_LINE = re.compile(r"^(?:[\w.]+\.)?(\w*(?:Error|Exception|Exit|Interrupt))\b:?\s*(.*)$")


def probes(names: list[str] | None) -> list[Path]:
    found = sorted(HERE.glob("probe_*.py"))
    if names:
        wanted = {name if name.startswith("probe_") else f"probe_{name}" for name in names}
        wanted = {name if name.endswith(".py") else f"{name}.py" for name in wanted}
        found = [path for path in found if path.name in wanted]
    return found


def records(stdout: str) -> list[dict]:
    out = []
    for line in stdout.splitlines():
        # a worker's own output may precede the record on its line (ppft's workers print without a newline)
        at = line.find(_harness.PREFIX)
        if at >= 0:
            try:
                out.append(json.loads(line[at + len(_harness.PREFIX):]))
            except json.JSONDecodeError:
                pass
    return out


def worker_errors(stderr: str) -> dict[str, str]:
    """"<api> <case>" -> the last exception line printed on stderr while that case ran (a worker's, mostly)."""
    found: dict[tuple[str, str], str] = {}
    key = None
    for line in stderr.splitlines():
        if line.startswith(_harness.CASE_MARK):
            key = line[len(_harness.CASE_MARK):]  # "<api> <case>", as the records are keyed below
            continue
        match = ERROR_LINE.match(line.strip())
        if key is not None and match and not line.startswith(" "):
            found[key] = line.strip()[:200]
    return found


def run_one(probe: Path, api: str, method: str, share: str, timeout: float) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        log = os.path.join(folder, "imports.log")
        env = dict(os.environ, **{_harness.LOG_VAR: log})
        env.pop("PYTHONPATH", None)  # run_script puts the emulation's site directory on it
        env["PYTHONPATH"] = str(ROOT / "src")
        result = run_script(probe, method, args=["--api", api, "--slice", share], timeout=timeout, env=env,
                            cwd=HERE)
    recs = records(result.stdout)
    errors = worker_errors(result.stderr)
    for rec in recs:
        if "case" in rec:
            rec["worker_error"] = errors.get(f"{rec['api']} {rec['case']}", "")
    return {"probe": probe.name, "api": api, "method": method, "share": share, "returncode": result.returncode,
            "timed_out": result.timed_out, "seconds": round(result.duration, 1), "records": recs,
            "stderr_tail": "" if result.returncode == 0 else result.stderr[-1500:]}


def list_apis(probe: Path) -> tuple[list[str], str | None]:
    import subprocess

    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    out = subprocess.run([sys.executable, str(probe), "--list"], cwd=HERE, env=env, capture_output=True, text=True,
                         timeout=120)
    skip = next((rec["skip"] for rec in records(out.stdout) if "skip" in rec), None)
    if skip:
        return [], skip
    return [line for line in out.stdout.splitlines() if line and not line.startswith(_harness.PREFIX)], None


# -- RESULTS.md -------------------------------------------------------------------------------------------------

WHERE_SHORT = {
    "main process": "in the main process",
    "forked worker": "forked worker",
    "fresh worker, main re-imported": "fresh worker, main re-imported",
    "fresh worker, main not re-imported": "fresh worker, main **not** re-imported",
}


def cell(rec: dict | None) -> str:
    if rec is None:
        return "–"
    outcome = rec.get("outcome")
    if outcome == "ok":
        text = "ok: " + ", ".join(WHERE_SHORT.get(w, w) for w in rec.get("where", "").split(", "))
    elif outcome == "hang":
        text = f"**hang** ({rec.get('detail', '')})"
        if rec.get("worker_error"):
            text += f"; worker: `{rec['worker_error'][:110]}`"
    elif outcome == "error":
        text = f"**error** `{rec.get('detail', '')[:110]}`"
        worker = rec.get("worker_error", "")
        if worker and worker.split(":")[0] not in rec.get("detail", ""):
            text += f"; worker: `{worker[:110]}`"
    else:
        text = f"**{outcome}** {rec.get('detail', '')[:110]}"
    if rec.get("reimports"):
        text += f" [main imported ×{rec['reimports']}]"
    return text.replace("|", "\\|").replace("\n", " ")


def write_markdown(runs: list[dict], path: Path) -> None:
    by_probe: dict[str, dict] = {}
    for run in runs:
        entry = by_probe.setdefault(run["probe"], {"runs": [], "header": None, "skip": run.get("skip")})
        entry["runs"].append(run)
        for rec in run.get("records", []):
            if "library" in rec and entry["header"] is None:
                entry["header"] = rec
    lines = [
        "# Pool libraries under spawn, forkserver and fork: observed",
        "",
        "Written by `benchmarks/pools/run_all.py` from `RESULTS.json`; do not edit by hand.  What the columns mean:",
        "each cell is one payload sent through one API under the emulated default start method "
        "(`python -m winspawn_lint.spawnrun --start-method M`) on "
        f"Linux, Python {platform.python_version()}.  See `docs/pool-libraries.md` for the reading of it.",
        "",
        "* **ok: forked worker**: the payload ran in a worker that inherited the parent's memory;",
        "* **ok: fresh worker, main re-imported**: a new interpreter that executed the probe script as `__mp_main__`;",
        "* **ok: fresh worker, main not re-imported**: a new interpreter that never ran the script's top level;",
        "* **error**: the call raised (type and first words); **hang**: no answer within the case timeout "
        "(with the last exception line a worker printed meanwhile);",
        "* [main imported ×N]: processes that executed the script's top level during the case.",
        "",
        "Payloads: `module_fn` (module-level function of the script), `lambda`, `nested_fn`, `local_class` (a callable "
        "instance of a class defined in a function), `closure_lock` (a nested function closing over a "
        "`threading.Lock`: only dill ships it), `notebook_fn` / `notebook_global` (defined under the main guard, "
        "as a notebook cell defines them; the second reads a global defined there too).  `count ...` rows try "
        "worker counts that might mean \"no worker process\".",
        "",
    ]
    for name in sorted(by_probe):
        entry = by_probe[name]
        header = entry["header"] or {}
        title = header.get("library", name)
        version = header.get("version", "")
        lines.append(f"## {title} {version}".rstrip())
        lines.append("")
        if entry["skip"]:
            lines += [f"Skipped: {entry['skip']}.", ""]
            continue
        table: dict[tuple[str, str], dict[str, dict]] = {}
        order: list[tuple[str, str]] = []
        notes = []
        for run in entry["runs"]:
            if run.get("timed_out") or run.get("returncode") not in (0, None):
                notes.append(f"`{run['api']}` under {run['method']} ({run.get('share', '1/1')}): run "
                             f"{'timed out' if run.get('timed_out') else 'exited ' + str(run.get('returncode'))}"
                             f" after {run['seconds']}s")
            for rec in run.get("records", []):
                if "case" not in rec:
                    if "note" in rec:
                        notes.append(rec["note"])
                    continue
                key = (rec["api"], rec["case"])
                if key not in table:
                    table[key] = {}
                    order.append(key)
                table[key][run["method"]] = rec
        apis = list(dict.fromkeys(api for api, _ in order))
        rank = {case: i for i, case in enumerate(CASE_ORDER)}
        order = sorted(order, key=lambda key: (apis.index(key[0]), rank.get(key[1], len(rank)),
                                               order.index(key)))
        lines.append("| API | payload | " + " | ".join(METHODS) + " |")
        lines.append("|---|---|" + "---|" * len(METHODS))
        for api, case in order:
            row = table[(api, case)]
            lines.append(f"| `{api}` | {case} | " + " | ".join(cell(row.get(m)) for m in METHODS) + " |")
        lines.append("")
        seconds = {}
        for run in entry["runs"]:
            seconds.setdefault(run["method"], []).append(run["seconds"])
        lines.append("Run times: " + "; ".join(
            f"{m} {len(s)} run(s), longest {max(s)}s" for m, s in sorted(seconds.items())) + ".")
        for note in dict.fromkeys(notes):
            lines.append(f"Note: {note}.")
        lines.append("")
    path.write_text("\n".join(lines), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--probe", action="append", help="only this probe (e.g. torch or probe_torch.py)")
    parser.add_argument("--method", action="append", choices=METHODS, help="only this start method")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds for one run (default 60)")
    parser.add_argument("--json", type=Path, default=HERE / "RESULTS.json")
    parser.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    args = parser.parse_args(argv)
    methods = args.method or list(METHODS)
    runs = json.loads(args.json.read_text()) if args.json.exists() else []
    for probe in probes(args.probe):
        apis, skip = list_apis(probe)
        runs = [r for r in runs if not (r["probe"] == probe.name and (r["method"] in methods or r.get("skip")))]
        if skip:
            print(f"{probe.name}: skipped: {skip}", flush=True)
            runs.append({"probe": probe.name, "api": "", "method": "", "skip": skip, "records": [], "seconds": 0})
            continue
        shares = SHARES.get(probe.name, 1)
        for method in methods:
            for api in apis:
                for share in range(1, shares + 1):
                    started = time.monotonic()
                    run = run_one(probe, api, method, f"{share}/{shares}", args.timeout)
                    runs.append(run)
                    status = "timed out" if run["timed_out"] else f"exit {run['returncode']}"
                    print(f"{probe.name} [{method}] {api} {share}/{shares}: {status}, "
                          f"{time.monotonic() - started:.1f}s, {sum('case' in r for r in run['records'])} cases",
                          flush=True)
        args.json.write_text(json.dumps(runs, indent=1, sort_keys=True), encoding="utf-8")
    args.json.write_text(json.dumps(runs, indent=1, sort_keys=True), encoding="utf-8")
    write_markdown(runs, args.out)
    print(f"wrote {args.out}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
