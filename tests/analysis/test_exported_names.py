"""The import graph told name by name: which names of a module that reaches a worker API may lead to one.

Specification: a name imported from a module that reaches a worker API leads to one only when a piece of that
module which binds or fills it may: a piece whose words name an API, that imports a name leading to one, or that
reads a name such a piece binds.  A test suite's helpers module that starts a ``Process`` in one function does not
make every test that imports ``torch_device`` from it reach one, nor every test that imports a mixin from a module
that imports ``torch_device``.  Whatever the reading cannot follow (a star import, ``globals()``, a module
``__getattr__``, a file that does not parse) keeps the file-level answer: every name of the module leads to one.
"""

from __future__ import annotations

import textwrap

import pytest

from winspawn_lint.analysis.exported_names import read_pieces, reaching_names
from winspawn_lint.analysis.importers import scan
from winspawn_lint.analysis.prefilter import may_have_findings, may_name_api
from winspawn_lint.analysis.project import Project
from winspawn_lint.rules import RULES
from winspawn_lint.runner import Job, check_file
from winspawn_lint.settings import Settings
from winspawn_lint.spawn_apis import DEFAULT_REGISTRY

ALL = Settings(select=frozenset(RULES))

HELPERS = textwrap.dedent('''\
    import multiprocessing
    import os

    torch_device = os.environ.get("TEST_DEVICE", "cpu")


    def slow(test):
        return test


    def run_in_subprocess(target, inputs):
        ctx = multiprocessing.get_context("spawn")
        process = ctx.Process(target=target, args=(inputs,))
        process.start()
        process.join()
''')

PROJECT = {
    "pyproject.toml": "",
    "testing_utils.py": HELPERS,
    "common.py": "from testing_utils import torch_device, slow\n\n\nclass TesterMixin:\n"
                 "    device = torch_device\n",
    "common_spawning.py": "from testing_utils import run_in_subprocess\n\n\nclass SpawningMixin:\n"
                          "    def run(self):\n        run_in_subprocess(print, 1)\n",
    "test_device.py": "from testing_utils import torch_device\n",
    "test_mixin.py": "from common import TesterMixin\n\n\nclass TestA(TesterMixin):\n    pass\n",
    "test_spawning.py": "from testing_utils import run_in_subprocess\n",
    "test_spawning_mixin.py": "from common_spawning import SpawningMixin\n",
    "test_module.py": "import testing_utils\n",
}


def _write(root, files):
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def _reaching(root, files, named=True):
    _write(root, files)
    index = scan(str(root), lambda text: may_have_findings(text, DEFAULT_REGISTRY), None,
                 (lambda word: may_name_api(word, DEFAULT_REGISTRY)) if named else None)
    graph = index.graph()
    return sorted(str(path.relative_to(root)) for path in sorted(root.rglob("*.py")) if graph.reaches(str(path)))


def test_only_the_names_that_lead_to_a_worker_api_reach_one(tmp_path):
    assert _reaching(tmp_path, PROJECT) == [
        "common_spawning.py", "test_module.py", "test_spawning.py", "test_spawning_mixin.py", "testing_utils.py"]


def test_without_the_prefilters_words_every_name_of_a_reaching_module_reaches_one(tmp_path):
    assert _reaching(tmp_path, PROJECT, named=False) == sorted(
        name for name in PROJECT if name.endswith(".py"))


# Each helpers module below binds or fills `thing` where a worker API may reach it: importing it reaches one.
REACHING_THING = {
    "filled by a function": "from multiprocessing import Pool\nthing = {}\n\n\ndef setup():\n"
                            "    thing['pool'] = Pool(2)\n",
    "filled by a method call": "from multiprocessing import Pool\nthing = []\n\n\ndef setup():\n"
                               "    thing.append(Pool(2))\n",
    "filled by setattr": "import multiprocessing as mp\nthing = object()\n\n\ndef setup():\n"
                         "    setattr(thing, 'pool', mp.Pool(2))\n",
    "bound through global": "from multiprocessing import Pool\nthing = None\n\n\ndef setup():\n"
                            "    global thing\n    thing = Pool(2)\n",
    "bound in an if body": "import os\nfrom multiprocessing import Pool\nif os.environ:\n    thing = Pool\n",
    "a subclass": "from torch.utils.data import DataLoader\n\n\nclass Base(DataLoader):\n    pass\n\n\n"
                  "class thing(Base):\n    pass\n",
    "through a chain of names": "import torch.utils.data as tud\nmaker = tud.DataLoader\nfactory = maker\n\n\n"
                                "def thing(data):\n    return factory(data, num_workers=2)\n",
    "by a string naming it": "import sys\nfrom multiprocessing import Pool\n\n\ndef pool():\n    return Pool(2)\n\n\n"
                             "def thing():\n    return getattr(sys.modules[__name__], 'pool')()\n",
    "a star import": "from multiprocessing import Pool\nfrom os.path import *\n\n\ndef thing():\n    pass\n",
    "globals()": "from multiprocessing import Pool\nglobals()['thing'] = Pool\n\n\ndef thing():\n    pass\n",
    "a module __getattr__": "from multiprocessing import Pool\n\n\ndef thing():\n    pass\n\n\n"
                            "def __getattr__(name):\n    return Pool\n",
    "a walrus in a comprehension": "from multiprocessing import Pool\n[thing := Pool for _ in range(1)]\n",
    "imported from a module that reaches one": "from loaders import make\n\n\ndef thing():\n    return make()\n",
    "a syntax error": "from multiprocessing import Pool\n\n\ndef thing(:\n    pass\n",
}
LOADERS = "from torch.utils.data import DataLoader\n\n\ndef make():\n    return DataLoader([], num_workers=2)\n"


@pytest.mark.parametrize("helpers", REACHING_THING.values(), ids=REACHING_THING.keys())
def test_a_name_that_a_worker_api_may_reach_reaches_one(tmp_path, helpers):
    files = {"pyproject.toml": "", "helpers.py": helpers, "loaders.py": LOADERS,
             "user.py": "from helpers import thing\n"}
    assert "user.py" in _reaching(tmp_path, files)


# ... and each below binds `thing` apart from the worker API it names: importing it reaches none.
CLEAN_THING = {
    "a constant beside a loader": "from torch.utils.data import DataLoader\nthing = 3\n\n\n"
                                  "def loader(data):\n    return DataLoader(data, num_workers=thing)\n",
    "a local of the function that starts workers": "from multiprocessing import Pool\n\n\ndef run():\n"
                                                   "    thing = Pool(2)\n    return thing\n\n\nthing = 'cpu'\n",
    "an if test that calls a worker API": "from multiprocessing import Pool\nif Pool:\n    thing = 1\n",
    "a dynamic import of a name made at run time": (
        "import importlib\nimport os\nfrom multiprocessing import Pool\n"
        "thing = importlib.import_module(os.environ['X'])\n"),
    "a method named like a built-in": "from multiprocessing import Pool\n\n\nclass thing:\n"
                                      "    def run(self, model):\n        return model.eval()\n",
}


@pytest.mark.parametrize("helpers", CLEAN_THING.values(), ids=CLEAN_THING.keys())
def test_a_name_bound_apart_from_the_worker_api_reaches_none(tmp_path, helpers):
    files = {"pyproject.toml": "", "helpers.py": helpers, "user.py": "from helpers import thing\n"}
    assert _reaching(tmp_path, files) == ["helpers.py"]


def test_a_module_read_in_pieces_names_what_each_piece_binds():
    read = read_pieces(HELPERS, lambda word: may_name_api(word, DEFAULT_REGISTRY))
    assert read.defined == {"torch_device", "slow", "run_in_subprocess"}
    assert reaching_names(read, lambda entry: False) == {"run_in_subprocess"}
    # (an import that leads to an API marks the names that read it)
    assert reaching_names(read, lambda entry: entry[0] == "os") >= {"os", "torch_device"}


def test_a_test_importing_only_clean_helpers_is_not_analysed_for_flows(tmp_path, monkeypatch, summarized):
    """The project run finds the same findings with fewer files summarized: test_device.py is not a flow's
    module, so its check summarizes nothing of it."""
    test = "from testing_utils import torch_device\n\n\ndef test_it():\n    return torch_device\n"
    _write(tmp_path, {**PROJECT, "test_device.py": test})
    monkeypatch.chdir(tmp_path)
    project = Project()
    assert check_file(str(tmp_path / "test_device.py"), Job(ALL), project).findings == []
    assert (str(tmp_path / "test_device.py"), "test_it") not in summarized


def test_an_import_of_several_names_is_told_apart_name_by_name(tmp_path):
    """helpers.py imports `make` (which leads to a DataLoader) and `MEAN` in one statement: `normalize`, which
    reads only `MEAN`, leads to none."""
    files = {"pyproject.toml": "", "loaders.py": LOADERS + "\n\nMEAN = 0.5\n",
             "helpers.py": "from torch.utils.data import DataLoader\nfrom loaders import make, MEAN\n\n\n"
                           "def normalize(x):\n    return x - MEAN\n\n\ndef build():\n    return make()\n",
             "uses_normalize.py": "from helpers import normalize\n", "uses_build.py": "from helpers import build\n"}
    assert _reaching(tmp_path, files) == ["helpers.py", "loaders.py", "uses_build.py"]
