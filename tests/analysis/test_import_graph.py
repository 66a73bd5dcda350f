"""Which project modules may reach a worker API through the names they import, read from the text of imports.

Specification: a module reaches one when its own text names one, or a name it imports may lead to one: a function
or class defined in a module that reaches one, a module that does, anything a star import brings from one.  A name
a package re-exports is followed to the module that defines it, so importing a constant that sits beside the
loaders does not count.  A module that reaches none holds no sink: its check does not summarize its functions to
find its own flows (only the flows of the modules around it can report in it).  The answer is the least set closed
under those rules, the same whatever order the files are asked in.
"""

from __future__ import annotations

import textwrap

from winspawn_lint.analysis.importers import scan
from winspawn_lint.analysis.prefilter import may_have_findings
from winspawn_lint.analysis.project import Project
from winspawn_lint.pipeline import check
from winspawn_lint.rules import RULES
from winspawn_lint.runner import Job, check_buffer, check_file
from winspawn_lint.settings import Settings
from winspawn_lint.spawn_apis import DEFAULT_REGISTRY

ALL = Settings(select=frozenset(RULES))

LOADER = textwrap.dedent('''\
    from torch.utils.data import DataLoader


    def make_loader(data, collate=None):
        return DataLoader(data, num_workers=2, collate_fn=collate)
''')

PROJECT = {
    "pyproject.toml": "",
    "data/__init__.py": "from .constants import *\nfrom .loader import make_loader\n",
    "data/constants.py": "MEAN = (0.5, 0.5, 0.5)\nSTD: tuple = (0.2, 0.2, 0.2)\n",
    "data/loader.py": LOADER,
    "model.py": "from data import MEAN, STD\n\n\ndef build():\n    return [m for m in MEAN]\n\n\n"
                "def export(path):\n    return open(path, 'w')\n",
    "by_name.py": "from data import make_loader\n",
    "by_submodule.py": "from data.loader import make_loader as loader_of\n",
    "by_module.py": "import data\n",
    "by_star.py": "from data import *\n",
    "helper.py": "from data import make_loader\n\n\ndef build(data):\n    return make_loader(data)\n",
    "uses_helper.py": "from helper import build\n",
    "relative/__init__.py": "",
    "relative/inner.py": "from ..data.loader import make_loader\n",
    "cycle_a.py": "from cycle_b import thing\n",
    "cycle_b.py": "from cycle_a import thing\n",
    "layers/typing.py": "from typing import Callable\n\nHook = Callable\n",
    "uses_typing.py": "from typing import Any\n",
}


def _index(root):
    for name, text in PROJECT.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return scan(str(root), lambda text: may_have_findings(text, DEFAULT_REGISTRY))


def _reaching(index, root):
    graph = index.graph()
    return sorted(str(path.relative_to(root)) for path in sorted(root.rglob("*.py")) if graph.reaches(str(path)))


def test_a_module_reaches_a_worker_api_through_the_names_it_imports(tmp_path):
    index = _index(tmp_path)
    assert _reaching(index, tmp_path) == [
        "by_module.py", "by_name.py", "by_star.py", "by_submodule.py", "data/__init__.py", "data/loader.py",
        "helper.py", "relative/inner.py", "uses_helper.py"]


def test_a_constant_re_exported_beside_the_loaders_does_not_reach_one(tmp_path):
    graph = _index(tmp_path).graph()
    assert not graph.reaches(str(tmp_path / "model.py"))
    assert not graph.reaches(str(tmp_path / "data" / "constants.py"))


def test_a_cycle_of_re_exports_and_a_module_named_like_the_standard_library_reach_nothing(tmp_path):
    graph = _index(tmp_path).graph()
    assert not any(graph.reaches(str(tmp_path / name)) for name in (
        "cycle_a.py", "cycle_b.py", "layers/typing.py", "uses_typing.py"))


def test_an_import_after_a_colon_or_a_semicolon_counts_and_one_in_a_comment_does_not(tmp_path):
    extra = {
        "by_try.py": "try: from data import make_loader\nexcept ImportError: make_loader = None\n",
        "by_else.py": "try:\n    pass\nexcept ImportError: pass\nelse: import data\n",
        "by_semicolon.py": "import os; import data.loader\n",
        "by_comment.py": "x = 1  # later: from data import make_loader\n",
    }
    for name, text in extra.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    graph = _index(tmp_path).graph()
    reaching = [name for name in extra if graph.reaches(str(tmp_path / name))]
    assert reaching == ["by_try.py", "by_else.py", "by_semicolon.py"]


def test_the_answer_does_not_depend_on_the_order_the_files_are_read_in(tmp_path):
    index = _index(tmp_path)
    first = _reaching(index, tmp_path)
    index.imports = dict(reversed(list(index.imports.items())))
    index._graph = None
    assert _reaching(index, tmp_path) == first


def test_a_module_that_reaches_no_worker_api_has_its_functions_left_unsummarized(tmp_path, monkeypatch,
                                                                                 summarized):
    """model.py is checked (a script that starts workers imports it), but only what train.py's flows ask of it is
    summarized: not its `export()`, which nothing hands to a worker."""
    _index(tmp_path)
    (tmp_path / "train.py").write_text(textwrap.dedent('''\
        from torch.utils.data import DataLoader

        from model import build


        def main():
            return DataLoader(build(), num_workers=2, collate_fn=lambda batch: batch)
    '''), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    project = Project()
    assert check_file(str(tmp_path / "model.py"), Job(ALL), project).findings == []
    assert (str(tmp_path / "model.py"), "export") not in summarized
    found = check_file(str(tmp_path / "train.py"), Job(ALL), project).findings
    assert [(f.code, f.line) for f in found] == [("WSP201", 7)]


def test_an_unsaved_text_that_starts_workers_has_its_flows_though_its_file_reaches_none(tmp_path, monkeypatch):
    _index(tmp_path)
    monkeypatch.chdir(tmp_path)
    unsaved = textwrap.dedent('''\
        from torch.utils.data import DataLoader


        def main():
            return DataLoader([1], num_workers=2, collate_fn=lambda batch: batch)
    ''')
    found = check_buffer(str(tmp_path / "model.py"), unsaved, Job(ALL), Project()).findings
    assert [(f.code, f.line) for f in found] == [("WSP201", 5)]


def test_an_unsaved_text_that_imports_a_name_that_reaches_one_has_its_flows_though_its_file_imports_none(
        tmp_path, monkeypatch):
    _index(tmp_path)
    monkeypatch.chdir(tmp_path)
    unsaved = textwrap.dedent('''\
        from data import make_loader


        def main():
            return make_loader([1], collate=lambda batch: batch)
    ''')
    found = check_buffer(str(tmp_path / "model.py"), unsaved, Job(ALL), Project()).findings
    assert [(f.code, f.line) for f in found] == [("WSP201", 5)]
    # (flake8 reading an editor's text from stdin does not say whether it is the file's: it is compared)
    found = check(unsaved, str(tmp_path / "model.py"), ALL, project=Project(), on_disk=None).findings
    assert [(f.code, f.line) for f in found] == [("WSP201", 5)]
    # (the file as it is on disk imports a constant beside the loaders: it reaches none, and has no finding)
    assert check_file(str(tmp_path / "model.py"), Job(ALL), Project()).findings == []
