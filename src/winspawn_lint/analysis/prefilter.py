"""A text scan that proves a file cannot hold a finding, so it is never analysed.

Every finding needs one of: a worker-starting API named in the registry (its
last name part, which also appears in any import or alias of it),
``set_start_method``, a ``Dataset`` class, joblib's ``Parallel``, or -- for WSP102 alone -- a main
guard that is not the real one.  If the text holds none of these, the full
pass finds nothing: tests/test_prefilter.py checks that over every fixture
and over a site-packages sample.

WSP102 without any worker API needs ``__name__`` or ``__file__`` compared
with ``==`` or ``is`` to a string (see ``guards.broken_guard``; ``!=`` matters
only in a module that starts workers, which the words already let through).
The real guard ``__name__ == "__main__"`` followed by ``:``, ``)``, ``and``
or ``or`` can never be reported, so a file whose only dunder comparisons are
real guards is rejected: most scripts and many library modules end with one.

A word counts only where it can name an API for the analysis (stage 2): after a ``.`` (``mp.Pool``,
``torch.utils.data.DataLoader``), in an import statement (``from torch.utils.data import DataLoader``, also
in a parenthesised or continued list), or, for a keyword the registry matches on (``num_proc``), followed by
``=``.  Name resolution (``analysis/names.py``) gives a bare name a qualified name only through an import,
so a word that is none of these -- in a docstring, a comment, an unrelated local class or variable -- cannot
be an API.  A star import (``import *``) may bind any bare name: a file with one skips this stage.  In ML
repositories this stage rejects about half of the files the words alone let through (``Dataset``,
``Trainer``, ``Process`` in prose).

Speed matters more than elegance here (this runs on every file): one
alternation regex over the whole text is ten times slower than ``in``
scans, so the text is scanned with ``in`` for a few "gate" substrings (the
words that contain no other word: ``Process`` gates ``BaseProcess`` and
``ProcessPoolExecutor``), and a word is confirmed as a whole word only when
its gate is present, by looking at the identifier around each place the gate occurs (a regex
``\b(?:...)\b`` has no literal prefix to search for, so it tries every position: 1.7 ms a file).
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..spawn_apis import Registry

# `Parallel`: joblib's, which starts workers with backend="multiprocessing" (WSP206, in notebooks).
_ALWAYS_WORDS = ("set_start_method", "Dataset", "IterableDataset", "VisionDataset", "Parallel")
#: Gates that also let through any identifier ending with them: a project's own Dataset base class
#: (``class ImageNet22k(ExtendedVisionDataset)``) may make a torch Dataset of a class in this file.
_SUFFIX_GATES = frozenset({"Dataset"})
_SUFFIXES = tuple(sorted(_SUFFIX_GATES))  # (for str.endswith)
_DUNDERS = ("__name__", "__file__")
_WINDOW = 64  # characters looked at on each side of a dunder
_SPACE = " \t\r\n\\()"  # between a dunder and its operator: blanks, line continuations, parentheses
# `__name__ == "__main__"` ending the test or one `and`/`or` operand: the real guard, never a finding.
_REAL_GUARD = re.compile(r"""[ \t]*==[ \t]*(?:"__main__"|'__main__')[ \t]*(?::|\)|and\b|or\b)""")


@lru_cache(maxsize=8)
def _keywords(registry: Registry) -> frozenset[str]:
    """Words that also count as a call's keyword (``num_proc=``): APIs matched by method name and keyword."""
    return frozenset(api.required_keyword for api in registry.apis if api.required_keyword)


@lru_cache(maxsize=8)
def _gates(registry: Registry) -> tuple[tuple[str, frozenset[str]], ...]:
    """(gate substring, every word containing it); every word has a gate.

    A word that is not all word characters (none is today: tokens are identifiers) cannot be found as an
    identifier; it becomes a gate with no words, which its substring alone lets through.
    """
    words = sorted({*registry.tokens(), *_ALWAYS_WORDS})
    odd = [word for word in words if not all(_word_char_at(word, i) for i in range(len(word)))]
    words = [word for word in words if word not in odd]
    gates = [word for word in words if not any(other != word and other in word for other in words)]
    return (*((gate, frozenset(w for w in words if gate in w)) for gate in gates),
            *((word, frozenset()) for word in odd))


def _word_char_at(text: str, index: int) -> bool:
    """Whether ``text[index]`` exists and is what ``\\w`` matches."""
    return 0 <= index < len(text) and (text[index].isalnum() or text[index] == "_")


def _has_word(text: str, gate: str, words: frozenset[str], keywords: frozenset[str], anywhere: bool) -> bool:
    """Whether one of *words* (each containing *gate*) occurs in *text* as a whole word where it can name an
    API (see the module docstring); *anywhere*: wherever it stands (a star import may bind it)."""
    start = text.find(gate)
    while start != -1:
        left, right = start, start + len(gate)
        while _word_char_at(text, left - 1):
            left -= 1
        while _word_char_at(text, right):
            right += 1
        word = text[left:right]
        suffixed = right == start + len(gate) and gate in _SUFFIX_GATES
        if (word in words or suffixed) and (anywhere or _after_dot(text, left) or _in_import(text, left)
                                            or (word in keywords and _keyword_argument(text, right))):
            return True
        start = text.find(gate, right)
    return False


def _after_dot(text: str, start: int) -> bool:
    """Whether the word at *start* follows a ``.`` that may be an attribute access of a name: not one after a
    number (``7. Process the latents``, a numbered step in a comment; ``1 .real`` is the only attribute a
    number's dot can start, and no API is one)."""
    before = text[max(0, start - _WINDOW): start].rstrip(" \t\r\n\\")
    if not before.endswith("."):
        return False
    before = before[:-1].rstrip(" \t\r\n\\")
    left = len(before)
    while _word_char_at(before, left - 1):
        left -= 1
    return not before[left: left + 1].isdigit()


def _keyword_argument(text: str, end: int) -> bool:
    after = text[end: end + _WINDOW].lstrip(" \t\r\n\\")
    return after.startswith("=") and not after.startswith("==")


_IMPORT = re.compile(r"\bimport\b")
_OPEN_LIST = re.compile(r"[ \t\\\r\n]*\(")
_MAX_STEPS = 32  # bounds each backward search; reaching it lets the file through


def _in_import(text: str, start: int) -> bool:
    """Whether the word at *start* may stand in an import statement: ``import`` earlier on its logical line
    (lines joined by a trailing backslash), or after an ``import (`` whose parenthesis is still open."""
    line = text.rfind("\n", 0, start) + 1
    while (line >= 2 and text[line - 2] == "\\") or (line >= 3 and text[line - 3: line - 1] == "\\\r"):
        line = text.rfind("\n", 0, line - 1) + 1
    if _IMPORT.search(text, line, start):
        return True
    end = start
    for _ in range(_MAX_STEPS):
        found = text.rfind("import", 0, end)
        if found == -1:
            return False
        if _OPEN_LIST.match(text, found + 6):
            return not _closed_between(text, found + 6, start)
        end = found  # "import" in a comment, a word or a string: look further back
    return True


def _closed_between(text: str, low: int, high: int) -> bool:
    """Whether a ``)`` outside comments stands in ``text[low:high]``.  One in a string counts too, rightly: no
    string stands in an import list, so the list closed before it."""
    end = high
    for _ in range(_MAX_STEPS):
        close = text.rfind(")", low, end)
        if close == -1:
            return False
        line = text.rfind("\n", 0, close) + 1
        if "#" not in text[line:close]:
            return True
        end = line
    return False


def _operator_after(text: str, end: int) -> bool:
    after = text[end: end + _WINDOW].lstrip(_SPACE)
    if after.startswith("=="):
        return True
    return after.startswith("is") and not _word_char_at(after, 2)


def _operator_before(text: str, start: int) -> bool:
    before = text[max(0, start - _WINDOW): start].rstrip(_SPACE)
    if before.endswith("=="):
        return True
    return before.endswith("is") and not _word_char_at(before, len(before) - 3)


def _compares_dunder(text: str) -> bool:
    """`__name__`/`__file__` compared with `==`/`is` (either order) anywhere, except in the real guard."""
    for dunder in _DUNDERS:
        start = text.find(dunder)
        while start != -1:
            end = start + len(dunder)
            # `cls.__name__` or `py__name__()` is no module-level name: never a guard.
            plain = not (start and (text[start - 1] == "." or _word_char_at(text, start - 1))
                         or _word_char_at(text, end))
            if plain and (_operator_before(text, start) or (
                    _operator_after(text, end) and not (dunder == "__name__" and _REAL_GUARD.match(text, end)))):
                return True
            start = text.find(dunder, end)
    return False


def may_name_api(word: str, registry: Registry) -> bool:
    """Whether the identifier *word* is one the prefilter looks for: a word of the registry (or one ending with
    a suffix gate, ``ImageNetDataset``), or a keyword an API is matched by (``num_proc``)."""
    words, odd = _words(registry)
    return word in words or word.endswith(_SUFFIXES) or any(gate in word for gate in odd)


@lru_cache(maxsize=8)
def _words(registry: Registry) -> tuple[frozenset[str], tuple[str, ...]]:
    """Every word of the registry and keyword, and the gates that have no words (their substring lets through)."""
    return (frozenset(word for _, words in _gates(registry) for word in words) | _keywords(registry),
            tuple(gate for gate, words in _gates(registry) if not words))


def may_have_findings(text: str, registry: Registry) -> bool:
    keywords = _keywords(registry)
    # `from torch.utils.data import *` binds bare names the analysis resolves (names.py follows star imports
    # of modules it knows): then a bare word counts as well.
    anywhere = "import *" in text
    for gate, words in _gates(registry):
        if gate in text and (not words or _has_word(text, gate, words, keywords, anywhere)):
            return True
    return _compares_dunder(text)
