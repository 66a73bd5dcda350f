"""Jupyter notebooks through the command line: exact findings per cell and line, formats, errors, fixes.

Each notebook fixture (``tests/fixtures/notebooks/*.ipynb``) marks what the linter must report with
``# error: WSPnnn`` on the line of the cell (see ``notebook_spec.py``); the set of (cell, line, code)
the CLI reports must equal it.  ``NAME.fixed.ipynb`` is the exact output of ``--fix`` on ``NAME.ipynb``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from notebook_spec import NOTEBOOKS_DIR, all_notebooks, load_notebook_fixture

FIXTURES = [load_notebook_fixture(p) for p in all_notebooks() if not p.name.endswith(".fixed.ipynb")]


def run(*args: str, cwd: Path = NOTEBOOKS_DIR, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "winspawn_lint", "--isolated", *args], capture_output=True,
                          text=True, cwd=cwd, input=stdin, timeout=300)


@pytest.fixture(scope="module")
def reported() -> dict[str, set[tuple[int, int, str]]]:
    proc = run("--select", "ALL", "--format", "json", "-j", "1", *(f.name for f in FIXTURES))
    assert proc.returncode in (0, 1), proc.stderr
    assert proc.stderr == ""
    found: dict[str, set[tuple[int, int, str]]] = {f.name: set() for f in FIXTURES}
    for item in json.loads(proc.stdout):
        found[item["path"]].add((item["cell"], item["line"], item["code"]))
    return found


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f.path.stem for f in FIXTURES])
def test_cli_reports_exactly_the_expected_findings(fixture, reported):
    assert sorted(reported[fixture.name]) == sorted(fixture.expected)


def test_text_output_is_rufs_cell_format():
    proc = run("wsp206_pool_function.ipynb")
    assert proc.returncode == 1
    assert proc.stdout.startswith("wsp206_pool_function.ipynb:cell 3:1:1: WSP206 function `square`, defined in the "
                                  "notebook, reaches `multiprocessing.Pool` as the function of `pool.map()` in "
                                  "cell 4, line 2,")
    assert "move it into a `.py` module next to the notebook and import it" in proc.stdout


def test_machine_formats_carry_the_cell():
    github = run("--format", "github", "wsp206_pool_function.ipynb").stdout
    assert "title=cell 3%3A1%3A1%3A WSP206" in github and "::cell 3:1:1: WSP206" in github
    sarif = json.loads(run("--format", "sarif", "wsp206_pool_function.ipynb").stdout)
    result = sarif["runs"][0]["results"][0]
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["properties"]) == (1, {"cell": 3})
    assert result["message"]["text"].startswith("cell 3:1:1: ")
    grouped = run("--format", "grouped", "wsp206_pool_function.ipynb").stdout
    assert "  cell 3:1:1 WSP206" in grouped and "    def square(x):  # error: WSP206" in grouped


def test_a_directory_walk_includes_notebooks_and_a_hazard_never_exits_0(tmp_path):
    shutil.copy(NOTEBOOKS_DIR / "wsp206_dataloader.ipynb", tmp_path / "train.ipynb")
    (tmp_path / ".ipynb_checkpoints").mkdir()
    shutil.copy(NOTEBOOKS_DIR / "wsp206_dataloader.ipynb", tmp_path / ".ipynb_checkpoints" / "train-checkpoint.ipynb")
    proc = run(".", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert {line.split(":")[0] for line in proc.stdout.splitlines() if ": WSP" in line} == {"train.ipynb"}
    assert run("--extend-exclude", "*.ipynb", ".", cwd=tmp_path).returncode == 0


def test_top_level_workers_in_a_notebook_are_not_import_time_hazards():
    """WSP101/WSP103 mean "spawned workers re-import this module", which a kernel's `__main__` never is
    (wsp206_ok_imported runs under spawn)."""
    proc = run("--select", "ALL", "wsp206_ok_imported.ipynb")
    assert (proc.returncode, proc.stdout) == (0, "")


@pytest.mark.parametrize("content, reason", [
    ("{not json", "not a valid notebook: invalid JSON at line 1 column 2"),
    ('{"a": 1}', "not a valid notebook: no `cells` list"),
    ('{"cells": [], "nbformat": 2}', "nbformat 2 is not supported"),
    ('{"cells": [], "nbformat": 3}', "nbformat 3 without a `worksheets` list"),
    ('{"cells": [{"cell_type": "code", "source": 5}], "nbformat": 4}', "cell 1 has a `source` that is not text"),
    ('{"cells": [{"cell_type": "code", "source": ["import os\\n"]}, {"cell_type": "code", "source": "def f(:"}],'
     ' "nbformat": 4}', "syntax error at cell 2, line 1"),
])
def test_a_bad_notebook_is_one_error_line_and_exit_2(tmp_path, content, reason):
    (tmp_path / "bad.ipynb").write_text(content, encoding="utf-8")
    (tmp_path / "good.ipynb").write_bytes((NOTEBOOKS_DIR / "wsp206_pool_function.ipynb").read_bytes())
    proc = run("bad.ipynb", "good.ipynb", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("bad.ipynb: error: ") and reason in proc.stderr
    assert "good.ipynb:cell 3:1:1: WSP206" in proc.stdout  # the other files are still checked


def _notebook(*cells: str) -> str:
    return json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                                  "source": source} for source in cells],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


@pytest.mark.parametrize("cell, error", [
    ("cd gdrive", None),
    ("\n  pip install h5py  # for the dataset\n", None),
    ("cd gdrive\n\n", "cell 1, line 1"),
    ("# the data\ncd gdrive", "cell 1, line 2"),
    ("import os\ncd gdrive", "cell 1, line 2"),
])
def test_a_magic_without_its_percent_is_a_magic_only_as_a_cells_one_line(tmp_path, cell, error):
    """IPython's automagic (a Colab cell `cd gdrive`) runs a line magic typed without `%` only when the cell is
    that one line once its leading blank lines are dropped; with any other line after or before it, a blank one
    after it included, the kernel raises SyntaxError (measured in ipykernel; the `magics.ipynb` fixture runs one
    in a kernel).  The linter reads the cell as the kernel does."""
    (tmp_path / "colab.ipynb").write_text(_notebook(cell), encoding="utf-8")
    proc = run("colab.ipynb", cwd=tmp_path)
    if error is None:
        assert (proc.returncode, proc.stderr) == (0, "")
    else:
        assert proc.returncode == 2 and f"syntax error at {error}" in proc.stderr


def test_a_cell_that_does_not_parse_is_the_error_and_the_other_cells_are_still_checked(tmp_path):
    """A course notebook keeps an exercise's placeholder (`X = ....`); the kernel runs the other cells, and a
    notebook function given to the DataLoader's workers still fails there (CIS-522, repro under a kernel: "Can't
    get attribute 'seed_worker' on <module '__main__'>").  The cell is the file's error (exit 2); the findings of
    the other cells are reported, not fixable, and `--fix` leaves the notebook as it is."""
    text = _notebook(
        "import torch\nfrom torch.utils.data import DataLoader, TensorDataset\n\n\ndef seed_worker(worker_id):\n"
        "    torch.manual_seed(worker_id)\n",
        "X = ....  # your code here\n",
        "loader = DataLoader(TensorDataset(torch.arange(4)), num_workers=2, worker_init_fn=seed_worker)\n"
        "print([b for b in loader])\n")
    (tmp_path / "course.ipynb").write_text(text, encoding="utf-8")
    for arguments in ([], ["--fix", "--unsafe-fixes"], ["-j", "2"]):
        proc = run(*arguments, "course.ipynb", cwd=tmp_path)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.splitlines()[-1] == "course.ipynb: error: syntax error at cell 2, line 1: invalid syntax"
        assert proc.stdout.startswith("course.ipynb:cell 1:5:1: WSP206 function `seed_worker`")
        assert "[*]" not in proc.stdout and "fixable" not in proc.stdout
        assert (tmp_path / "course.ipynb").read_text(encoding="utf-8") == text


def test_an_nbformat_3_notebook_is_checked_and_never_rewritten(tmp_path):
    """Its cells are numbered across its worksheets as Jupyter numbers them after upgrading it; a fix, or a noqa
    comment, would have to write the old format back: neither is offered, and the file stays as it is."""
    shutil.copy(NOTEBOOKS_DIR / "wsp206_nbformat3_pool_function.ipynb", tmp_path / "old.ipynb")
    text = (tmp_path / "old.ipynb").read_text(encoding="utf-8")
    for arguments in ([], ["--fix", "--unsafe-fixes"], ["-j", "2"]):
        proc = run(*arguments, "old.ipynb", cwd=tmp_path)
        assert proc.returncode == 1, proc.stderr
        assert proc.stdout.startswith("old.ipynb:cell 3:1:1: WSP206 function `square`")
        assert "[*]" not in proc.stdout and "fixable" not in proc.stdout
    proc = run("--add-noqa", "old.ipynb", cwd=tmp_path)
    assert proc.returncode == 1 and "old.ipynb: note: no noqa comments added: an nbformat-3 notebook" in proc.stderr
    assert (tmp_path / "old.ipynb").read_text(encoding="utf-8") == text


def test_a_notebook_is_never_checked_as_python(tmp_path):
    # Notebook JSON is a valid Python expression; read as Python it would hide every hazard.
    shutil.copy(NOTEBOOKS_DIR / "wsp206_pool_function.ipynb", tmp_path / "nb.ipynb")
    assert run("nb.ipynb", cwd=tmp_path).returncode == 1
    data = (tmp_path / "nb.ipynb").read_text(encoding="utf-8")
    proc = run("-", "--stdin-filename", "nb.ipynb", cwd=tmp_path, stdin=data)
    assert proc.returncode == 1 and proc.stdout.startswith("nb.ipynb:cell 3:1:1: WSP206")


def test_checking_never_writes():
    before = {p: p.read_bytes() for p in NOTEBOOKS_DIR.iterdir() if p.is_file()}
    run("--select", "ALL", ".")
    assert {p: p.read_bytes() for p in NOTEBOOKS_DIR.iterdir() if p.is_file()} == before


def _without_sources(data: dict) -> dict:
    copy = json.loads(json.dumps(data))
    for cell in copy["cells"]:
        cell.pop("source")
    return copy


def test_fix_rewrites_only_the_edited_cell_sources(tmp_path):
    original = NOTEBOOKS_DIR / "wsp901_datasets_lambda.ipynb"
    target = tmp_path / original.name
    shutil.copy(original, target)
    proc = run("--select", "ALL", "--fix", target.name, cwd=tmp_path)
    assert proc.stderr == "winspawn-lint: rewrote 1 file\n"
    fixed = target.read_text(encoding="utf-8")
    assert fixed == (NOTEBOOKS_DIR / "wsp901_datasets_lambda.fixed.ipynb").read_text(encoding="utf-8")
    before, after = json.loads(original.read_text(encoding="utf-8")), json.loads(fixed)
    assert _without_sources(before) == _without_sources(after)  # outputs, metadata, ids, key order: untouched
    changed = [i for i, (a, b) in enumerate(zip(before["cells"], after["cells"])) if a["source"] != b["source"]]
    assert changed == [2]
    assert after["cells"][2]["source"][0] == "!true\n" and after["cells"][2]["source"][-1] == "%load_ext autoreload"
    # idempotent
    assert run("--select", "ALL", "--fix", target.name, cwd=tmp_path).stderr == ""
    assert target.read_text(encoding="utf-8") == fixed


FIXED = sorted(NOTEBOOKS_DIR.glob("*.fixed.ipynb"))


@pytest.mark.parametrize("fixed", FIXED, ids=[p.name[: -len(".fixed.ipynb")] for p in FIXED])
def test_fix_output_is_the_fixed_notebook_and_its_module(tmp_path, fixed):
    """``--fix --unsafe-fixes`` turns NAME.ipynb into NAME.fixed.ipynb, and writes NAME_defs.py when it moves
    definitions out of the notebook (WSP206); a second run changes nothing."""
    stem = fixed.name[: -len(".fixed.ipynb")]
    shutil.copy(NOTEBOOKS_DIR / f"{stem}.ipynb", tmp_path / f"{stem}.ipynb")
    shutil.copy(NOTEBOOKS_DIR / "_nb_helpers.py", tmp_path / "_nb_helpers.py")
    proc = run("--select", "ALL", "--fix", "--unsafe-fixes", f"{stem}.ipynb", cwd=tmp_path)
    assert proc.stderr.endswith("winspawn-lint: rewrote 1 file\n"), proc.stderr
    assert (tmp_path / f"{stem}.ipynb").read_text(encoding="utf-8") == fixed.read_text(encoding="utf-8")
    module = NOTEBOOKS_DIR / f"{stem}_defs.py"
    created = tmp_path / f"{stem}_defs.py"
    assert created.exists() == module.exists()
    if module.exists():
        assert created.read_text(encoding="utf-8") == module.read_text(encoding="utf-8")
    again = run("--select", "ALL", "--fix", "--unsafe-fixes", f"{stem}.ipynb", cwd=tmp_path)
    assert "rewrote" not in again.stderr and again.stdout == ""


def test_definitions_that_read_notebook_variables_stay(tmp_path):
    source = ["import multiprocessing\n", "factor = 3\n", "\n", "def scale(x):\n", "    return x * factor\n",
              "\n", "with multiprocessing.Pool(2) as pool:\n", "    print(pool.map(scale, range(3)))\n"]
    notebook = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                           "source": source}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    text = json.dumps(notebook, indent=1) + "\n"
    (tmp_path / "nb.ipynb").write_text(text, encoding="utf-8")
    proc = run("--fix", "--unsafe-fixes", "nb.ipynb", cwd=tmp_path)
    assert "definitions not moved: they read notebook variables" in proc.stderr
    assert "nb.ipynb:cell 1:4:1: WSP206" in proc.stdout and proc.returncode == 1
    assert (tmp_path / "nb.ipynb").read_text(encoding="utf-8") == text and not (tmp_path / "nb_defs.py").exists()


def test_an_existing_module_is_never_replaced(tmp_path):
    shutil.copy(NOTEBOOKS_DIR / "wsp206_pool_function.ipynb", tmp_path / "nb.ipynb")
    (tmp_path / "nb_defs.py").write_text("# mine\n", encoding="utf-8")
    proc = run("--fix", "--unsafe-fixes", "nb.ipynb", cwd=tmp_path)
    assert "definitions not moved: nb_defs.py exists" in proc.stderr
    assert (tmp_path / "nb_defs.py").read_text(encoding="utf-8") == "# mine\n"


def test_diff_shows_the_changed_cells():
    proc = run("--select", "ALL", "--diff", "wsp901_datasets_lambda.ipynb")
    assert proc.stdout.startswith("--- wsp901_datasets_lambda.ipynb:cell 3\n+++ wsp901_datasets_lambda.ipynb:cell 3\n")
    assert "+def _map_fn(example):\n" in proc.stdout and proc.stdout.endswith("\\ No newline at end of file\n")


def _lambda_notebook(tmp_path):
    source = ["import multiprocessing\n", "with multiprocessing.Pool(2) as pool:\n",
              "    print(pool.map(lambda x: x * 2, range(3)))\n"]
    notebook = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                           "source": source}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "nb.ipynb"
    text = json.dumps(notebook, indent=1) + "\n"
    path.write_text(text, encoding="utf-8")
    return path, text


def test_a_hoist_in_a_notebook_is_unsafe_it_needs_the_move_to_a_module(tmp_path):
    """A lambda made into a module-level function is still defined in the kernel's `__main__` (WSP206): the hoist
    holds only with the move of the function into `nb_defs.py`, an unsafe fix."""
    path, text = _lambda_notebook(tmp_path)
    proc = run("--fix", "nb.ipynb", cwd=tmp_path)
    assert proc.returncode == 1
    assert "nb.ipynb:cell 1:3:20: WSP201" in proc.stdout and "[*]" not in proc.stdout
    assert "1 unsafe fix available with `--fix --unsafe-fixes`" in proc.stdout
    assert path.read_text(encoding="utf-8") == text
    proc = run("--fix", "--unsafe-fixes", "nb.ipynb", cwd=tmp_path)
    assert "Found 1 error (1 fixed, 0 remaining)" in proc.stdout and "moved `_map_fn` into nb_defs.py" in proc.stderr
    assert "def _map_fn(x):" in (tmp_path / "nb_defs.py").read_text(encoding="utf-8")


def test_a_hoist_in_a_notebook_whose_module_cannot_be_written_is_declined(tmp_path):
    path, text = _lambda_notebook(tmp_path)
    (tmp_path / "nb_defs.py").write_text("# mine\n", encoding="utf-8")
    proc = run("--unsafe-fixes", "nb.ipynb", cwd=tmp_path)
    assert "WSP201" in proc.stdout and "[*]" not in proc.stdout and "fixable" not in proc.stdout
    proc = run("--fix", "--unsafe-fixes", "nb.ipynb", cwd=tmp_path)
    assert proc.returncode == 1
    assert "WSP201 not fixed: in a notebook its new top-level function would be pickled by reference" in proc.stderr
    assert "definitions not moved: nb_defs.py exists" in proc.stderr
    assert path.read_text(encoding="utf-8") == text


def test_a_notebook_whose_json_layout_cannot_be_reproduced_is_not_rewritten(tmp_path):
    source = NOTEBOOKS_DIR / "wsp901_datasets_lambda.ipynb"
    odd = source.read_text(encoding="utf-8").replace('\n "metadata"', '\n  "metadata"', 1)
    (tmp_path / "nb.ipynb").write_text(odd, encoding="utf-8")
    proc = run("--select", "ALL", "--fix", "nb.ipynb", cwd=tmp_path)
    assert "JSON layout" in proc.stderr
    assert (tmp_path / "nb.ipynb").read_text(encoding="utf-8") == odd
