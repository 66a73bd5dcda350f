"""The main-guard wrap's fix safety for one file: SAFE when the project cannot import the file."""

from __future__ import annotations

import os
import threading

import pytest

from winspawn_lint.analysis import importers
from winspawn_lint.analysis.project import Project
from winspawn_lint.rules import FixSafety


def graded(path, text):
    return importers.grade(path, text, Project())  # a new reader: each test's project is searched afresh


def _project(tmp_path, files: dict[str, str]):
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("importer", [
    "import train\n",
    "import pkg.train as t\n",
    "from train import main\n",
    "from . import train\n",
    "from .train import main\n",
    "from pkg import (\n    other,\n    train,\n)\n",
    "import importlib\nmod = importlib.import_module('pkg.train')\n",
    "mod = __import__(\"train\")\n",
    "def f():\n    import os, train\n",
    "try: import train\nexcept ImportError: train = None\n",
    "if True: from train import main\n",
    "import os; import pkg.train\n",
])
def test_imported_somewhere_is_unsafe(tmp_path, importer):
    root = _project(tmp_path, {"train.py": "print(1)\n", "pkg/user.py": importer})
    found = graded(str(root / "train.py"), "print(1)\n")
    assert found.safety is FixSafety.UNSAFE
    assert "user.py" in found.reason


@pytest.mark.parametrize("other", [
    "import trainer\n",
    "from training import train_loop\n",
    "# import train  (a comment)\nx = 'train'\n",
    "x = 1  # then: import train\n",
    "",
])
def test_not_imported_is_safe(tmp_path, other):
    root = _project(tmp_path, {"train.py": "import os\n", "other.py": other})
    found = graded(str(root / "train.py"), "import os\n")
    assert found.safety is FixSafety.SAFE and str(root) in found.reason


def test_its_own_imports_do_not_count(tmp_path):
    root = _project(tmp_path, {"train.py": "from train import x\n"})
    assert graded(str(root / "train.py"), "from train import x\n").safety is FixSafety.SAFE


def test_a_name_that_is_not_an_identifier_is_safe(tmp_path):
    root = _project(tmp_path, {"train-gpt.py": "", "user.py": "import train\n"})
    assert graded(str(root / "train-gpt.py"), "").safety is FixSafety.SAFE


def test_a_shebang_is_safe(tmp_path):
    root = _project(tmp_path, {"train.py": "#!/usr/bin/env python\n", "user.py": "import train\n"})
    found = graded(str(root / "train.py"), "#!/usr/bin/env python\n")
    assert found.safety is FixSafety.SAFE and "shebang" in found.reason


def test_stdin_is_unsafe():
    assert graded(None, "").safety is FixSafety.UNSAFE


def test_too_many_files_is_unsafe(tmp_path, monkeypatch):
    monkeypatch.setattr(importers, "MAX_FILES", 2)
    root = _project(tmp_path, {"train.py": "", "a.py": "", "b.py": ""})
    assert graded(str(root / "train.py"), "").safety is FixSafety.UNSAFE


def test_project_root_is_the_nearest_marker(tmp_path):
    root = _project(tmp_path, {"src/pkg/train.py": ""})
    assert importers.project_root(str(root / "src" / "pkg" / "train.py")) == str(root)


def test_a_long_lived_project_searches_again_after_files_changed(tmp_path):
    # The search for importers is made once per run; a reader that outlives a run (the language server's) is
    # told when files change, and the grade follows the new files.
    root = _project(tmp_path, {"train.py": "print(1)\n"})
    project = Project()
    assert importers.grade(str(root / "train.py"), "print(1)\n", project).safety is FixSafety.SAFE
    (root / "user.py").write_text("import train\n", encoding="utf-8")
    assert importers.grade(str(root / "train.py"), "print(1)\n", project).safety is FixSafety.SAFE  # searched once
    project.files_changed()
    assert importers.grade(str(root / "train.py"), "print(1)\n", project).safety is FixSafety.UNSAFE


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs mkfifo")
def test_a_fifo_named_like_a_module_is_not_waited_on(tmp_path):
    # Grading searches every .py file under the project root: a plain open() of a FIFO waits for a writer forever
    # (seen: a check of /tmp/x.py hung on another program's /tmp/.../pipe.py).
    root = _project(tmp_path, {"train.py": "import os\n", "user.py": "import train\n"})
    os.mkfifo(root / "pipe.py")
    done: list = []
    searcher = threading.Thread(target=lambda: done.append(graded(str(root / "train.py"), "import os\n")), daemon=True)
    searcher.start()
    searcher.join(timeout=30)
    if searcher.is_alive():  # release the blocked open() before failing
        os.close(os.open(root / "pipe.py", os.O_WRONLY | os.O_NONBLOCK))
    assert done and done[0].safety is FixSafety.UNSAFE and "user.py" in done[0].reason


def test_heavy_work_in_a_module_the_spawning_scripts_import_has_no_fix(tmp_path, capsys, monkeypatch):
    # Wrapping `WEIGHTS = torch.load(...)` in `main()` would take `weights.WEIGHTS` away from train.py.
    from winspawn_lint import cli

    root = _project(tmp_path, {
        "weights.py": "import torch\n\nWEIGHTS = torch.load('w.pt')\n",
        "train.py": ("import weights\nfrom torch.utils.data import DataLoader\n\n\ndef main():\n"
                     "    for batch in DataLoader(range(4), num_workers=2):\n"
                     "        print(weights.WEIGHTS, batch)\n\n\n"
                     "if __name__ == '__main__':\n    main()\n"),
    })
    monkeypatch.chdir(root)
    status = cli.main(["--isolated", "--no-cache", "--unsafe-fixes", "--diff", "."])
    captured = capsys.readouterr()
    out = captured.out + captured.err  # (with --diff, the diff is on stdout and the findings on stderr)
    assert "weights.py:3:" in out and "WSP103" in out, out
    assert "+++" not in out and "[*]" not in out and "fix available" not in out, out
    assert status == 1
