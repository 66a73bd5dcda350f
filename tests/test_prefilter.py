"""The prefilter never hides a finding: whenever it says no, the full pass finds nothing.

The prefilter is the text test ``may_have_findings`` or, for a file whose own text names no worker API, the
project's (``Project.relevant``: a module around it does).  Checked with every rule enabled and ``# noqa``
ignored, over every fixture, over hand-written near misses of the main guard, and over a fixed sample of the
installed site-packages and standard library (random files, plus files with a main guard: the look-alikes the
prefilter must tell apart).  No timing here.
"""

from __future__ import annotations

import os
import random
import sysconfig
import warnings
from functools import lru_cache

import pytest

from fixture_spec import FIXTURES_DIR, all_fixtures, load_fixture
from winspawn_lint.analysis.prefilter import may_have_findings
from winspawn_lint.analysis.project import Project
from winspawn_lint.pipeline import check
from winspawn_lint.rules import RULES
from winspawn_lint.settings import Settings
from winspawn_lint.io.source import SourceError, read
from winspawn_lint.spawn_apis import from_config

ALL = Settings(select=frozenset(RULES))
SAMPLE_RANDOM = 200
SAMPLE_GUARDED = 100


#: One reader of the project for the whole module (what a run shares): a library's folder is read once.
PROJECT = Project(ALL.registry)


def full_pass(text: str, filename: str, settings: Settings = ALL) -> list:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return check(text, filename, settings, project=PROJECT, noqa=False, prefilter=False).findings


def assert_complete(text: str, filename: str, settings: Settings = ALL) -> bool:
    """The completeness property for one text; returns the prefilter's answer."""
    passes = may_have_findings(text, settings.registry) or PROJECT.relevant(filename)
    if not passes:
        findings = full_pass(text, filename, settings)
        assert findings == [], f"{filename}: the prefilter rejects a file with findings: {findings}"
    return passes


FIXTURE_FILES = sorted(FIXTURES_DIR.glob("*.py"))


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=[p.name for p in FIXTURE_FILES])
def test_fixture(path):
    text = read(str(path)).text
    passes = assert_complete(text, str(path))
    if "# error:" in text:
        assert passes, f"{path.name} expects findings but the prefilter rejects it"


def test_every_fixture_with_expectations_passes_the_prefilter():
    expecting = [load_fixture(p) for p in all_fixtures()]
    expecting = [f for f in expecting if f.expected]
    assert expecting
    rejected = [f.name for f in expecting if not may_have_findings(read(str(f.path)).text, ALL.registry)
                and not PROJECT.relevant(str(f.path))]
    assert rejected == []


GUARD_LOOK_ALIKES = [
    'if __name__ == "main":\n    print(1)\n',
    "if __name__ == '_main_':\n    print(1)\n",
    'if __name__ == "__main":\n    print(1)\n',
    'if __name__ is "__main__":\n    print(1)\n',
    'if "__main__" is __name__:\n    print(1)\n',
    'if "__main__"is __name__:\n    print(1)\n',
    'if __file__ == "__main__":\n    print(1)\n',
    'if __file__ is "main":\n    print(1)\n',
    'if (__name__) == "main":\n    print(1)\n',
    'if (__name__\n        == "main"):\n    print(1)\n',
    'if __name__ \\\n        == "main":\n    print(1)\n',
    'if "main" == __name__:\n    print(1)\n',
    'if __name__ == "__main__" "x":\n    print(1)\n',
    'if (__name__ == "__main__"\n        "x"):\n    print(1)\n',
    'if __name__ == "__main__" if True else "":\n    print(1)\n',
    'if __name__ == u"main":\n    print(1)\n',
]


@pytest.mark.parametrize("text", GUARD_LOOK_ALIKES)
def test_guard_look_alikes_pass_the_prefilter(text):
    assert may_have_findings(text, ALL.registry)
    assert_complete(text, "look_alike.py")


REAL_GUARDS = [
    'if __name__ == "__main__":\n    main()\n',
    "if __name__ == '__main__':\n    main()\n",
    'if __name__ == "__main__" and len(sys.argv) > 1:\n    main()\n',
    'if (__name__ == "__main__"):\n    main()\n',
    'log.info("%s", cls.__name__ == "x")\nif __name__ == "__main__":\n    main()\n',
    'if __name__ != "__main__":\n    raise SystemExit\n',  # WSP102 only in a module that starts workers
]


@pytest.mark.parametrize("text", REAL_GUARDS)
def test_real_guards_without_worker_apis_are_rejected(text):
    assert not assert_complete(text, "no_module_imports_this.py")  # (nor could it reach any worker API)


def test_registry_extensions_pass_the_prefilter():
    settings = Settings(select=frozenset(RULES), extra_apis=from_config([{"name": "mylib.scatter_tasks",
                                                                          "payload": ["fn:0"]}]))
    text = "from mylib import scatter_tasks\nscatter_tasks(lambda x: x, range(3))\n"
    assert not may_have_findings(text, Settings().registry)
    assert may_have_findings(text, settings.registry)
    assert_complete(text, "ext.py", settings)


# Stage 2: a worker-API word counts only where it can name the API -- in an import, after a `.`, or as the
# keyword an API is matched by.  Each text below has a finding and must pass ...
NAMED_WORDS = [
    "from torch.utils.data import DataLoader\nfor b in DataLoader(ds, num_workers=2):\n    pass\n",
    "import torch.utils.data as tud\nfor b in tud.DataLoader(ds, num_workers=2):\n    pass\n",
    "import torch\nfor b in torch.utils.data.  DataLoader(ds, num_workers=2):\n    pass\n",
    "import multiprocessing as mp2\nmp2.Pool(2)\n",
    "import multiprocessing as mp\nmp.Pool(2)\n",
    "try: from multiprocessing import Pool\nexcept ImportError: pass\nPool(2)\n",
    "from multiprocessing import cpu_count, \\\n    Pool\nPool(2)\n",
    "from multiprocessing import cpu_count, \\\r\n    Pool\r\nPool(2)\r\n",
    "from multiprocessing import (\n    cpu_count,  # (not this) we import it below\n    Pool,\n)\nPool(2)\n",
    "from multiprocessing import (cpu_count,\n    Pool as P)\nP(2)\n",
    "def f(ds):\n    return ds.map(lambda x: x, num_proc = 4)\n",
]
# ... and each text below mentions the words only where they cannot name an API: no finding, rejected.
UNNAMED_WORDS = [
    '"""Builds a DataLoader over the Dataset; see Trainer."""\nx = 1\n',
    "# Pool, Process and DataLoader are started by the caller\nx = 1\n",
    "from os import (path,\n    sep)\nclass Process:\n    pass\nProcess()\n",
    "import os\nprint(num_proc == 4, num_proc)\n",
    # a numbered step after a number's dot (diffusers' pipelines: 1,300 files reached a worker API through it)
    "def forward(x):\n    # 7. Process encoder hidden states\n    return x\n",
    "import os\n# 2 .  Pool the features, 3.Process them\nx = 1.5 .real\n",
]


@pytest.mark.parametrize("text", NAMED_WORDS)
def test_words_that_can_name_an_api_pass(text):
    assert may_have_findings(text, ALL.registry)


def test_each_named_word_text_has_a_finding():
    for text in NAMED_WORDS:
        assert full_pass(text, "train.py"), text


@pytest.mark.parametrize("text", UNNAMED_WORDS)
def test_words_that_cannot_name_an_api_are_rejected(text):
    assert not assert_complete(text, "prose.py")


def _library_files() -> list[str]:
    paths = sysconfig.get_paths()
    roots = sorted({paths["purelib"], paths["platlib"], paths["stdlib"]})
    found = []
    for root in roots:
        for directory, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not (
                root == paths["stdlib"] and d == "site-packages"))
            found.extend(os.path.join(directory, name) for name in sorted(files) if name.endswith(".py"))
    return found


@lru_cache(maxsize=1)
def _sample() -> list[tuple[str, str]]:
    """(path, text): SAMPLE_RANDOM random files, plus SAMPLE_GUARDED that compare `__name__` (seed 0)."""
    rng = random.Random(0)
    files = _library_files()
    rng.shuffle(files)
    chosen, guarded = [], []
    for path in files[:4000]:
        if len(chosen) >= SAMPLE_RANDOM and len(guarded) >= SAMPLE_GUARDED:
            break
        try:
            text = read(path).text
        except SourceError:
            continue
        if len(chosen) < SAMPLE_RANDOM:
            chosen.append((path, text))
        elif "__name__" in text and len(guarded) < SAMPLE_GUARDED:
            guarded.append((path, text))
    return chosen + guarded


def test_library_sample():
    sample = _sample()
    assert len(sample) >= SAMPLE_RANDOM
    rejected = 0
    for path, text in sample:
        try:
            passes = assert_complete(text, path)
        except SourceError:
            continue  # does not parse under this Python: nothing to compare
        rejected += not passes
    assert rejected > len(sample) // 2  # most library files cannot hold a finding


def test_sample_has_real_guards_that_are_rejected():
    """The sample exercises the real-guard exemption (otherwise the sweep above would prove little about it)."""
    exempted = [path for path, text in _sample()
                if '__name__ == "__main__"' in text and not may_have_findings(text, ALL.registry)]
    assert len(exempted) >= 10
