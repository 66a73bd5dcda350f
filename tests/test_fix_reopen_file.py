"""WSP301's fix for a file opened with ``open()``: the class gets ``__getstate__``/``__setstate__`` that send the
file's name and position and reopen it -- and, whenever that is not clearly right, no fix and a note saying why.

The runnable before/after pairs are ``tests/fixtures/wsp301_open_file*.py`` (run under spawn by
tests/test_runtime.py); here each declined shape, the resources that get no fix, and the reopened copies
themselves (pickled and unpickled in this process).
"""

from __future__ import annotations

import pickle
import sys
import textwrap
import types

import pycodestyle
import pytest

from winspawn_lint import check_text, rules
from winspawn_lint import fix_text
from winspawn_lint.rules import RULES, FixSafety
from winspawn_lint.settings import Settings

ALL = Settings(select=frozenset(RULES))

#: a Dataset whose ``__init__`` is ``{init}`` (other methods: ``{methods}``), sent to DataLoader workers
TEMPLATE = '''\
import multiprocessing
import threading

from torch.utils.data import DataLoader, Dataset
{imports}

class Rows({base}):
    def __init__(self, path, mode="r", newline=None, handler="strict"):
{init}
{methods}
    def __len__(self):
        return 1

    def __getitem__(self, i):
        return i


def main():
    print(list(DataLoader(Rows("rows.txt"), num_workers=2)))


if __name__ == "__main__":
    multiprocessing.freeze_support()
    main()
'''


def _source(init: str, methods: str = "", base: str = "Dataset", imports: str = "") -> str:
    return TEMPLATE.format(init=textwrap.indent(textwrap.dedent(init).strip("\n"), " " * 8),
                           methods=textwrap.indent(textwrap.dedent(methods).strip("\n"), " " * 4) + "\n" if methods
                           else "", base=base, imports=imports + "\n" if imports else "")


def _wsp301(text: str) -> list:
    return [f for f in check_text(text, "train.py", ALL) if f.rule is rules.WSP301]


DECLINED = {
    "append mode": ('self.log = open(path, "a")', "", "opened for writing (mode 'a')"),
    "read and update mode": ('self.f = open(path, "r+")', "", "opened for writing (mode 'r+')"),
    "mode not a literal": ("self.f = open(path, mode)", "", "its mode is not a literal"),
    "newline not a literal": ("self.f = open(path, newline=newline)", "", "its `newline` is not a literal"),
    "an opener": ("self.f = open(path, opener=None or print)", "", "it passes an `opener`"),
    "a file descriptor": ("self.f = open(0)", "", "a file descriptor, not a path"),
    "the descriptor of another file": ("self.f = open(threading.__file__.fileno())", "", "file descriptor"),
    "arguments unpacked": ("self.f = open(*[path])", "", "unpacked with `*` or `**`"),
    "closed in __init__": ("self.f = open(path)\nself.words = self.f.read().split()\nself.f.close()", "",
                           "the file is closed at line"),
    "closed by a with block": ("self.f = open(path)\nwith self.f:\n    self.words = self.f.read().split()", "",
                               "the file is closed at line"),
    "assigned again elsewhere": ("self.f = open(path)", "def reset(self):\n    self.f = None\n",
                                 "`f` is also assigned or deleted at line"),
    "deleted elsewhere": ("self.f = open(path)", "def drop(self):\n    del self.f\n", "also assigned or deleted"),
    "already defines __setstate__": ("self.f = open(path)",
                                     "def __setstate__(self, state):\n    self.__dict__.update(state)\n",
                                     "already defines `__setstate__`"),
    "__slots__": ("self.f = open(path)", "__slots__ = ('f', '__dict__')\n", "already defines `__slots__`"),
    "a lock beside the file": ("self.f = open(path)\nself.lock = threading.Lock()", "",
                               "also holds `self.lock`, which reopening cannot restore"),
    "a base class from elsewhere": ("self.f = open(path)", "", "its base `Base` is defined elsewhere"),
}


@pytest.mark.parametrize("name", DECLINED)
def test_declined_shapes_keep_the_finding_with_a_note_naming_the_reason(name):
    init, methods, reason = DECLINED[name]
    base, imports = ("Base", "from library import Base") if "base class" in name else ("Dataset", "")
    text = _source(init, methods, base, imports)
    assert _wsp301(text), f"{name}: the fixture text has no WSP301 to fix"
    outcome = fix_text(text, "train.py", ALL, unsafe=True)
    assert outcome.text == text
    assert any(f.rule is rules.WSP301 for f in outcome.remaining)
    assert " WSP301 not fixed: " in (outcome.note or "") and reason in outcome.note, outcome.note


def test_a_subclass_that_sets_its_own_state_is_declined():
    text = _source("self.f = open(path)", base="Dataset").replace("class Rows(Dataset):", "class Base(Dataset):")
    text = text.replace("\n\ndef main():", """

class Rows(Base):
    def __setstate__(self, state):
        self.__dict__.update(state)


def main():""")
    assert _wsp301(text)
    outcome = fix_text(text, "train.py", ALL, unsafe=True)
    assert outcome.text == text and "`Rows` already defines `__setstate__`" in (outcome.note or ""), outcome.note


@pytest.mark.parametrize("init", [
    "self.db = h5py.File(path)", "self.env = lmdb.open(path)", "self.conn = sqlite3.connect(path)",
    "self.lock = threading.Lock()", "self.archive = gzip.open(path)",
])
def test_other_resources_have_no_fix_and_no_fix_marker(init):
    text = _source(init, imports="import gzip\nimport sqlite3\n\nimport h5py\nimport lmdb")
    (finding,) = _wsp301(text)
    assert finding.safety is FixSafety.NONE
    assert not finding.fix_hint
    assert fix_text(text, "train.py", ALL, unsafe=True).text == text


def test_the_rule_is_an_unsafe_fix_only_for_open_files():
    text = _source("self.f = open(path)")
    (finding,) = _wsp301(text)
    assert RULES["WSP301"].fix_safety is FixSafety.UNSAFE and finding.safety is FixSafety.UNSAFE
    assert fix_text(text, "train.py", ALL, unsafe=False).text == text  # plain --fix leaves it


def test_a_lambda_beside_the_file_is_hoisted_first_then_the_file_is_fixed():
    outcome = fix_text(_source("self.f = open(path)\nself.key = lambda row: row"), "train.py", ALL, unsafe=True)
    assert "def _key(row):" in outcome.text and "def __getstate__(self):" in outcome.text
    assert not outcome.remaining, outcome.note


def _style_errors(text: str) -> int:
    return pycodestyle.Checker(lines=text.splitlines(True), quiet=True).check_all()


def _fixed_class(init: str, methods: str = ""):
    """The fixed module's ``Rows`` class, imported as a module (torch's Dataset stands in as object)."""
    text = _source(init, methods)
    outcome = fix_text(text, "train.py", ALL, unsafe=True)
    assert not _wsp301(outcome.text), outcome.note
    assert "__getstate__" in outcome.text
    assert _style_errors(outcome.text) == _style_errors(text), outcome.text  # pycodestyle finds nothing new
    module = types.ModuleType("reopen_file_fixed")
    body = outcome.text.split("def main():")[0].replace("from torch.utils.data import DataLoader, Dataset",
                                                        "Dataset = object")
    sys.modules[module.__name__] = module  # pickle finds the class by module and name
    exec(compile(body, "train.py", "exec"), module.__dict__)
    return module.Rows, outcome.text


def test_a_text_file_reopens_at_its_position_with_the_same_encoding_and_handler(tmp_path):
    path = tmp_path / "rows.txt"
    path.write_text("héllo\r\nwörld\r\n日本\r\n", encoding="utf-16")
    rows, _ = _fixed_class('self.f = open(path, encoding="utf-16", errors=handler, newline="")\nself.f.readline()')
    original = rows(str(path), handler="replace")
    copy = pickle.loads(pickle.dumps(original))
    assert copy.f is not original.f
    assert (copy.f.encoding, copy.f.errors) == ("utf-16", "replace")
    assert copy.f.read() == original.f.read() == "wörld\r\n日本\r\n"  # newline="" kept the \r\n


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "latin-1", "cp1252"])
@pytest.mark.parametrize("newline", ['""', "None", '"\\r\\n"'])
def test_text_tell_cookies_are_valid_on_the_reopened_file(tmp_path, encoding, newline):
    """A text file's ``tell()`` is an opaque cookie (decoder state included): sent at every line of a file with
    multi-byte characters and CRLF line ends, it seeks the reopened copy to the same place."""
    path = tmp_path / "rows.txt"
    path.write_bytes("naïve\r\ncafé\r\nüber\r\nend\r\n".encode(encoding))
    rows, _ = _fixed_class(f'self.f = open(path, encoding="{encoding}", newline={newline}, buffering=64)')
    for lines in range(5):
        original = rows(str(path))
        for _ in range(lines):
            original.f.readline()
        copy = pickle.loads(pickle.dumps(original))
        assert copy.f.read() == original.f.read()


def test_a_binary_file_and_a_private_attribute(tmp_path):
    path = tmp_path / "blob.bin"
    path.write_bytes(bytes(range(10)))
    rows, text = _fixed_class('self.__blob = open(path, "rb")\nself.__blob.seek(3)',
                              "def rest(self):\n    return self.__blob.read()\n")
    assert '"rb"' in text and "_Rows__blob" in text
    copy = pickle.loads(pickle.dumps(rows(str(path))))
    assert copy.rest() == bytes(range(3, 10))


def test_a_file_closed_before_pickling_arrives_closed(tmp_path):
    path = tmp_path / "rows.txt"
    path.write_text("a\n")
    rows, _ = _fixed_class("self.f = open(path)")
    original = rows(str(path))
    original.f.close()  # by code this module does not show (the codemod declines a close it can see)
    copy = pickle.loads(pickle.dumps(original))
    assert copy.f.closed and copy.f.name == str(path)


def test_long_names_are_wrapped_within_the_line_limit():
    init = "self.tokenised_training_examples_handle = open(path, encoding=None, errors=None)"
    _, text = _fixed_class(init)
    added = set(text.splitlines()) - set(_source(init).splitlines())
    assert max(len(line) for line in added) <= 79, "\n".join(added)


def test_a_resource_with_no_fix_has_no_fix_marker_from_the_cache_either(tmp_path, monkeypatch, capsys):
    from winspawn_lint import cli
    from winspawn_lint.io import cache

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path / "cache"))
    (tmp_path / "train.py").write_text(_source("self.db = h5py.File(path)", imports="import h5py"))
    outputs = []
    for _ in range(2):  # the second run answers from the results cache
        assert cli.main(["--isolated", "--unsafe-fixes", "train.py"]) == 1
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] and "WSP301 `self.db`" in outputs[0] and "[*]" not in outputs[0]
    assert any((tmp_path / "cache").glob("results-*/*.json"))
