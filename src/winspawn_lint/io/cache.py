"""The results cache: a rerun re-checks only the files that changed (on by default, as ruff's; ``--no-cache``).

One directory per settings digest in the cache directory (``.winspawn_lint_cache/`` at the project root, or
the ``cache-dir`` setting, or ``WINSPAWN_LINT_CACHE_DIR``), its entries split into :data:`SHARDS` JSON files by
a hash of the checked file's absolute path (:func:`shard_of`): a run reads a shard when it first looks up a
file of it and writes only the shards it changed, so a run that checks one file (an editor's save, pre-commit
passing a few) reads and writes a few kilobytes, not the entries of the whole tree.  The digest covers
everything that changes a file's findings other than the file itself: the settings that affect findings, the
registry, the winspawn-lint version and its own source files (an editable install changes without a version
bump), and the Python version (the parser).  Per file, an entry holds:

- the file's size and ``st_mtime_ns`` when it was read: an equal pair is a hit without reading the file;
- a hash of its bytes: when size or mtime differ (a ``git checkout``, a ``touch``), equal bytes still hit;
- whether it was parsed (a file named on the command line must be, to report a syntax error);
- its findings, and the files its findings and fixes depend on (every file the project reader,
  :class:`winspawn_lint.analysis.project.Project`, read or looked for while checking it), each with its own
  size and mtime: any change there is a miss; a file only looked for and found (the import search's probes)
  is recorded as :data:`PRESENT_FILE` or :data:`PRESENT`, so an edit of it is not a miss, only its
  disappearance; the paths looked for and not found, by the folder that holds them (with the folder's mtime:
  while it keeps it, they are still missing, else each is looked for), so that the import search's probes of
  every library name do not make most of the cache; and the derived facts it used (which files of the project
  import the module), each with its digest, recomputed when looked up;
- what ``--fix``/``--diff`` made of it, per fix request (:func:`fix_key`: safe or unsafe, and the fixes' grade
  for this file, which depends on other files and is recomputed every run): the fixed text as line edits, the
  fixer's note and its findings.  A rerun of ``--diff``, or of ``--fix`` on a file whose fixes were declined,
  then costs what a check costs instead of a libcst run per file.

Beside the entries, a check of many files keeps one record per run (:class:`RunInputs`, up to
:data:`MAX_RUN_RECORDS`): each file's findings as reported and what they depend on (its entry's dependencies,
missing paths and derived facts, the regrade's reads), in tables that each file points into, and the folders and
files the project searches behind the derived facts listed and read.  The next run of the same files asks only
the file system whether each row still holds (:meth:`ResultsCache.recall_run`); if all do, no shard, source file
or project is read; if some do not, the files whose findings depended on none of them are still answered from
the record, and only the others are looked up (an edit of a module most files import looks up the files that
used what changed in it, not every file).

Correctness over speed where they meet: an mtime within :data:`.stamps.RACY_NS` of the time it was recorded is
not trusted (a file rewritten within the same timestamp tick with the same size would otherwise hit), so
that entry is confirmed by its hash next time.  A file with an error is never stored.  Readers never
trust a shard: one that is unreadable, truncated, foreign or from another format counts as empty (its files
are checked again and the shard rewritten), the other shards still answer.  Writers take a lock, one writer
at a time per digest, and replace each shard atomically (a temporary file and ``os.replace``), merged with
what other runs wrote to it meanwhile, so concurrent runs (pre-commit, editors) keep each other's entries; a
lock not granted within :data:`_LOCK_WAIT` (a stopped process holds it, a file system without locks) is
done without, where a concurrent write can lose an entry but never corrupt a shard.  A ``-j`` run's workers
never touch the cache: they hand their entries to the parent, which stores them.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import time
from typing import Any, Callable, Iterable, Iterator, Optional

from ..__version__ import __version__
from ..records import Record
from .stamps import PRESENCE, Stamp, blake2b, content_hash, folder_mtime, observe, same, stat_stamp, still, too_recent

CACHE_DIR_NAME = ".winspawn_lint_cache"
ENV_VAR = "WINSPAWN_LINT_CACHE_DIR"
FORMAT = 17  # 3: a finding's own fix safety (WSP301 with no fix) is stored; 4: fix outcomes; 5: notebook cells;
# 6: derived facts; 7: unsafe-fixes left out of the settings digest; 8: respect-gitignore left out of it too;
# 9: a finding's fix safety as the fixer plans it on the text (none, or unsafe for a rule graded safe);
# 10: the results in shards, a directory per digest (the single files of formats before it are removed);
# 11: the scan memory keeps each file's imports (module, name, bound name) and top-level names;
# 12: the paths looked for and not found are kept by the folder that holds them, with its mtime;
# 13: the scan memory kept per project root, in the digest's directory (a shared cache directory held every
# project's records in one file, which each run read whole); 14: a dependency's stamp as one string, "size/mtime",
# and the names missing from a folder as one, joined by "/" (a name in a folder has none): JSON makes one object
# of each, not three or one per name, and a warm run over the ML corpus decoded its 38 MB of entries in 0.48 s,
# 0.10 s now; 15: a dependency whose mtime was too recent to trust is kept by its content, "size/#digest";
# 16: the import graph's answers are kept with the names it asked about, not with every file's names; 17: a run's
# record says which files' findings depend on which of its rows
#: how many shards a digest's results are split into: on the ML corpus's 590 files (25 MB of entries, ~540
#: dependency records each) a shard holds 2-3 entries, ~100 KB, what a one-file run reads; a whole-tree run
#: opens 256 small files instead of one large one, a few ms (measured: see the commit that introduced them)
SHARDS = 256
#: the files of the single-file layout (formats before 10) and the scan memories beside the shard directories
#: (formats before 13), removed when a digest's shard directory is created
_OLD_LAYOUT = re.compile(r"(?:results|scan)-([0-9]+)-[0-9a-f]+\.json")
#: how long a writer waits for another's lock before writing without it (a bound, never a hang)
_LOCK_WAIT = 5.0
#: settings fields that never change a file's findings (which files are walked; where the cache is; whether
#: unsafe fixes apply, which fix outcomes record in their own key)
_NOT_IN_KEY = frozenset({"exclude", "extend_exclude", "respect_gitignore", "cache_dir", "unsafe_fixes"})


# ---------------------------------------------------------------- keys


def _stable(value: Any) -> Any:
    """A JSON-able form of *value* that does not depend on hash seeds or insertion order of sets."""
    if isinstance(value, Record):
        return [type(value).__name__, {name: _stable(getattr(value, name)) for name in value._fields}]
    if isinstance(value, (set, frozenset)):
        return sorted((_stable(v) for v in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [_stable(v) for v in value]
    if isinstance(value, dict) or hasattr(value, "items"):
        return sorted(([_stable(k), _stable(v)] for k, v in value.items()), key=repr)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    # A sentinel's default repr holds its address, which differs in every process.
    return re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))


def _own_sources() -> list[Any]:
    """Size and mtime of every module of winspawn_lint: a changed checkout invalidates the cache."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the package, not this io/ subpackage
    found = []
    for directory, dirs, files in os.walk(here):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".py", ".md")):
                st = os.stat(os.path.join(directory, name))
                found.append([os.path.relpath(os.path.join(directory, name), here), st.st_size, st.st_mtime_ns])
    return found


def settings_digest(settings: Any) -> str:
    """A stable digest of everything besides a file's own bytes that its findings depend on."""
    fields = {name: _stable(getattr(settings, name)) for name in settings._fields if name not in _NOT_IN_KEY}
    payload = {
        "format": FORMAT, "version": __version__, "python": list(sys.version_info[:2]),
        "settings": fields, "registry": _stable(settings.registry.apis), "code": _own_sources(),
    }
    return blake2b(json.dumps(payload, sort_keys=True).encode(), digest_size=32).hexdigest()


def cache_directory(settings: Any, cwd: Optional[str] = None) -> str:
    """``WINSPAWN_LINT_CACHE_DIR``, else the ``cache-dir`` setting, else ``.winspawn_lint_cache`` at the
    project root (the configuration file's directory, else the current directory)."""
    root = getattr(settings, "root", None) or cwd or os.getcwd()
    chosen = os.environ.get(ENV_VAR) or getattr(settings, "cache_dir", None)
    return os.path.abspath(os.path.join(root, chosen)) if chosen \
        else os.path.join(os.path.abspath(root), CACHE_DIR_NAME)


# ---------------------------------------------------------------- the cache


class Entry(Record):
    """What is stored for one file (see the module docstring)."""

    __slots__ = ("stamp", "digest", "parsed", "findings", "dependencies", "fixes", "derived", "absent")

    def __init__(self, stamp: Optional[Stamp], digest: str, parsed: bool, findings: list,
                 dependencies: Optional[dict[str, Any]] = None, fixes: Optional[dict[str, Any]] = None,
                 derived: Optional[dict[str, str]] = None,
                 absent: Optional[dict[str, tuple[Optional[int], str]]] = None) -> None:
        self.stamp = stamp
        self.digest = digest
        self.parsed = parsed
        #: [code, line, col, end_line, end_col, args, platforms, fix safety or None, cell or None] each
        self.findings = findings
        #: path -> its stamp (this run's), or as the cache file has it ("size/mtime" or None: see _stamp),
        #: checked when looked up
        self.dependencies = dependencies if dependencies is not None else {}
        #: fix_key(...) -> encode_fix(...) of what --fix/--diff made of this text (decoded lazily, checked then)
        self.fixes = fixes if fixes is not None else {}
        #: derived fact -> its digest when the file was checked (Project.derived)
        self.derived = derived if derived is not None else {}
        #: the paths looked for and not found (most of what a check reads: the import search's probes of every
        #: library name in every folder of the search path), by the nearest folder that exists: folder -> (its
        #: mtime then, None if too recent to trust; the names in it that each begins with, joined by "/").  While
        #: a folder keeps its mtime its entries are the same, so they are still missing; when it changes, the
        #: names are looked for again (``torch`` for ``torch/utils/data.py``: while there is no ``torch``, there
        #: is no file in it).
        self.absent = absent if absent is not None else {}

    def to_json(self) -> list:
        stamp = list(self.stamp) if self.stamp else None
        return [stamp, self.digest, self.parsed, self.findings,
                {path: _encode_stamp(s) for path, s in self.dependencies.items()}, self.fixes, self.derived,
                {folder: [mtime, names] for folder, (mtime, names) in self.absent.items()}]

    @classmethod
    def from_json(cls, data: Any) -> "Entry":
        stamp, digest, parsed, findings, dependencies, fixes, derived, absent = data
        if not (isinstance(digest, str) and isinstance(parsed, bool) and isinstance(findings, list)
                and isinstance(dependencies, dict) and isinstance(fixes, dict) and isinstance(derived, dict)
                and isinstance(absent, dict)):
            raise ValueError("malformed entry")
        for folder, group in absent.items():
            if not (isinstance(group, list) and len(group) == 2 and (group[0] is None or isinstance(group[0], int))
                    and isinstance(group[1], str) and group[1]):
                raise ValueError("malformed absent paths")
        for row in findings:
            if not (isinstance(row, list) and len(row) == 9 and isinstance(row[0], str)
                    and all(isinstance(v, int) for v in row[1:5]) and isinstance(row[5], dict)
                    and (row[6] is None or isinstance(row[6], list)) and row[7] in (None, "none", "unsafe")
                    and (row[8] is None or isinstance(row[8], int))):
                raise ValueError("malformed finding")
        # (the dependencies as read: ~500 per entry, each checked when looked up, see _dependencies_unchanged)
        return cls(_stamp(stamp), digest, parsed, findings, dependencies, fixes,
                   {str(k): str(v) for k, v in derived.items()},
                   {folder: (mtime, names) for folder, (mtime, names) in absent.items()})

    def __getstate__(self) -> dict:
        return {name: getattr(self, name) for name in self._fields}

    def __setstate__(self, state: dict) -> None:
        # An entry from a -j N worker: its dependency paths interned here, as new_entry interns them there.
        state["dependencies"] = {sys.intern(dep): stamp for dep, stamp in state["dependencies"].items()}
        for name, value in state.items():
            setattr(self, name, value)


def _stamp(value: Any) -> Optional[Stamp]:
    """A stamp as recorded: None, ``[size, mtime]`` (an entry's own), or a dependency's ``"size/mtime"`` (mtime
    empty when None) or ``"size/#digest"`` (:func:`.stamps.content_stamp`)."""
    if value is None:
        return None
    if isinstance(value, str):
        found = _STAMP_TEXT.fullmatch(value)
        if found is None:
            raise ValueError("malformed stamp")
        return (int(found.group(1)), int(found.group(2)) if found.group(2) else found.group(3))
    if not isinstance(value, (list, tuple)):
        raise ValueError("malformed stamp")
    size, mtime = value
    if not isinstance(size, int) or not (mtime is None or isinstance(mtime, int)):
        raise ValueError("malformed stamp")
    return (size, mtime)


_STAMP_TEXT = re.compile(r"(-?[0-9]+)/(?:(-?[0-9]+)|#([0-9a-f]+))?")


def _encode_stamp(stamp: Any) -> Optional[str]:
    """A dependency's stamp as the cache file keeps it (one JSON string, not a list of two numbers: see FORMAT 14);
    one read from the file is kept as it is."""
    if stamp is None or isinstance(stamp, str):
        return stamp
    size, mtime = stamp
    return f"{size}/{'' if mtime is None else (f'#{mtime}' if isinstance(mtime, str) else mtime)}"


def encode_findings(findings: list) -> list:
    from ..rules import FixSafety

    # The safety the check and the fixer's plan give a finding on this text is stored (no fix, or an unsafe one
    # where the rule's is safe); the per-file regrade of the main-guard wrap is not (it depends on other files:
    # the command line redoes it for each run, and it grades only what the plan left fixable).
    return [[f.code, f.line, f.col, f.end_line, f.end_col, {str(k): str(v) for k, v in f.args.items()},
             list(f.platforms) if f.platforms is not None else None,
             f.fix_safety.value if f.fix_safety is FixSafety.NONE
             or (f.fix_safety is FixSafety.UNSAFE and f.rule.fix_safety is FixSafety.SAFE) else None, f.cell]
            for f in findings]


def decode_findings(rows: list) -> list:
    from ..finding import Finding
    from ..rules import RULES, FixSafety

    unknown = [row[0] for row in rows if row[0] not in RULES]
    if unknown:
        raise ValueError(f"unknown code {unknown[0]!r}")  # not ours: the entry is a miss
    return [Finding(code, line, col, end_line, end_col, args,
                    platforms=tuple(platforms) if platforms is not None else None,
                    fix_safety=FixSafety(safety) if safety is not None else None, cell=cell)
            for code, line, col, end_line, end_col, args, platforms, safety, cell in rows]


# ---------------------------------------------------------------- a run's record


#: run records kept per digest, the most recently used: each is what one list of files (a tree, pre-commit's
#: files) needs, and another list writes its own
MAX_RUN_RECORDS = 8
#: a recorded finding's fields: those of an entry's (:func:`encode_findings`), with the fix safety as the run
#: graded it for the file (the per-file regrade included)
_RUN_ROW = 9


def run_key(roots: list[str], request: list) -> str:
    """The key of the record of a run of the command on *roots* (the paths it was given, absolute, in order: which
    files it checks, and which of them it found by walking a folder and need not parse, follow from them and the
    tree) for *request* (what else decides its findings: unsafe fixes, the fix plan).  A file added to the tree,
    or removed, is a change the record answers around (:meth:`ResultsCache.recall_run`), not another run."""
    payload = json.dumps([request, roots])
    return blake2b(payload.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


class RunInputs:
    """Everything the findings of one run of many files depend on, gathered as the run goes, file by file: each
    file's findings as reported, and what they depend on: every path its check read or looked for with what was
    seen of it, the paths looked for and not found (by folder), and the derived facts used, whose projects'
    searches (:meth:`Project.search_inputs <winspawn_lint.analysis.project.Project.search_inputs>`) say what they
    were found from.  While all of it holds, the same run reports the same findings: the next run checks that (a
    stat of each path, no shard or source read) instead of looking each file up, and after an edit looks up only
    the files whose findings depended on what changed (:meth:`ResultsCache.recall_run`).  Incomplete (nothing is
    recorded) as soon as anything cannot be trusted: a file checked without an entry (an error, a fix), an mtime
    too recent."""

    __slots__ = ("complete", "findings", "uses", "derived", "folders", "searched", "proven", "kept", "base", "same")

    def __init__(self, same: Optional[Callable[[str, str, str], Optional[str]]] = None) -> None:
        self.complete = True
        #: of two digests of one derived fact, each found to hold, the one to keep when both say the same, else
        #: None (``Project.same_derived``: a fact of one file known by its content in one, by its mtime in the other)
        self.same = same
        #: each file's absolute path -> its findings (:data:`_RUN_ROW` fields each)
        self.findings: dict[str, list] = {}
        #: each file -> what its findings depend on: groups of (path, its record as an entry keeps it: its stamp,
        #: its presence, None for missing), the paths missing (folder, its mtime or None, the names missing in it
        #: joined by "/"), the derived facts
        self.uses: dict[str, tuple[list[Iterable[tuple[str, Any]]], set[tuple[str, Optional[int], str]],
                                   Iterable[str]]] = {}
        #: derived fact -> the digest the findings were found with
        self.derived: dict[str, str] = {}
        #: each folder the searches behind the derived facts listed -> its mtime, and each file they read with its
        #: record (:meth:`search`): while these hold, every derived fact has its digest
        self.folders: dict[str, int] = {}
        self.searched: list[Iterable[tuple[str, Any]]] = []
        #: the derived facts that an earlier record's searches, found to hold, prove (:meth:`RunRecall.carry`)
        self.proven: set[str] = set()
        #: the files an earlier record answered for (:meth:`RunRecall.carry`) -> their uses as that record has
        #: them, masks of the rows of its tables (*base*: its files, missing paths and derived facts), read only
        #: when this run's record is written (after an edit that leaves an mtime too recent, it is not)
        self.kept: dict[str, tuple[str, str, str]] = {}
        self.base: tuple[list, list, list] = ([], [], [])

    def add(self, path: str, entry: Optional[Entry], findings: list, reads: Any = None) -> None:
        """A file of the run: its entry (found valid by its lookup, or made by its check), its *findings* as
        reported, and what the run read for them besides the entry (*reads*: the regrade of a hit's fixes)."""
        if entry is None or entry.stamp is None or entry.stamp[1] is None:
            self.complete = False
            return
        key = os.path.abspath(path)
        rows = [[f.code, f.line, f.col, f.end_line, f.end_col, {str(k): str(v) for k, v in f.args.items()},
                 list(f.platforms) if f.platforms is not None else None,
                 f.fix_safety.value if f.fix_safety is not None else None, f.cell] for f in findings]
        files: list[Iterable[tuple[str, Any]]] = [((key, entry.stamp),), entry.dependencies.items()]
        facts = [entry.derived]
        if reads is not None:
            files.append(reads.files.items())
            facts.append(reads.derived)
        derived = {fact: digest for found in facts for fact, digest in found.items()}
        self.findings[key] = rows
        for fact, digest in derived.items():
            if not self.merge(self.derived, fact, digest):
                self.complete = False  # (two digests in one run: the project changed while it ran)
        self.uses[key] = (files, {(folder, mtime, names) for folder, (mtime, names) in entry.absent.items()}, derived)

    def merge(self, facts: dict[str, str], fact: str, digest: str) -> bool:
        """Add *digest* of the derived fact *fact* to *facts*; False when *facts* has another digest of it that does
        not say the same (:attr:`same`), else True (keeping the digest :attr:`same` chose)."""
        kept = facts.setdefault(fact, digest)
        if kept == digest:
            return True
        chosen = self.same(fact, kept, digest) if self.same is not None else None
        if chosen is None:
            return False
        facts[fact] = chosen
        return True

    def confirm(self, derive: Any) -> None:
        """Whether each derived fact still has (*derive*: ``Project.derived_holds`` of the run's reader) the
        digest the findings were found with: a parallel run's workers derived them, the record keeps what this
        process searched (:meth:`search`).  Those an earlier record's searches prove are not asked again, nor
        are those of the files it answered for (it found each of them again when its searches had changed)."""
        if not all(derive(key, digest) for key, digest in self.derived.items() if key not in self.proven):
            self.complete = False

    def unproven(self) -> list[str]:
        """The derived facts whose searches this run must say (:meth:`search`): all but those proven (the kept
        files' among them, when the earlier record's searches had changed)."""
        facts = _bits(_union(derived for _, _, derived in self.kept.values()))
        return [key for key in {**self.derived, **{self.base[2][index][0]: None for index in facts}}
                if key not in self.proven]

    def search(self, found: Optional[tuple[dict[str, int], Any]]) -> None:
        """What derived facts were found from (None: not known, and nothing is recorded): folders listed, each with
        its mtime, and files read (path -> record)."""
        if found is None:
            self.complete = False
            return
        self.folders.update(found[0])
        self.searched.append(found[1].items())


class RunRecall(Record):
    """What the record of a run gave (:meth:`ResultsCache.recall_run`): the findings of the files whose every
    dependency holds (absolute path -> Finding objects, for the files with any, and the set of those files); the
    run's other files are checked again (they had an error) or looked up (something they depended on changed,
    or the record does not hold them)."""

    __slots__ = ("found", "recalled", "whole", "_carried", "_tables", "_search")

    def __init__(self, found: dict[str, list], recalled: frozenset[str], whole: bool, carried: list,
                 tables: tuple[list, list, list],
                 search: Optional[tuple[dict[str, int], dict[str, Optional[Stamp]]]]) -> None:
        self.found = found
        self.recalled = recalled
        #: whether every row of the record held: else it is written again, if only with the searches as they are
        #: now (a folder the search listed changed, and every fact held: the cache's own folder made in the tree)
        self.whole = whole
        #: (path, findings as recorded, its masks into *tables*: the record's files, missing paths, derived facts)
        self._carried = carried
        self._tables = tables
        self._search = search

    def carry(self, inputs: RunInputs) -> None:
        """Seed the record of this run with what the files recalled depend on (as the earlier record had it, all
        found to hold); when the earlier record's searches still hold, they prove its derived facts."""
        inputs.base = self._tables
        for path, rows, masks in self._carried:
            inputs.findings[path] = rows
            inputs.kept[path] = masks
        if self._search is not None:
            inputs.proven.update(fact for fact, _ in self._tables[2])
            inputs.search(self._search)


def _well_formed(data: dict) -> bool:
    """Whether a run's record (as read) has the shape :meth:`ResultsCache._write_run` gives it, its masks within
    its tables: a damaged or foreign one is as if there were none (its rows are read when a later record is
    written from it, and a mask past a table's end would fail there)."""
    files, absent, derived, checked = data["files"], data["absent"], data["derived"], data["checked"]
    if not (type(files) is list and all(type(row) is list and len(row) == 2 and type(row[0]) is str
                                        and (row[1] is None or type(row[1]) is str) for row in files)
            and type(absent) is list and all(type(row) is list and len(row) == 3 and type(row[0]) is str
                                             and (row[1] is None or type(row[1]) is int) and type(row[2]) is str
                                             for row in absent)
            and type(derived) is list and all(_strings(row) and len(row) == 2 for row in derived)
            and type(data["folders"]) is dict and type(data["findings"]) is dict and _strings(data["again"])
            and type(checked) is list and all(_strings(row) and len(row) == 4 for row in checked)):
        return False
    sizes = (len(files), len(absent), len(derived))
    return _unmask(data["search"]).bit_length() <= sizes[0] and all(
        _unmask(mask).bit_length() <= size for row in checked for mask, size in zip(row[1:], sizes))


def _trusted(raw: Optional[str]) -> bool:
    """Whether a record of a path (as :func:`_encode_stamp` writes it) can prove it unchanged next time: not a
    stamp whose mtime was too recent to trust, nor a malformed one."""
    try:
        stamp = _stamp(raw)
    except (TypeError, ValueError):
        return False
    return stamp is None or stamp in PRESENCE or stamp[1] is not None


def _mask(indices: Any) -> str:
    """A set of small integers as the hex of a bit map (byte i holds bits 8i to 8i+7)."""
    bits = bytearray()
    for index in indices:
        byte = index >> 3
        if byte >= len(bits):
            bits.extend(bytes(byte + 1 - len(bits)))
        bits[byte] |= 1 << (index & 7)
    return bits.hex()


def _unmask(text: str) -> int:
    """A :func:`_mask` as one integer (bit i: the integer i)."""
    return int.from_bytes(bytes.fromhex(text), "little")


def _union(masks: Iterable[str]) -> int:
    """The union of masks (:func:`_mask`), as one integer."""
    found = 0
    for mask in masks:
        found |= _unmask(mask)
    return found


def _bits(mask: int) -> list[int]:
    """The integers of a mask held as one integer (:func:`_unmask`)."""
    return _members(mask.to_bytes((mask.bit_length() + 7) // 8, "little").hex())


def _members(text: str) -> list[int]:
    """The integers of a :func:`_mask`."""
    return [8 * byte + bit for byte, value in enumerate(bytes.fromhex(text)) if value for bit in _BITS[value]]


#: each byte's value -> the bits set in it
_BITS = [tuple(bit for bit in range(8) if value >> bit & 1) for value in range(256)]


# ---------------------------------------------------------------- fix outcomes


class CachedFix(Record):
    """What ``fix.fix_text`` returned for a text (its ``FixOutcome``'s fields), as the cache gives it back."""

    __slots__ = ("text", "note", "fixed", "remaining", "unfixed")

    def __init__(self, text: str, note: Optional[str], fixed: list, remaining: list, unfixed: list) -> None:
        self.text = text
        self.note = note
        self.fixed = fixed
        self.remaining = remaining
        self.unfixed = unfixed


def fix_key(unsafe: bool, findings: list) -> str:
    """Which fixes were asked for: the safety allowed and each finding's grade in this file (the grade of the
    main-guard wrap depends on other files, so an equal text can be fixed differently on another run)."""
    grades = ",".join(f"{f.code}:{f.safety.value}" for f in findings)
    return ("unsafe:" if unsafe else "safe:") + content_hash(grades.encode())


def _graded(findings: list) -> list:
    # Unlike an entry's own findings, the fixer's carry the grade they were fixed (or declined) with.
    return [row[:7] + [f.fix_safety.value if f.fix_safety is not None else None, row[8]]
            for row, f in zip(encode_findings(findings), findings)]


def encode_fix(original: str, outcome: Any) -> list:
    """*outcome* (a ``FixOutcome`` of *original*) as [line edits or None, hash of the text, note, fixed,
    remaining, unfixed]; the edits are ``[start, end, new lines]`` replacing ``original``'s lines start:end."""
    edits = None
    if outcome.text != original:
        import difflib

        old, new = original.splitlines(keepends=True), outcome.text.splitlines(keepends=True)
        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        edits = [[i1, i2, new[j1:j2]] for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]
    return [edits, content_hash(outcome.text.encode("utf-8", "surrogatepass")), outcome.note,
            _graded(outcome.fixed), _graded(outcome.remaining), _graded(outcome.unfixed)]


def decode_fix(original: str, record: Any) -> Optional[CachedFix]:
    """The outcome *record* stands for, applied to *original*; None (recompute) if anything does not fit."""
    try:
        edits, digest, note, fixed, remaining, unfixed = record
        text = original
        if edits is not None:
            old = original.splitlines(keepends=True)
            out, at = [], 0
            for start, end, lines in edits:
                if not (at <= start <= end <= len(old)) or not all(isinstance(line, str) for line in lines):
                    return None
                out.extend(old[at:start])
                out.extend(lines)
                at = end
            out.extend(old[at:])
            text = "".join(out)
        if content_hash(text.encode("utf-8", "surrogatepass")) != digest or not (note is None or isinstance(note, str)):
            return None
        return CachedFix(text, note, decode_findings(fixed), decode_findings(remaining), decode_findings(unfixed))
    except Exception:
        return None


def new_entry(path: str, stamp: Optional[Stamp], data: Optional[bytes], parsed: bool, findings: list,
              reads: Any) -> Optional[Entry]:
    """The entry for a file just checked from *data*, read after *stamp* was taken, and what its check read
    besides it (*reads*: files and derived facts); None if not storable."""
    if data is None:
        return None
    files = reads.files
    own = os.path.abspath(path)
    missing = [dep for dep in sorted(files) if files[dep] is None and dep != own]
    absent, still = _absent_by_folder(missing)
    # (interned: a module is a dependency of hundreds of entries, which a run holds until it saves them)
    return Entry(stamp, content_hash(data), parsed, encode_findings(findings),
                 {sys.intern(dep): files[dep] for dep in sorted(files) if dep != own
                  and (files[dep] is not None or dep in still)}, {},
                 dict(sorted(reads.derived.items())), absent)


_UNPLACED = object()  # (a path :func:`_absent_by_folder` has not placed yet)


def _absent_by_folder(paths: list[str]) -> tuple[dict[str, tuple[Optional[int], str]], set[str]]:
    """*paths* (looked for and not found) grouped by the nearest folder that exists, as the names in it they
    begin with (joined by "/"), each folder with its mtime, taken before the names are confirmed missing (a
    folder changed after it has another mtime); and the paths to keep one by one: there now, or in part (the
    entry then misses), or with no folder above them."""
    groups: dict[str, set[str]] = {}
    still: set[str] = set()
    seen = _SEEN
    if len(seen.there) > _MAX_SEEN or len(seen.placed) > _MAX_SEEN:
        seen.nearest.clear(), seen.mtimes.clear(), seen.there.clear(), seen.placed.clear()
    placed = seen.placed
    for path in paths:
        place = placed.get(path, _UNPLACED)
        if place is _UNPLACED:
            place = placed[path] = _place(path, seen)
        if place is None:
            still.add(path)
            continue
        folder, name = place
        names = groups.setdefault(folder, set())  # (each folder in the order its first path comes, as it was)
        if name is None:
            still.add(path)  # (there now, though what was looked for below it may still be missing)
        else:
            names.add(name)
    out: dict[str, tuple[Optional[int], str]] = {}
    for folder, names in groups.items():
        if names:
            out[folder] = (seen.mtimes[folder], sys.intern("/".join(sorted(names))))
    return out, still


def _place(path: str, seen: "_Seen") -> Optional[tuple[str, Optional[str]]]:
    """(the nearest existing folder above *path*, the name in it that *path* begins with, or None when that name is
    there now), the folder's mtime taken first into *seen*; None when no folder is above *path*."""
    folder = _existing_folder(os.path.dirname(path), seen.nearest)
    if folder is None:
        return None
    if folder not in seen.mtimes:
        seen.mtimes[folder] = folder_mtime(folder)
    # (interned: the same library names are missing from the same folders in most entries, which a run holds
    # until it saves them: 12 MB of copies in a cache-filling run over 300 files of diffusers)
    name = sys.intern(path[len(folder):].lstrip(os.sep).split(os.sep, 1)[0])
    key = (folder, name)
    if key not in seen.there:
        seen.there[key] = os.path.lexists(os.path.join(folder, name))
    return sys.intern(folder), (None if seen.there[key] else name)


class _Seen(Record):
    """What :func:`_absent_by_folder` saw of the file system in this process, each answer asked once (a project's
    entries share their folders).  Sound however old: a folder's mtime is taken before any name in it is looked
    for, so a name that appeared after it was looked for finds the folder's mtime changed next time, and each
    name is then looked for again."""

    __slots__ = ("nearest", "mtimes", "there", "placed")

    def __init__(self) -> None:
        self.nearest: dict[str, Optional[str]] = {}
        self.mtimes: dict[str, Optional[int]] = {}
        self.there: dict[tuple[str, str], bool] = {}
        #: each path asked about -> what :func:`_place` answered (hundreds of entries miss the same paths)
        self.placed: dict[str, Optional[tuple[str, Optional[str]]]] = {}


_SEEN = _Seen()
_MAX_SEEN = 200_000  # (names; a long-lived process starts again past it)


def _existing_folder(folder: str, known: dict[str, Optional[str]]) -> Optional[str]:
    """The nearest of *folder* and the folders above it that is a folder now (*known*: the answers so far)."""
    asked = []
    current = folder
    for _ in range(256):  # (a path has fewer parts than this)
        if current in known:
            found = known[current]
            break
        asked.append(current)
        if os.path.isdir(current):
            found = current
            break
        parent = os.path.dirname(current)
        if parent == current:
            found = None
            break
        current = parent
    else:
        found = None
    for name in asked:
        known[name] = found
    return found


def shard_of(path: str) -> str:
    """The name of the shard that holds the entry of *path* (an absolute path): a stable hash of it, the same in
    every process and on every run (unlike ``hash()``, which is seeded per process)."""
    number = int.from_bytes(blake2b(os.fsencode(path), digest_size=4).digest(), "big") % SHARDS
    return f"{number:0{len(f'{SHARDS - 1:x}')}x}"


class ResultsCache:
    """The entries of one settings digest, each shard read on the first lookup of a file in it; the shards this
    run changed are written once, at the end of the run."""

    def __init__(self, directory: str, digest: str, derive: Any = None) -> None:
        self.directory = directory
        self.digest = digest
        #: whether a derived fact still has a digest (Project.derived_holds of the run's project)
        self.derive = derive or (lambda key, digest: False)
        #: the directory of this digest's shards
        self.path = os.path.join(directory, f"results-{FORMAT}-{digest[:24]}")
        #: shard name -> its entries (raw JSON until a lookup decodes one), for the shards read in this run
        self.shards: dict[str, dict[str, Any]] = {}
        self.changed: dict[str, Entry] = {}
        #: (path, PRESENT_FILE / PRESENT / None) -> what the file system said of it in this run
        self._observed: dict[tuple[str, Optional[Stamp]], Any] = {}
        #: folder -> its mtime now (see Entry.absent); path -> whether it is there now
        self._folders: dict[str, Optional[int]] = {}
        self._there: dict[str, bool] = {}
        #: path -> (the stamp an entry recorded of it, whether that still holds, the stamp to keep instead), in this run
        self._decided: dict[str, tuple[Any, bool, Optional[Stamp]]] = {}
        #: the paths found still missing in this run (folder, mtime, names)
        self.still_absent: set[tuple[str, Optional[int], str]] = set()
        self.valid: dict[str, Entry] = {}  # entries found valid by this run's lookups
        #: what the project search read of each file (the run's Project.scan_memory)
        self.scans = ScanMemory(self.path, digest)
        #: the record of this run to write (:meth:`keep_run`): its key, its inputs, the files to check again
        self._run: Optional[tuple[str, RunInputs, list[str]]] = None

    @classmethod
    def open(cls, settings: Any, derive: Any = None) -> "ResultsCache":
        return cls(cache_directory(settings), settings_digest(settings), derive)

    def _shard(self, key: str) -> dict[str, Any]:
        """The entries of the shard of *key* (an absolute path), read from its file the first time."""
        name = shard_of(key)
        entries = self.shards.get(name)
        if entries is None:
            entries = self.shards[name] = _read(self._shard_file(name), self.digest)
        return entries

    def _shard_file(self, name: str) -> str:
        return os.path.join(self.path, f"{name}.json")

    def lookup(self, path: str, need_parsed: bool) -> Optional[list]:
        """The cached findings of *path* (as Finding objects), or None when it must be checked."""
        entry = self._entry(path, need_parsed)
        if entry is None:
            return None
        try:
            return decode_findings(entry.findings)
        except Exception:
            return None

    def lookup_fix(self, path: str, key: str, original: str) -> Optional[CachedFix]:
        """What ``--fix``/``--diff`` made of *path*'s text *original* for fix request *key*, if stored (call after
        a :meth:`lookup` hit, which found the entry valid)."""
        entry = self.valid.get(os.path.abspath(path))
        record = entry.fixes.get(key) if entry is not None else None
        return decode_fix(original, record) if record is not None else None

    def _entry(self, path: str, need_parsed: bool) -> Optional[Entry]:
        key = os.path.abspath(path)
        entries = self._shard(key)
        raw = entries.get(key)
        if raw is None:
            return None
        try:
            entry = raw if isinstance(raw, Entry) else Entry.from_json(raw)
        except Exception:
            return None
        if need_parsed and not entry.parsed:
            return None
        now = stat_stamp(key)
        if now is None:
            return None
        if not same(entry.stamp, now):
            try:
                with open(key, "rb") as handle:
                    data = handle.read()
            except OSError:
                return None
            if content_hash(data) != entry.digest:
                return None
            entry.stamp = now  # taken before the read: the next run trusts it only if nothing changed since
            self.changed[key] = entry
        if not self._dependencies_unchanged(key, entry):
            return None
        entries[key] = self.valid[key] = entry
        return entry

    def _run_file(self, key: str) -> str:
        return os.path.join(self.path, f"run-{key}.json")

    def recall_run(self, key: str, paths: frozenset[str]) -> Optional[RunRecall]:
        """What the record of the run *key* gives (:class:`RunRecall`) for the files this run checks (*paths*,
        absolute): the findings of those whose every dependency still holds (:class:`RunInputs`); the others,
        and the files the record does not hold (added since), are looked up; None: look each file up (no record,
        or an unreadable one).  Each recorded path is asked once; a derived fact is asked only when the searches it
        was found from changed, and only for a file whose other dependencies hold."""
        path = self._run_file(key)
        try:
            with open(path, "rb") as handle:
                data = json.loads(handle.read())
            if data.get("format") != FORMAT or data.get("key") != self.digest or data.get("run") != key:
                return None
            files, absent, folders, derived = data["files"], data["absent"], data["folders"], data["derived"]
            rows = data["findings"]
            if not _well_formed(data):
                return None
            failed = 0
            for index, (dependency, raw) in enumerate(files):
                if not self._decide(dependency, raw):
                    failed |= 1 << index
            gone = 0
            for index, (folder, mtime, names) in enumerate(absent):
                if not self._still_absent(folder, mtime, names):
                    gone |= 1 << index
            search_holds = not (failed & _unmask(data["search"])) and all(
                self._folder_mtime(folder) == mtime for folder, mtime in folders.items())
            same_files = paths == {row[0] for row in data["checked"]} | set(data["again"])
            whole = not failed and not gone and search_holds and same_files
            # (the searches changed: a derived fact holds if it is found again with its digest)
            changed = 0 if search_holds else sum(1 << index for index, (fact, digest) in enumerate(derived)
                                                 if not self.derive(fact, digest))
            found: dict[str, list] = {}
            recalled, carried = set(), []
            for checked, uses_files, uses_absent, uses_derived in data["checked"]:
                if checked not in paths:
                    continue  # (removed from the tree, or no longer walked)
                if not whole and (failed & _unmask(uses_files) or gone & _unmask(uses_absent)
                                  or changed & _unmask(uses_derived)):
                    continue  # (to be looked up)
                recalled.add(checked)
                mine = rows.get(checked, [])
                if not all(isinstance(row, list) and len(row) == _RUN_ROW for row in mine):
                    return None
                if mine:
                    found[checked] = decode_findings(mine)
                if not whole:
                    carried.append((checked, mine, (uses_files, uses_absent, uses_derived)))
            search = None if whole or not search_holds else (
                folders, {files[i][0]: files[i][1] for i in _members(data["search"])})
            recall = RunRecall(found, frozenset(recalled), whole, carried, (files, absent, derived), search)
        except Exception:  # (unreadable, malformed, another version's: as if there were none)
            return None
        try:
            os.utime(path)  # (used: the most recently used records are kept)
        except OSError:
            pass
        return recall

    def keep_run(self, key: str, inputs: RunInputs, again: list[str]) -> None:
        """Write the record of the run *key* when the cache is saved, if *inputs* are complete; *again*: the files
        of the run to check again each time (they had an error)."""
        if inputs.complete:
            self._run = (key, inputs, again)

    def _dependencies_unchanged(self, key: str, entry: Entry) -> bool:
        """Whether every file *entry* (of the file *key*) depends on keeps its stamp (:func:`holds`) and every
        derived fact its digest.  A module is a dependency of hundreds of entries (on detectron2 + pytorch/examples,
        306,000 records for 590 entries, most of a warm run): the file system is asked once per path in a run, and
        a path's record is decided once, so that every other entry recording the same stamp costs a lookup and a
        comparison.  A dependency kept by its content (just edited when the entry was made) that still holds is
        kept by its stamp from now on, when that can be trusted: a warm run reads no file."""
        decided = self._decided
        renewed = None
        for path, recorded in entry.dependencies.items():
            known = decided.get(path)
            if known is None or known[0] != recorded:
                holds = self._decide(path, recorded)
                known = decided[path] = (recorded, holds, self._renewal(path, recorded) if holds else None)
            if not known[1]:
                return False
            if known[2] is not None:
                renewed = renewed or {}
                renewed[path] = known[2]
        for folder, (mtime, names) in entry.absent.items():
            if (folder, mtime, names) not in self.still_absent:
                if not self._still_absent(folder, mtime, names):
                    return False
                self.still_absent.add((folder, mtime, names))
        if not all(self.derive(fact, digest) for fact, digest in entry.derived.items()):
            return False
        if renewed:
            entry.dependencies.update(renewed)
            self.changed[key] = entry
        return True

    def _renewal(self, path: str, raw: Any) -> Optional[Stamp]:
        """The stamp that proves unchanged from now on a dependency recorded (*raw*) by its content and found to
        hold, when its mtime can now be trusted; else None."""
        if not (isinstance(raw, str) and "#" in raw or isinstance(raw, tuple) and isinstance(raw[1], str)):
            return None
        seen = (path, False)  # (as _decide observes a stamp)
        if seen not in self._observed:
            self._observed[seen] = stat_stamp(path)
        now = self._observed[seen]
        return now if now is not None and now[1] is not None else None

    def _still_absent(self, folder: str, mtime: Optional[int], names: str) -> bool:
        """Whether the paths below *folder* that begin with *names* (joined by "/") are still missing: the folder
        keeps the mtime it had, or else none of the names is there now (asked once per path in a run)."""
        if mtime is not None and self._folder_mtime(folder) == mtime:
            return True
        for name in names.split("/"):
            path = os.path.join(folder, name)
            there = self._there.get(path)
            if there is None:
                there = self._there[path] = os.path.lexists(path)
            if there:
                return False
        return True

    def _folder_mtime(self, folder: str) -> Optional[int]:
        """:func:`.stamps.folder_mtime`, asked once per folder in a run (a record's missing names and the folders
        its project searches listed are mostly the same folders)."""
        if folder not in self._folders:  # (None, a folder changed too recently, is an answer too)
            self._folders[folder] = folder_mtime(folder)
        return self._folders[folder]

    def _decide(self, path: Any, raw: Any) -> bool:
        """Whether the stamp *raw* recorded of *path* (as read from the file, or a stamp) still holds; a
        malformed record does not."""
        try:
            recorded = _stamp(raw)
            # (what is observed of a path: its presence, its stamp, or its content for a content stamp)
            seen = (path, recorded if recorded in PRESENCE else recorded is not None and isinstance(recorded[1], str))
        except (TypeError, ValueError):
            return False
        if seen not in self._observed:
            self._observed[seen] = observe(path, recorded)
        return still(recorded, self._observed[seen])

    def store(self, path: str, entry: Optional[Entry]) -> None:
        if entry is None:
            return
        key = os.path.abspath(path)
        previous = self.valid.get(key)
        if previous is not None and previous.digest == entry.digest:  # the same text: other requests' fixes hold
            entry.fixes = {**previous.fixes, **entry.fixes}
        self.changed[key] = entry

    def save(self) -> None:
        """Write the shards this run changed, each merged with what is on disk now (what concurrent runs wrote
        since this run read it), and the scan memory; one writer at a time, each file replaced atomically; a
        failure (a read-only tree, a full disk) only loses the cache."""
        fresh: dict[str, dict[str, Any]] = {}
        for path, entry in self.changed.items():
            fresh.setdefault(shard_of(path), {})[path] = entry.to_json()
        # A shard read in this run that holds the entry of a deleted or renamed file is rewritten without it
        # (only its entries this run did not find valid are looked for: a file or two in a one-file run).
        for name, entries in self.shards.items():
            if name not in fresh and any(path not in self.valid and path not in self.changed
                                         and not os.path.exists(path) for path in entries):
                fresh[name] = {}
        if not fresh and not self.scans.changed and self._run is None:
            return
        try:
            _prepare(self.directory, self.path)
            with _writers_lock(self.path):
                self.scans.save()
                for name, records in sorted(fresh.items()):
                    _merge_and_write(self._shard_file(name), self.digest, records)
                if self._run is not None:
                    self._write_run(*self._run)
        except OSError:
            pass

    def _write_run(self, key: str, inputs: RunInputs, again: list[str]) -> None:
        base_files, base_absent, base_derived = inputs.base
        # (the missing names of each folder in one group: the entries' groups of a folder differ by a few names,
        # and 8,157 of them made most of a 6 MB record of the ML corpus)
        missing: dict[tuple[str, Optional[int]], set[str]] = {}
        absent_rows = {row for _, absent, _ in inputs.uses.values() for row in absent}
        kept_absent = _union(absent for _, absent, _ in inputs.kept.values())
        absent_rows.update(tuple(base_absent[index]) for index in _bits(kept_absent))
        for folder, mtime, names in absent_rows:
            missing.setdefault((folder, mtime), set()).update(names.split("/"))
        groups = sorted(missing.items(), key=lambda item: (item[0][0], item[0][1] or 0))
        group_at = {group: index for index, (group, _) in enumerate(groups)}
        facts = dict(inputs.derived)
        for index in _bits(_union(derived for _, _, derived in inputs.kept.values())):
            fact, digest = base_derived[index]
            if not inputs.merge(facts, fact, digest):
                return  # (two digests of a fact in one run: the project changed while it ran)
        fact_at = {fact: index for index, fact in enumerate(facts)}
        # Each path with each record of it (its stamp, its presence, None) is one row, asked once by the next run;
        # a path two files saw two ways (edited while the run read it) makes two rows: one of them fails then.
        table: dict[tuple[str, Optional[str]], int] = {}

        def rows(groups: list[Iterable[tuple[str, Any]]]) -> Iterator[int]:
            for group in groups:
                for path, stamp in group:
                    yield table.setdefault((path, _encode_stamp(stamp)), len(table))

        # (a kept file's rows: those of the earlier record, each found once in this one's tables)
        at_base: list[Optional[int]] = [None] * len(base_files)

        def base_row(index: int) -> int:
            found = at_base[index]
            if found is None:
                path, stamp = base_files[index]
                found = at_base[index] = table.setdefault((path, stamp), len(table))
            return found

        checked = [[path, _mask(rows(files)), _mask(group_at[row[:2]] for row in absent),
                    _mask(fact_at[fact] for fact in derived)] for path, (files, absent, derived) in inputs.uses.items()]
        checked += [[path, _mask(base_row(index) for index in _members(files)),
                     _mask(group_at[tuple(base_absent[index][:2])] for index in _members(absent)),
                     _mask(fact_at[base_derived[index][0]] for index in _members(derived))]
                    for path, (files, absent, derived) in inputs.kept.items()]
        search = _mask(rows(inputs.searched))
        if not all(_trusted(stamp) for _, stamp in table):
            return  # (an mtime too recent to prove anything next time)
        data = {"format": FORMAT, "key": self.digest, "run": key,
                "findings": {path: rows for path, rows in inputs.findings.items() if rows}, "again": again,
                "files": [[path, stamp] for path, stamp in table],
                "absent": [[folder, mtime, "/".join(sorted(names))] for (folder, mtime), names in groups],
                "folders": inputs.folders, "search": search, "derived": [[k, v] for k, v in facts.items()],
                "checked": checked}
        _write_json(self._run_file(key), data)
        records = []
        for name in os.listdir(self.path):
            if name.startswith("run-") and name.endswith(".json"):
                try:
                    records.append((os.stat(os.path.join(self.path, name)).st_mtime_ns, name))
                except OSError:
                    continue
        for _, name in sorted(records, reverse=True)[MAX_RUN_RECORDS:]:
            try:
                os.unlink(os.path.join(self.path, name))
            except OSError:
                pass


#: the scan memory's record of a project's graph answers: this prefix and the root (a path never begins so)
_ANSWERS = "answers\0"


class ScanMemory:
    """What the project search (:func:`winspawn_lint.analysis.importers.scan`) read of each file, kept with the
    file's size and mtime: whether its text passes the prefilter, the words its imports mention, the imports
    themselves and the names it defines at column 0.  A file whose size and mtime are unchanged is not read
    again (an mtime too recent to trust is not kept).  One JSON file per project root in the digest's directory
    (the prefilter depends on the registry), read whole when the search of that root first asks and saved once
    per run (not sharded: a run that checks one file searches its whole project for the modules that import it,
    so it needs every record of the project, and only those: a cache directory that several projects share
    holds theirs apart); anything unreadable or malformed counts as not kept."""

    def __init__(self, directory: Optional[str], digest: str) -> None:
        self.directory = directory  # (None: a worker's, :meth:`recorder`)
        self.digest = digest
        #: project root -> its records (path -> record; :data:`_ANSWERS` + root -> the graph's answers), read
        #: when first asked for
        self.roots: dict[str, dict[str, Any]] = {}
        #: project root -> the records this run read or found, to be saved
        self.changed: dict[str, dict[str, list]] = {}

    @classmethod
    def recorder(cls) -> "ScanMemory":
        """A memory of this process alone: it reads no file, answers from what this process's searches read and
        records that (a parallel run's worker's, for the parent to keep: :meth:`adopt`; the public API's)."""
        return cls(None, "")

    def _file(self, root: str) -> str:
        name = blake2b(os.fsencode(root), digest_size=8).hexdigest()
        return os.path.join(self.directory, f"scan-{name}.json")

    def _records(self, root: str) -> dict[str, Any]:
        records = self.roots.get(root)
        if records is None:
            records = self.roots[root] = _read(self._file(root), self.digest) if self.directory is not None else {}
        return records

    def adopt(self, changed: dict[str, dict[str, list]]) -> None:
        """Keep what a worker's project search read (its memory's ``changed``): a parallel run's parent searches
        no project itself, and without this the next run would read every file of each to search it again."""
        for root, records in changed.items():
            for key, record in records.items():
                self._keep(root, key, record)

    def keep_only(self, roots: Iterable[str]) -> None:
        """Forget what was read of the projects at other roots than *roots* (a memory of this process alone that
        outlives its searches: the public API's)."""
        wanted = set(roots)
        for kept in (self.roots, self.changed):
            for root in [root for root in kept if root not in wanted]:
                del kept[root]

    def recall(self, root: str, path: str, info: os.stat_result) -> Optional[tuple]:
        """What the search of the project at *root* read of *path*, as kept for its size and mtime in *info*:
        (passes the prefilter, the words its imports mention or None, its imports as ``(module, name, bound
        name)``, the names it defines at column 0), or None."""
        raw = self._records(root).get(path)
        if not (isinstance(raw, list) and len(raw) == 6) or raw[0] != info.st_size or raw[1] != info.st_mtime_ns:
            return None
        sink, words, imports, names = raw[2:]
        if not isinstance(sink, bool) or not (words is None or _strings(words)) or not _strings(names) or not (
                isinstance(imports, list) and all(type(entry) is list and len(entry) == 3 for entry in imports)
                and _strings([part for entry in imports for part in entry])):
            return None
        return (sink, frozenset(words) if words is not None else None, tuple(tuple(entry) for entry in imports),
                frozenset(names))

    def keep(self, root: str, path: str, info: os.stat_result, read: tuple) -> None:
        if not self.trusted(info):
            return  # (may change again within the same mtime tick)
        sink, words, imports, names = read
        self._keep(root, path, [info.st_size, info.st_mtime_ns, sink, sorted(words) if words is not None else None,
                                [list(entry) for entry in imports], sorted(names)])

    def _keep(self, root: str, key: str, record: list) -> None:
        self._records(root)[key] = self.changed.setdefault(root, {})[key] = record

    @staticmethod
    def trusted(info: os.stat_result) -> bool:
        """Whether a file's mtime is old enough to prove it unchanged while it stays the same."""
        return not too_recent(info)

    def answers(self, root: str, files: str, stamps: dict[str, Any], pieces: Any, names: dict[str, frozenset[str]]
                ) -> Optional[tuple[frozenset[str], frozenset[str]]]:
        """The import graph's answers for the project at *root* (the files that reach a worker API, those that
        may hold a finding: ``analysis.importers.GraphAnswers``) as kept when what the index held of its files
        (*files*) was the same, each name the graph asked about is still defined or not as it was (*names*: each
        file's names now), and so are the pieces the graph read (a file whose stamp in *stamps* is not the one
        kept, or was too recent then, is read in pieces again: ``pieces(path)``); None if not kept."""
        raw = self._records(root).get(_ANSWERS + root)
        if not (isinstance(raw, list) and len(raw) == 5 and raw[0] == _files_digest(files)
                and _strings(raw[1]) and _strings(raw[2]) and isinstance(raw[3], list) and isinstance(raw[4], list)):
            return None
        try:
            for path, defined, undefined in raw[4]:
                now = names.get(path, frozenset())
                if any(name not in now for name in defined.split()) or any(name in now for name in undefined.split()):
                    return None
            for path, stamp, digest in raw[3]:
                kept = _stamp(stamp)
                if kept is None or kept[1] is None or stamps.get(path) != kept:
                    if _pieces_digest(pieces(path)) != digest:
                        return None
        except (TypeError, ValueError, AttributeError):
            return None
        return frozenset(raw[1]), frozenset(raw[2])

    def keep_answers(self, root: str, files: str, reaching: frozenset[str], relevant: frozenset[str],
                     pieces: dict[str, tuple[Any, Any]], asked: dict[tuple[str, str], bool]) -> None:
        """Keep the graph's answers, with what they follow from (see :meth:`answers`): *pieces*, each file the graph
        read in pieces -> (its stamp then, its pieces); *asked*: (file, name) -> whether the file defined the
        name, for each name the graph asked about."""
        by_file: dict[str, tuple[list[str], list[str]]] = {}
        for (path, name), defined in asked.items():
            by_file.setdefault(path, ([], []))[0 if defined else 1].append(name)
        self._keep(root, _ANSWERS + root, [_files_digest(files), sorted(reaching), sorted(relevant),
                                           [[path, _encode_stamp(stamp), _pieces_digest(read)]
                                            for path, (stamp, read) in sorted(pieces.items())],
                                           [[path, " ".join(sorted(yes)), " ".join(sorted(no))]
                                            for path, (yes, no) in sorted(by_file.items())]])

    def save(self) -> None:
        """Merge what this run read into the files (called by :meth:`ResultsCache.save`, under its lock, once
        the digest's directory is there)."""
        if self.directory is None:
            return
        for root, records in sorted(self.changed.items()):
            _merge_and_write(self._file(root), self.digest, records)


def _pieces_digest(pieces: Any) -> str:
    """A digest of a file's pieces as the import graph reads them (``exported_names.Pieces``, or None)."""
    return content_hash(json.dumps(_stable(pieces)).encode("utf-8", "surrogatepass"))


def _files_digest(files: str) -> str:
    return content_hash(files.encode("utf-8", "surrogatepass"))


def _strings(value: Any) -> bool:
    """Whether *value* is a list of strings (joined to find out: a ``TypeError`` for anything else, at C speed;
    the scan memory's records hold ~20,000 strings on pytorch-image-models, checked in every run that searches)."""
    if type(value) is not list:
        return False
    try:
        "".join(value)
    except TypeError:
        return False
    return True


def _read(path: str, digest: str) -> dict[str, Any]:
    """The ``files`` of the cache file at *path*: a shard or the scan memory; an unreadable, truncated, foreign
    or other-version file counts as empty."""
    try:
        with open(path, "rb") as handle:
            data = json.loads(handle.read())
        if data.get("format") != FORMAT or data.get("key") != digest or not isinstance(data["files"], dict):
            return {}
        return data["files"]
    except Exception:
        return {}


def _merge_and_write(path: str, digest: str, fresh: dict[str, Any]) -> None:
    """Write the cache file at *path*: what it holds now (what concurrent runs wrote since this run read it,
    minus the records of deleted or renamed files, which would otherwise pile up), updated with *fresh*;
    atomically (a temporary file and ``os.replace``); a file left with no record is removed.  A failure to
    write it only loses its records."""
    merged = {name: raw for name, raw in _read(path, digest).items()
              if name.startswith(_ANSWERS) or os.path.exists(name)}
    merged.update(fresh)
    try:
        if not merged:
            if os.path.exists(path):
                os.unlink(path)
            return
        _write_json(path, {"format": FORMAT, "key": digest, "files": merged})
    except OSError:
        pass  # (on Windows, a shard another run has open cannot be replaced: the next run writes it)


def _write_json(path: str, data: Any) -> None:
    """Replace the file at *path* with *data* as JSON, atomically (a temporary file and ``os.replace``)."""
    import tempfile

    fd, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".results-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, separators=(",", ":"))
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def _prepare(directory: str, shards: str) -> None:
    """Make the cache directory (marked, :func:`_mark`, when this makes it) and the directory of a digest's
    *shards*; when this makes the latter, remove the single files of the layout before shards (of any digest:
    they are never read again, and were the size of a whole tree's entries) and the stale digests
    (:func:`_prune`)."""
    try:
        os.makedirs(directory)
    except FileExistsError:
        pass  # ours from an earlier run, already marked, or a folder of the user's that `cache-dir` names
    else:
        _mark(directory)
    try:
        os.mkdir(shards)
    except FileExistsError:
        return
    for name in os.listdir(directory):
        old = _OLD_LAYOUT.fullmatch(name)
        if old is not None and int(old.group(1)) < FORMAT:
            try:
                os.unlink(os.path.join(directory, name))
            except OSError:
                pass
    _prune(directory, os.path.basename(shards))


#: a digest's shard directory, and the files in it
_DIGEST_DIR = re.compile(r"results-[0-9]+-[0-9a-f]{24}")
#: (shards, scan memories, run records, lock, a write cut off)
_DIGEST_FILE = re.compile(r"(?:[0-9a-f]+\.json|(?:scan|run)-[0-9a-f]+\.json|\.lock|\.results-[^/]*\.tmp)")
#: digests kept besides a new one, the most recently written, if written within :data:`_STALE_SECONDS`
KEPT_DIGESTS = 7
_STALE_SECONDS = 7 * 24 * 3600


def _prune(directory: str, made: str) -> None:
    """Remove the stale digests of the cache *directory*, as a new one (*made*) appears: every settings change,
    upgrade or edit of an editable install makes one, and each is the size of the tree's entries.  A digest is
    kept while it is among the :data:`KEPT_DIGESTS` most recently written and was written within
    :data:`_STALE_SECONDS` (its shard directory's mtime: a run that changed nothing writes nothing, and a
    digest dropped only costs a cold run).  Only the cache's own files are removed: a directory holding
    anything else is left.  (A digest's scan memories are in its directory; those of formats before 13, beside
    it, are removed by :func:`_prepare`.)"""
    digests = []
    for name in os.listdir(directory):
        if name == made or _DIGEST_DIR.fullmatch(name) is None:
            continue
        try:
            digests.append((os.stat(os.path.join(directory, name)).st_mtime, name))
        except OSError:
            continue
    digests.sort(reverse=True)
    now = time.time()
    for rank, (written, name) in enumerate(digests):
        if rank < KEPT_DIGESTS and now - written < _STALE_SECONDS:
            continue
        path = os.path.join(directory, name)
        try:
            entries = os.listdir(path)
            if not all(_DIGEST_FILE.fullmatch(entry) for entry in entries):
                continue
            for entry in entries:
                os.unlink(os.path.join(path, entry))
            os.rmdir(path)
        except OSError:
            pass


@contextlib.contextmanager
def _writers_lock(shards: str) -> Iterator[None]:
    """Hold the lock of the writers of a digest's *shards* (a lock file in their directory, released when it is
    closed, also when the process dies); waited for at most :data:`_LOCK_WAIT` seconds, then done without."""
    try:
        handle = open(os.path.join(shards, ".lock"), "a+b")
    except OSError:
        yield
        return
    with handle:
        deadline = time.monotonic() + _LOCK_WAIT
        while _held_elsewhere(handle) and time.monotonic() < deadline:
            time.sleep(0.01)
        yield


def _held_elsewhere(handle: Any) -> bool:
    """Take the lock of *handle*'s file: False when taken (or when the file system has no locks, which no wait
    would change), True while another process holds it."""
    try:
        if os.name == "nt":  # pragma: no cover - Windows
            import msvcrt

            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    except OSError:
        return os.name == "nt"  # (msvcrt says "held" with a plain OSError)


def _mark(directory: str) -> None:
    """Keep the cache out of git (its own ``.gitignore``) and out of backups (``CACHEDIR.TAG``).  Only a directory
    the cache made is marked, as pytest does: a ``.gitignore`` of ``*`` in a folder of the user's would hide from
    git whatever else is in it."""
    for name, text in ((".gitignore", "# Automatically created by winspawn-lint.\n*\n"),
                       ("CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n"
                                        "# This file is a cache directory tag created by winspawn-lint.\n")):
        target = os.path.join(directory, name)
        if not os.path.exists(target):
            with open(target, "w", encoding="utf-8") as handle:
                handle.write(text)
