"""The project around a checked file, read (never imported or executed) through one reader.

Every fact the analysis takes from a file other than the one it checks comes through a :class:`Project`: a
module's syntax tree and index, whether a file exists, a constant astroid infers in another module, the heavy
work a sibling module does when imported, the project's configured line length, the names other modules import.
The reader

* parses each file once per process while it keeps its size and modification time (a long-lived process, the
  flake8 plugin's or an editor's, sees an edited module at once);
* records, for the file being checked, every file it read or looked for and did not find (:meth:`reading`):
  the results cache keeps a file's findings only while each of those files keeps the stamp it had then.  A
  read served from the in-process cache is recorded too, so what one file's findings depend on never depends on
  which files this process checked before it.

A module that cannot be found, is too large or does not parse is unknown, and the checks that asked stay silent.

One :class:`Project` lives as long as the run (or a parallel run's worker) that made it, and is handed down to
the analysis; nothing else in the analysis keeps state between files.
"""

from __future__ import annotations

import ast
import os
import stat
import time
import weakref
from collections import OrderedDict
from contextlib import contextmanager
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Optional

from ..io.stamps import (PRESENCE, PRESENT, PRESENT_FILE, RACY_NS, Stamp, content_hash, content_stamp, holds,
                         stat_stamp)
from ..io import compact_tree
from ..io.line_length import DEFAULT_MAX_LINE_LENGTH, configured_line_length
from ..records import Record
from .index import ModuleIndex, tried_first
from .names import Resolver

if TYPE_CHECKING:
    from ..spawn_apis import Registry
    from .importers import ModulePath, ProjectIndex, SearchInputs
    from .imports import ImportFacts

#: How many searches of projects a reader kept between the public API's calls holds while not confirmed unchanged
#: (:meth:`Project.files_may_have_changed`): each holds what it read of every file of its project.
MAX_UNCONFIRMED = 8
#: Larger modules are not read (generated code, vendored bundles).
MAX_MODULE_BYTES = 1 << 20
#: Parsed modules kept between files, the most recently used: a syntax tree with its index takes about 13 times
#: its source's size (``io.compact_tree``), and a run over a large repository reads most of it.  A module read
#: again costs its parse and index once more (pytorch-image-models: 12% less CPU with 256 kept than with 128;
#: diffusers, 2,089 modules of 21 KB on average, is bound by the bytes below, not by this count).
MAX_MODULES_KEPT = 1024
#: The import facts (:meth:`Project.import_facts`) of the modules asked last: each is asked twice in a row (its
#: imported files, then its search path) and seldom again; kept as memo facts for the run, the 1,096 of diffusers
#: held 3.3 MB and the fix run's peak rose by 9 MB, to 303.
MAX_IMPORT_FACTS = 64
#: ... and at most this many bytes of their source (about 100 MB of trees and indexes), so that a repository of
#: large modules keeps fewer of them: the peak of a run is what this keeps plus what one check's engines read.
#: (Since the import graph tells names apart, a diffusers check reads fewer modules; a cold ``-j 1`` run there,
#: against 6 MB: 8 MB 0.84x the CPU, peak 229 against 211 MiB, the ``--diff --unsafe-fixes`` run 261 MiB; 9 MB
#: 0.79x, 242 and 281 MiB; 12 MB 0.75x, 282 MiB for the check alone.)
#: (A cold ``-j 1`` run over diffusers, with 2 MB of spare engines that no longer exist: 6 MB, 262 MiB at the peak;
#: 5 MB with 3.5 MB of spares, 291 MiB.  Before a check held only the modules it was given, 7 MB against 3.5 MB:
#: 0.85x the CPU and 408 against 357 MiB.  A segmented LRU, modules asked for again kept apart from the others,
#: parsed diffusers' modules as often, 2,728 against 2,723 parses in a check of 1,000 of its files: the modules
#: that every engine there reads do not fit in these bytes.)
#: (With facts holding up to 5 MB, below: 7 MB against 8 MB, a cold ``-j 1`` check of diffusers 23.9 against
#: 21.6 s CPU, peak 251 against 261 MiB, ``--diff --unsafe-fixes`` 33.0 against 29.8 s, 289 against 300 MiB.)
#: (Once accelerate's ``prepare`` gives back what it is given, diffusers' training scripts hold more: 6 MB against
#: 7 MB, ``--diff --unsafe-fixes`` 24.8 against 26-27 s CPU, 288 against 302 MiB; the check 250 against 264 MiB.)
MAX_KEPT_BYTES = 6_000_000
#: Files read per importer wanted: a module whose name many files mention (``utils``) is looked for among the
#: first of them only, so its importers cost a bounded number of parses.
_CANDIDATES_PER_IMPORTER = 2
#: Packages climbed to find the directory that holds a file's top package.
MAX_PACKAGE_DEPTH = 16
#: Modules crossed when following a class's bases through the project.
MAX_BASE_HOPS = 4
#: Facts kept that hold parsed modules (:meth:`Project.memo` with *pins*), the most recently used: each keeps
#: the modules it names alive, so they are bounded like the parsed modules.
MAX_PINNING_FACTS = 1024
#: ... and while the modules they hold come to at most this many bytes of source (each counted once, kept or not):
#: a module's facts are kept for its own check and its importers', and in diffusers 83 modules (4.5 MB of source)
#: that left the kept ones stayed alive in them, 30 MB more at the peak.  A fact dropped is found again by the
#: next check that asks (a training script's facts are asked by the check of each module it imports): with 2 MB a
#: cold ``-j 1`` check of diffusers found 377 modules' facts 552 times and parsed 1,390 files 3,122 times, in 42.2 s
#: CPU (peak 223 MiB); with 5 MB, 2,408 parses, 22.2 s (250 MiB); 10 MB gained nothing more (21.2 s).  (Probing
#: an importer's candidates with a bare parse, keeping nothing, parsed as many files: the import search reads each
#: candidate whole for its ``sys.path`` edits and main guard.)
MAX_PINNED_BYTES = 5_000_000


class Reads(Record):
    """What one file's check read besides its own text: files (path -> stamp) and derived facts (key -> digest).
    A kept fact's files are :class:`KeptFiles`."""

    __slots__ = ("files", "derived")

    def __init__(self, files: dict | KeptFiles, derived: dict) -> None:
        self.files = files
        self.derived = derived


class ProjectModule(Record):
    __slots__ = ("path", "index", "resolver", "derived", "stamp", "__weakref__")

    def __init__(self, path: str, index: ModuleIndex, resolver: Resolver, derived: Optional[dict[str, Any]] = None,
                 stamp: Optional[tuple[int, int]] = None) -> None:
        self.path = path
        self.index = index
        self.resolver = resolver
        #: facts derived from this module alone, computed once (keyed by what asks: "heavy", ...)
        self.derived = derived if derived is not None else {}
        #: the file's (size, mtime_ns) when it was parsed (None: not parsed from a file)
        self.stamp = stamp

    def class_named(self, name: str) -> Optional[ast.ClassDef]:
        for binding in self.index.module_scope.bindings.get(name, ()):
            if binding.kind == "class":
                return binding.node
        return None


class Project:
    """The reader of the project's files for one run (see the module docstring)."""

    def __init__(self, registry: Optional["Registry"] = None, snapshot: bool = False) -> None:
        """*snapshot*: the run reads the project as it stood when it began and writes nothing while it reads (the
        command line: see :mod:`..runner`), so the files a kept fact read are confirmed unchanged once per run, not
        once per checked file (a long-lived process, the language server's, must see an edit between two
        checks)."""
        #: the run's registry of worker APIs: which files' text may hold a finding (the project's prefilter)
        self.registry = registry
        self._snapshot = snapshot
        #: a snapshot's answers of :meth:`is_file`: path as asked -> (absolute path, whether it is a file, the stamp
        #: a check that asked depends on)
        self._files: dict[str, tuple[str, bool, Optional[Stamp]]] = {}
        #: a snapshot's records of what it read (:meth:`_record`): path as asked -> (absolute path, its stamp)
        self._stamps: dict[str, tuple[str, Optional[Stamp]]] = {}
        #: path -> ((size, mtime_ns) it was parsed at, the module or None)
        self._modules: OrderedDict[str, tuple[tuple[int, int], Optional[ProjectModule]]] = OrderedDict()
        #: the source bytes of the modules in ``_modules``
        self._kept_bytes = 0
        #: path -> ((size, mtime_ns) they were found at, the import facts or None), the most recently asked
        self._import_facts: OrderedDict[str, tuple[tuple[int, int], Optional["ImportFacts"]]] = OrderedDict()
        #: path -> a parsed module still alive after it left ``_modules`` (a kept fact holds it, see :meth:`memo`, or
        #: a check still running: :meth:`holding`), taken back rather than parsed again, so that every reader gets
        #: the same module of a file
        self._alive: weakref.WeakValueDictionary[str, ProjectModule] = weakref.WeakValueDictionary()
        #: the modules a running check may still use (see :meth:`holding`), alive until it ends
        self._taken: set[ProjectModule] = set()
        self._holding = 0
        #: inside :meth:`importers_of`'s reading of candidates: a module read there is not taken (see there)
        self._probing = 0
        #: (path, attribute, (size, mtime_ns)) -> the value astroid inferred, or values.UNKNOWN
        self._constants: dict[tuple[str, str, tuple[int, int]], Any] = {}
        #: project root -> its imports, read as text (None: too many files to search)
        self._importers: dict[str, Optional["ProjectIndex"]] = {}
        #: project root -> the folders whose listing found it too many files to search, with their mtimes
        self._too_many: dict[str, "SearchInputs"] = {}
        #: project root -> a search done before files may have changed, with what it read of the file system: taken
        #: back when the root is asked for again and that still holds (:meth:`files_may_have_changed`); the most
        #: recently used last
        self._unconfirmed: dict[str, tuple[Optional["ProjectIndex"], "SearchInputs"]] = {}
        #: directory -> the line length configured for files there, and the configuration files looked at (each
        #: with its size and mtime then: a long-lived process sees an edited configuration)
        self._line_lengths: dict[str, tuple[int, tuple[tuple[str, Optional[tuple[int, int]]], ...]]] = {}
        self._reads: Optional[dict[str, Optional[Stamp]]] = None
        #: derived facts the findings of the file being checked depend on: key -> digest (see :meth:`derived`)
        self._derived: Optional[dict[str, str]] = None
        #: the module being checked, from its text (its file on disk may differ: an editor's buffer, the fixer's
        #: rewrite): other modules' analysis sees this version of it
        self._checking: dict[str, ProjectModule] = {}
        #: the paths in ``_checking`` whose text is not the file's (see :meth:`checking`)
        self._buffers: set[str] = set()
        #: file -> (the import rows the project's search read in it, the modules they may name): one per file
        self._named_modules: dict[str, tuple[tuple, Any]] = {}
        self._root_of: dict[str, str] = {}
        #: key -> (a fact derived from files, what it read: files with their stamps then, and derived facts with
        #: their digests, and the parsed modules it holds) (see :meth:`memo`)
        self._memo: dict[Any, tuple[Any, Reads, tuple]] = {}
        #: the facts of ``_memo`` that hold parsed modules, least recently used first
        self._pinning: OrderedDict[Any, tuple] = OrderedDict()
        #: path -> the keys of the facts in ``_pinning`` that hold its module; the source bytes of those modules
        self._pinned_by: dict[str, set] = {}
        self._pinned_bytes = 0
        #: (path, what a kept fact recorded of it) -> whether that still holds, asked once per checked file (once per
        #: run for a snapshot)
        self._held: dict[tuple[str, Optional[Stamp]], bool] = {}
        #: memo keys whose files were seen unchanged during the current check
        self._fresh: set = set()
        #: ... during this run, for a snapshot (see :meth:`_still_holds`)
        self._confirmed: set = set()
        #: memo keys whose reads are in ``_reads`` already (a hit adds them once, not on every use)
        self._replayed: set = set()
        #: facts that read the module being checked (see :meth:`memo`), kept while it is checked
        self._transient: dict[Any, tuple[Any, Reads, tuple]] = {}
        #: the keys of the facts being computed, outermost first (see :meth:`memo`)
        self._computing: dict[Any, None] = {}
        #: facts being computed that used a stand-in answer of a cycle: not kept (see :meth:`memo`)
        self._provisional: set = set()
        #: what is being read for: a new object when a check starts or ends, a fact starts or ends being computed
        #: (each records what it reads), or files change; answers drawn from the project and kept with a parsed
        #: module are asked again through the reader once in each (see names.Resolver)
        self.context: object = object()
        #: what earlier runs read of each file to search the project (io.cache.ScanMemory; None: read them all)
        self.scan_memory: Any = None
        #: files this process is still to check (see :meth:`expect`)
        self._expected: set[str] = set()
        #: path -> ((size, mtime_ns), whether its text may edit sys.path: "1" or "0"), see :meth:`may_edit_path`
        self._may_edit: dict[str, tuple[tuple[int, int], str]] = {}
        #: a snapshot's digests of facts of one file whose stamp changed, found again, and its answers of
        #: :meth:`derived_holds`
        self._found_now: dict[str, str] = {}
        self._derived_held: dict[tuple[str, str], bool] = {}
        from .imports import ImportSearch

        self.imports = ImportSearch(self)

    # ---------------------------------------------------------------- what one file's findings depend on

    @property
    def snapshot(self) -> bool:
        """Whether the run reads the project as it stood when it began (see :meth:`__init__`)."""
        return self._snapshot

    @contextmanager
    def reading(self) -> Iterator["Reads"]:
        """Collect, inside the block, every file read or looked for (absolute path -> its stamp when first named,
        ``None``: it did not exist), and the derived facts used (:meth:`derived`)."""
        previous = self._reads, self._derived, self._fresh, self._replayed, self._held, self.context
        reads = Reads({}, {})
        self._reads, self._derived, self._fresh, self._replayed = reads.files, reads.derived, set(), set()
        self.context = object()
        if not self._snapshot:
            self._held = {}
        try:
            yield reads
        finally:
            self._reads, self._derived, self._fresh, self._replayed, self._held, self.context = previous

    @contextmanager
    def checking(self, path: Optional[str], module: "ProjectModule", on_disk: bool = False) -> Iterator[None]:
        """Inside the block, the module at *path* is *module* (the text being checked) for every reader.
        *on_disk*: *module* is the file's own, the one :meth:`adopt` gave: facts that read it are kept after the
        block, as those that read any other file are."""
        if path is None:
            yield
            return
        key = os.path.abspath(path)
        self._expected.discard(key)
        previous = self._checking.get(key), key in self._buffers
        self._checking[key] = module
        if on_disk:
            self._buffers.discard(key)
        else:
            self._buffers.add(key)
        self._transient.clear()
        try:
            yield
        finally:
            self._transient.clear()
            if previous[0] is None:
                self._checking.pop(key, None)
            else:
                self._checking[key] = previous[0]
            if previous[1]:
                self._buffers.add(key)
            else:
                self._buffers.discard(key)

    def expect(self, paths: Iterable[str]) -> None:
        """This process checks the files at *paths* next (the run's files, a parallel worker's chunk): a module
        among them that the import search asks about before its own check, and whose check will parse it, is
        parsed whole and kept for that check (:meth:`parsed`) rather than parsed bare and again (110 of the 315
        files of pytorch-image-models, 2.9 of its 5.1 MB, were parsed twice).  How a module is read never changes
        what is found: the facts of a module parsed whole are those of its bare parse."""
        self._expected.update(os.path.abspath(path) for path in paths)

    def adopt(self, path: str, tree: ast.Module) -> Optional["ProjectModule"]:
        """The module of the file at *path*, whose text *tree* was parsed from, as every reader of this project
        gets it (the same object, so a fact about it found while checking another file names its nodes): the
        one parsed already while the file keeps its stamp, else one made of *tree*."""
        key = self._record(path)
        stamp = _raw_stamp(key)
        if stamp is None or stamp[0] > MAX_MODULE_BYTES or key.lower().endswith(".ipynb"):
            return None
        module = self._known(key, stamp)
        if module is None:
            index = ModuleIndex(tree)
            module = ProjectModule(key, index, Resolver(index, key, self), stamp=stamp)
            self._keep(key, stamp, module)
            self._take((module,))
        return module

    def memo(self, key: Any, compute: Callable[[], Any], cycle: Any = None,
             pins: Optional[Callable[[Any], Iterable["ProjectModule"]]] = None, renew: bool = False) -> Any:
        """``compute()``, a fact derived from the project's files, kept while every file it read keeps its stamp
        (checked once per checked file), and whose reads count as the checked file's reads on every use, as the
        reads of a served module do.  A computation that needs its own result gets *cycle*.  The module being
        checked is not a file here when its text may not be the file's (an editor's buffer, the fixer's rewrite):
        facts that read it are kept only while it is checked, and facts kept from its file are not used then.

        *pins*: the parsed modules whose nodes the fact holds; it is kept while each is still the one every
        reader gets (a module dropped from the parsed modules and parsed again is another object), and such
        facts are bounded (:data:`MAX_PINNING_FACTS`).  *renew*: compute it even when it is kept (the caller needs
        the computation's side effects), and keep the new one."""
        if key in self._computing:
            # Every fact computed inside the cycle, above *key*, uses the stand-in: none is kept, so what a fact
            # is never depends on which computation asked for it first (only the outermost one, whose value is
            # the same whoever asks, is).
            computing = list(self._computing)
            self._provisional.update(computing[computing.index(key) + 1:])
            return cycle
        kept = None if renew else self._recall(key)
        if kept is not None:
            return kept[0]
        outer, outer_derived, outer_replayed, outer_context = self._reads, self._derived, self._replayed, self.context
        reads = Reads({}, {})
        self._reads, self._derived, self._replayed = reads.files, reads.derived, set()
        self.context = object()
        self._computing[key] = None
        try:
            value = compute()
        finally:
            del self._computing[key]
            provisional = key in self._provisional
            self._provisional.discard(key)
            self._reads, self._derived, self.context = outer, outer_derived, outer_context
            replayed, self._replayed = self._replayed, outer_replayed
        files = KeptFiles(reads.files)
        if outer is not None:
            _note_all(outer, files)
            outer_replayed.update(replayed)  # (their reads are in *reads*, now in *outer* too)
            outer_replayed.add(key)
        if outer_derived is not None:
            for name, digest in reads.derived.items():
                outer_derived.setdefault(name, digest)
        entry = (value, Reads(files, reads.derived), tuple(pins(value)) if pins is not None else ())
        if provisional:
            pass  # (a stand-in answer of a cycle went into it: it is computed again when asked again)
        elif not (self._buffers and self._reads_buffer(reads)):
            self._memo[key] = entry
            self._fresh.add(key)
            if entry[2]:  # (a fact that holds no parsed module is not bounded with those that do)
                self._pin(key, entry[2])
        elif self._checking:
            self._transient[key] = entry
        self._take(entry[2])
        return value

    def recall(self, key: Any) -> tuple[bool, Any]:
        """(True, the fact :meth:`memo` keeps under *key*) if there is one and it still holds -- its reads then count
        as the checked file's, as when :meth:`memo` gives it -- else (False, None)."""
        kept = self._recall(key)
        return (False, None) if kept is None else (True, kept[0])

    def _recall(self, key: Any) -> Optional[tuple[Any, Reads, tuple]]:
        kept = self._transient.get(key)  # (computed during this check, from the text being checked)
        if kept is None:
            kept = self._memo.get(key)
            if kept is not None and self._buffers and self._reads_buffer(kept[1]):
                kept = None  # (a fact of a file whose text is being checked from a buffer: not this text's)
            elif kept is not None and key not in self._fresh:
                if not self._still_holds(key, kept):
                    kept = None
                    self._forget(key)
                elif self._reads is not None:
                    self._fresh.add(key)  # (what it depends on is checked once per checked file)
        if kept is None:
            return None
        # (a fact used thousands of times in one check, the import search's, adds its reads once)
        if self._reads is not None and key not in self._replayed:
            self._replayed.add(key)
            _note_all(self._reads, kept[1].files)
            if self._derived is not None:
                for name, digest in kept[1].derived.items():
                    self._derived.setdefault(name, digest)
        if key in self._pinning:
            self._pinning.move_to_end(key)
        self._take(kept[2])
        return kept

    def _reads_buffer(self, reads: "Reads") -> bool:
        """Whether *reads* read a file whose text is being checked from a buffer, or a derived fact of one."""
        return any(path in reads.files for path in self._buffers) or any(
            key.split(_SEPARATOR, 2)[1] in self._buffers for key in reads.derived
            if key.split(_SEPARATOR, 1)[0] in _FILE_FACTS)

    def _still_holds(self, key: Any, entry: tuple[Any, "Reads", tuple]) -> bool:
        """Whether a kept fact still holds: each file it read keeps its stamp, each derived fact its digest (asked
        once per run for a snapshot, whose files do not change while it runs), and each module it holds is still
        the one readers get."""
        _, reads, pinned = entry
        if key in self._confirmed:
            return all(self._current(module) for module in pinned)
        for path, stamp in reads.files.items():
            held = self._held.get((path, stamp))
            if held is None:
                known = self._files.get(path) if stamp == PRESENT_FILE else None  # (a snapshot asked it already)
                # (an mtime too recent to trust proves a file unchanged only within a snapshot's run: a long-lived
                # reader's next check may come after an edit that kept the file's size within the same tick)
                held = self._held[(path, stamp)] = known[1] if known is not None else holds(
                    path, stamp, trust_recent=self._snapshot)
            if not held:
                return False
        if not all(self.derived_holds(name, digest) for name, digest in reads.derived.items()):
            return False
        if self._snapshot:
            self._confirmed.add(key)
        return all(self._current(module) for module in pinned)

    def _current(self, module: "ProjectModule") -> bool:
        if module.path in self._checking:
            return self._checking[module.path] is module
        cached = self._modules.get(module.path)
        return (cached[1] if cached is not None else self._alive.get(module.path)) is module

    def _pin(self, key: Any, modules: tuple) -> None:
        """Count the fact kept under *key* among those that hold parsed modules; the least recently used of them
        are forgotten while they are more than :data:`MAX_PINNING_FACTS`, or while the modules they hold (each
        counted once) come to more than :data:`MAX_PINNED_BYTES` of source."""
        self._pinning[key] = modules
        for module in modules:
            holders = self._pinned_by.setdefault(module.path, set())
            if not holders:
                self._pinned_bytes += (module.stamp or (0, 0))[0]
            holders.add(key)
        while len(self._pinning) > 1 and (len(self._pinning) > MAX_PINNING_FACTS
                                          or self._pinned_bytes > MAX_PINNED_BYTES):
            self._forget(next(iter(self._pinning)))

    def _forget(self, key: Any) -> None:
        self._memo.pop(key, None)
        self._confirmed.discard(key)
        for module in self._pinning.pop(key, ()):
            holders = self._pinned_by.get(module.path)
            if holders is not None:
                holders.discard(key)
                if not holders:
                    del self._pinned_by[module.path]
                    self._pinned_bytes -= (module.stamp or (0, 0))[0]

    def record(self, path: str) -> None:
        """Record the file at *path* as read: a module read without being recorded (see :meth:`module`) whose
        content is now used."""
        self._record(path)

    def _record(self, path: str) -> str:
        """*path*, absolute, recorded as read: its content is a dependency.  A snapshot stats each path once (a run
        over diffusers asks 146,000 times), and every fact that read a file records the same two objects for it
        (2,092 facts of diffusers name 500 files each)."""
        known = self._stamps.get(path)
        if known is None:
            key = os.path.abspath(path)
            if not self._snapshot and self._reads is None:
                return key
            known = self._stamp_of(key)
            if self._snapshot:
                self._stamps[path] = known
        if self._reads is not None:
            _note(self._reads, *known)
        return known[0]

    def _stamp_of(self, key: str) -> tuple[str, Optional[Stamp]]:
        """(*key*, the stamp a read of the file at *key*, absolute, records), kept by a snapshot."""
        known = self._stamps.get(key)
        if known is None:
            known = (key, stat_stamp(key))
            if self._snapshot:
                if known[1] is not None and known[1][1] is None and known[1][0] <= MAX_MODULE_BYTES:
                    # (just edited: what the results cache keeps of it for the next run is its content, or every
                    # file that read it would be checked again then, 22 s after an edit on the ML corpus)
                    known = (key, content_stamp(key) or known[1])
                self._stamps[key] = known
        return known

    # ---------------------------------------------------------------- files

    def is_file(self, path: str) -> bool:
        """Whether *path* is a file; the answer (either way), not the file's content, is a dependency.  A snapshot
        asks the file system once per path (the import search asks again at every import of every module it
        evaluates: 4% of a run over diffusers)."""
        known = self._files.get(path)
        if known is None:
            key = os.path.abspath(path)
            found = os.path.isfile(key)
            if not self._snapshot and self._reads is None:
                return found  # (nothing keeps or records the answer: a missing path's stamp is not wanted)
            known = (key, found, PRESENT_FILE if found else stat_stamp(key))
            if self._snapshot:
                self._files[path] = self._files[key] = known
        if self._reads is not None:
            _note(self._reads, known[0], known[2])
        return known[1]

    def exists(self, path: str) -> bool:
        """Whether anything (a file, a directory, a dangling link) is at *path*; the answer is a dependency."""
        key = os.path.abspath(path)
        found = os.path.lexists(key)
        if self._reads is not None:
            _note(self._reads, key, PRESENT if found else None)
        return found

    def module(self, path: str, record: bool = True) -> Optional[ProjectModule]:
        """The parsed module at *path*, or None (missing, too large, not Python).  *record*: its content is a
        dependency of what is being found (else the caller records what it uses of it: :meth:`record`, or how it
        binds a name, :meth:`binding_used`, and that it is one, :meth:`module_used`)."""
        key = os.path.abspath(path)
        if record or key in self._checking:  # (a text being checked is recorded as a file: see memo)
            self._record(key)
        if key in self._checking:
            return self._checking[key]
        stamp = _raw_stamp(key)
        if stamp is None:
            return None
        cached = self._modules.get(key)
        if cached is not None and cached[0] == stamp and cached[1] is None:
            self._modules.move_to_end(key)
            return None  # (known not to parse)
        module = self._known(key, stamp)
        if module is not None:
            return module
        if stamp[0] <= MAX_MODULE_BYTES:
            try:
                with open(key, "rb") as handle:
                    data = handle.read()
                if key.lower().endswith(".ipynb"):
                    from ..io.notebook import loads

                    data = loads(data.decode("utf-8"), check_syntax=False).module.encode("utf-8")
                tree = compact_tree.parse(data, filename=key)
                index = ModuleIndex(tree)
                module = ProjectModule(key, index, Resolver(index, key, self), stamp=stamp)
            except Exception:  # unreadable, not Python, not a notebook, too deep: unknown, and the checks stay silent
                module = None
        self._keep(key, stamp, module)
        if module is not None and not self._probing:
            self._take((module,))
        return module

    def parsed(self, path: str) -> Optional[ast.Module]:
        """The syntax tree of the module the reader has of the file at *path*, while the file keeps the stamp it
        was parsed at (None: it is not kept, or it changed): a check of the file's text as it is on disk takes it
        (and :meth:`adopt` then gives that module)."""
        key = os.path.abspath(path)
        stamp = _raw_stamp(key)
        module = self._known(key, stamp) if stamp is not None and key not in self._checking else None
        return module.index.tree if module is not None else None

    def _known(self, key: str, stamp: tuple[int, int]) -> Optional[ProjectModule]:
        """The module parsed from the file at *key* while it had *stamp*: kept, or still alive (a kept fact or a
        running check holds it), which then is kept again; None when there is none."""
        cached = self._modules.get(key)
        if cached is not None and cached[0] == stamp and cached[1] is not None:
            self._modules.move_to_end(key)
            module = cached[1]
        else:
            module = self._alive.get(key)
            if module is None or module.stamp != stamp:
                return None
            self._keep(key, stamp, module)
        if not self._probing:
            self._take((module,))
        return module

    def _keep(self, key: str, stamp: tuple[int, int], module: Optional[ProjectModule]) -> None:
        previous = self._modules.pop(key, None)
        if previous is not None and previous[1] is not None:
            self._kept_bytes -= previous[0][0]
        self._modules[key] = (stamp, module)
        if module is not None:
            self._alive[key] = module
            self._kept_bytes += stamp[0]
        while len(self._modules) > 1 and (len(self._modules) > MAX_MODULES_KEPT
                                          or self._kept_bytes > MAX_KEPT_BYTES):
            _, (dropped_stamp, dropped) = self._modules.popitem(last=False)
            if dropped is not None:
                self._kept_bytes -= dropped_stamp[0]

    def _take(self, modules: Iterable[ProjectModule]) -> None:
        """The check running (:meth:`holding`) may use *modules*: they stay alive until it ends.  Each module the
        reader gives a check is taken (outside :meth:`importers_of`'s reading of candidates, whose nodes no answer
        holds), and so is each module a fact it is given pins; a kept module that leaves the kept ones while the
        check runs, and that the check was not given, is not held by it (freed then, unless a fact holds it).
        (Taking every module that left, the modules kept before a check that reads many stayed alive
        beside those it read: 45 MiB more at the peak of a run over diffusers.)"""
        if self._holding:
            self._taken.update(modules)

    @contextmanager
    def holding(self) -> Iterator[None]:
        """Inside the block (a file's check, its fixes' checks with it), the parsed modules the check may still
        use stay alive, as it may hold bindings, scopes and sites it found in them: those the reader gave it, and
        those pinned by each fact the check was given (:meth:`memo`; a kept fact may be dropped before the check
        ends), though they leave the kept modules meanwhile (:meth:`_take`).  After the outermost block, those no
        fact holds are freed at once."""
        self._holding += 1
        try:
            yield
        finally:
            self._holding -= 1
            if not self._holding:
                self._taken.clear()

    def constant(self, path: str, attribute: str) -> Any:
        """The value astroid infers for module-level *attribute* of the module at *path*, or values.UNKNOWN."""
        from .values import UNKNOWN

        key = self._record(path)
        stamp = _raw_stamp(key)
        if stamp is None or not os.path.isfile(key) or stamp[0] > MAX_MODULE_BYTES:
            return UNKNOWN
        cache_key = (key, attribute, stamp)
        if cache_key not in self._constants:
            from .inference import module_constant

            self._constants[cache_key] = module_constant(key, attribute)
        return self._constants[cache_key]

    # ---------------------------------------------------------------- imports between project modules

    def resolve_import(self, filename: str, qualname: str, record: bool = True) -> Optional[tuple[str, ProjectModule]]:
        """For the qualified name of a ``from M import name`` binding in *filename* (``.extended.Name``,
        ``pkg.data.Name``): (``Name``, the project module M), when M is a file of the project.  *record*: as for
        :meth:`module`."""
        level = len(qualname) - len(qualname.lstrip("."))
        dotted = qualname[level:]
        if "." not in dotted:
            return None
        module, name = dotted.rsplit(".", 1)
        base = os.path.dirname(os.path.abspath(filename))
        if level:
            for _ in range(level - 1):
                base = os.path.dirname(base)
            roots = [base]
        else:
            roots = self._roots(base)
        for root in roots:
            path = self._module_path(root, module.split("."))
            if path is not None:
                found = self.module(path, record=record)
                return (name, found) if found is not None else None
        return None

    def _module_path(self, root: str, parts: list[str]) -> Optional[str]:
        if not all(part.isidentifier() for part in parts):
            return None
        stem = os.path.join(root, *parts)
        for candidate in (stem + ".py", os.path.join(stem, "__init__.py")):
            if self.is_file(candidate):
                return candidate
        return None

    def imported(self, module: ProjectModule, name: str) -> Optional[tuple[str, ProjectModule]]:
        """For a name *module* imports from another project module: (its name there, that module)."""
        bindings = module.index.module_scope.bindings.get(name, ())
        last = tried_first(bindings[-1]) if bindings else None
        if last is None or last.kind != "import" or not isinstance(last.node, ast.ImportFrom):
            return None
        return self.resolve_import(module.path, last.qualname or "")

    def imported_base(self, filename: str, qualname: str, targets: frozenset, hops: int = 0) -> Optional[str]:
        """For a base class imported from a project module (*qualname* of its import binding): the name in
        *targets* it derives from there (``from .base import _BaseTrainer`` → ``transformers.Trainer``), or None."""
        if hops > MAX_BASE_HOPS or not qualname or qualname.startswith("<module>."):
            return None
        found = self.resolve_import(filename, qualname)
        return self._class_base(found[1], found[0], targets, hops + 1) if found is not None else None

    def _class_base(self, module: ProjectModule, name: str, targets: frozenset, hops: int) -> Optional[str]:
        if hops > MAX_BASE_HOPS:
            return None
        node = module.class_named(name)
        if node is None:  # re-exported: `from .extended import ExtendedVisionDataset` in a package's __init__
            again = self.imported(module, name)
            return self._class_base(again[1], again[0], targets, hops + 1) if again is not None else None
        scope = module.index.module_scope
        for base in node.bases:
            qualname = module.resolver.qualname(base, scope) or ""
            if qualname in targets:
                return qualname
            if qualname.startswith("<module>."):
                found = self._class_base(module, qualname.split(".", 1)[1], targets, hops + 1)
            elif isinstance(base, ast.Name):
                found = self.imported_base(module.path, qualname, targets, hops + 1)
            else:
                found = None
            if found is not None:
                return found
        return None

    def _roots(self, directory: str) -> list[str]:
        """Where absolute imports of a file's project resolve: its directory, and the one above its top
        package."""
        roots = [directory]
        current = directory
        for _ in range(MAX_PACKAGE_DEPTH):
            if not self.is_file(os.path.join(current, "__init__.py")):
                break
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
        if current != directory:
            roots.append(current)
        return roots

    # ---------------------------------------------------------------- the project as a whole

    def root(self, path: str) -> str:
        """The project's root folder for the file at *path*: the nearest folder above it that holds
        ``pyproject.toml``, ``setup.py``, ``setup.cfg`` or ``.git``.  When a walk from there would not reach the
        file (it is in a hidden or build folder of that project), the folder inside the last such folder on the
        way to the file (``.scratch/app`` for ``.scratch/app/tools/x.py``): the project a walk from the marker
        skips, whichever folder the run is in.  Without a marker, or where libraries are installed (a library
        checked there is its own project, not the checkout that holds Python), the folder the run is in when the
        file is below it (what the user asked to check), else the file's own folder."""
        here = os.path.dirname(os.path.abspath(path))
        if here not in self._root_of:
            from .importers import marker_root, skipped_project
            from .imports import in_library_folder

            found = marker_root(path)
            if found is None or in_library_folder(here):
                cwd = os.getcwd()
                found = cwd if here == cwd or here.startswith(os.path.join(cwd, "")) else here
            else:
                found = skipped_project(found, here) or found
            self._root_of[here] = found
        return self._root_of[here]

    def relevant(self, path: str) -> bool:
        """Whether a file whose own text names no worker API may still hold a finding through the modules it
        imports or that import it (:meth:`ProjectIndex.relevant`); a derived fact of its check.  So when the
        project's search did not read the file, though it is there (it is in a folder a walk from the root skips,
        a hidden or build one, and the run was asked to check it), as :meth:`reaches` says of such a file."""
        return self.derived(_key("relevant", self.root(path), os.path.abspath(path))) == "1"

    def reaches(self, path: str) -> bool:
        """Whether the module at *path* may call a worker API, or hand what it makes to one, by its own text or
        through a name it imports (:meth:`.importers.ImportGraph.reaches`); so when the project, or the file, is
        not searched.  A derived fact of the check that asks."""
        return self.derived(_key("reaches", self.root(path), os.path.abspath(path))) == "1"

    def imported_from_folder(self, folder: str, name: str) -> bool:
        """Whether a script or notebook directly in *folder* imports a module whose dotted name begins with *name*
        (``from exp.exp_main import Exp`` in ``run.py``): when it runs, *folder* is first on ``sys.path`` for the
        modules it imports.  As the project's search read the files (no search: no); a derived fact of the check
        that asks, which a new such script changes."""
        key = os.path.abspath(folder)
        return self.derived(_key("imported from", self.root(key), os.path.join(key, name))) == "1"

    def names_api(self, path: str) -> bool:
        """Whether the text of the file at *path* names a worker API, as the project's search read it (a fact of
        the file's own text: a caller that read the file depends on nothing more)."""
        key = os.path.abspath(path)
        index = self.importers(self.root(key))
        return index is not None and key in index.sinks

    def text_reaches(self, path: str, text: str) -> bool:
        """Whether a name that *text*, a text of the module at *path* that may not be the file's (an editor's
        unsaved buffer), imports may lead to a worker API (:meth:`.importers.ImportGraph.text_reaches`): the
        file's own answer (:meth:`reaches`) is about the imports it has on disk.  The answers for the files its
        imports may load are recorded as derived facts of the check."""
        key = os.path.abspath(path)
        root = self.root(key)
        index = self.importers(root)
        if index is None:
            return True  # (as the file's own answer, when the project is not searched)
        found, loaded = index.graph().text_reaches(key, text)
        for other in sorted(loaded):
            self.derived(_key("reaches", root, other))
        return found

    def mentioning(self, path: str, name: str) -> Optional[list[str]]:
        """The project's files other than the one at *path* whose imports mention *name*, in the order the search
        found them; None when the project has too many files to search.  Recorded as a derived fact: a file
        added that imports the module changes the answer (a record of a run that checked only the module, whose
        fix's safety said no file imports it, held after one did)."""
        key = os.path.abspath(path)
        root = self.root(key)
        index = self.importers(root)
        self.derived(_key("importers", root, name))
        return None if index is None else [other for other in index.mentions.get(name, ()) if other != key]

    def importers_of(self, path: str, limit: int) -> list[str]:
        """The first *limit* (nearest first: :func:`_nearest_first`) of the project's modules and notebooks whose
        imports name the module at *path* (resolved as Python would resolve them).  The answer depends on every
        file of the project: the set of files whose imports mention the module is recorded as a derived fact
        (:meth:`derived`); a popular module's other importers are not parsed."""
        from .importers import ModulePath, module_name

        key = os.path.abspath(path)
        candidates = sorted(self.mentioning(key, module_name(key)) or (), key=_nearest_first(key))
        index = self.importers(self.root(key))  # (what mentioning() read the candidates from)
        target = ModulePath(key)
        out: list[str] = []
        # A candidate is read only to be asked what it imports (and its import search what it adds to sys.path):
        # no answer holds its nodes, so the check does not take it (:meth:`_take`), and it is freed when it leaves
        # the kept modules.  Most of a popular name's candidates do not import this module (``utils``: 1,415 files
        # of diffusers mention it): one check of diffusers read 4.9 MB of them, which, taken, held 49 MiB more.
        self._probing += 1
        try:
            for candidate in candidates[:limit * _CANDIDATES_PER_IMPORTER]:
                if len(out) >= limit:
                    break
                if self._may_import(candidate, key, target, index) and key in self.imported_files(candidate):
                    out.append(candidate)
        finally:
            self._probing -= 1
        return out

    def _may_import(self, candidate: str, key: str, target: "ModulePath", index: Optional["ProjectIndex"]) -> bool:
        """Whether the imports of the file at *candidate*, as the project's search read them, may name the module
        at *key* (*target*, its path as compared; *index*, the project's search that found the candidate:
        :class:`.importers.NamedModules`): when they cannot, the file is not parsed to be asked.  A "no" is recorded
        as a derived fact of the candidate (it no longer holds once the file is edited to import the module), as the
        parse's answer is (``import rows``)."""
        if candidate in self._buffers or candidate in self._checking:
            return True  # (a text that may not be the file's: its own imports answer)
        if self._names_module(candidate, target, index):
            return True
        if self._derived is not None:
            fact = _key("names module", candidate, key)
            if fact not in self._derived:
                self._derived[fact] = self._file_fact(candidate, "0")
        return False

    def _names_module(self, candidate: str, target: "ModulePath", index: Optional["ProjectIndex"]) -> bool:
        from .importers import NamedModules

        rows = index.imports.get(candidate) if index is not None else None
        if rows is None:
            return True
        kept = self._named_modules.get(candidate)
        if kept is None or kept[0] is not rows:  # (the rows of another search: the file, or the project, changed)
            kept = self._named_modules[candidate] = (rows, NamedModules(rows, candidate))
        return kept[1].may_name(target)

    def imported_files(self, path: str) -> frozenset[str]:
        """The project files the imports of the module at *path* name (at any place of it), as the import search
        resolves them; kept per run while the files read for it keep their stamps (:meth:`memo`): a module
        dropped from the parsed modules is not parsed again to be asked."""
        return self.memo(("imported files", os.path.abspath(path)), lambda: self._imported_files(path))

    def _imported_files(self, path: str) -> frozenset[str]:
        key = os.path.abspath(path)
        # (what the module imports, not the rest of it: an edit of a package's __init__.py that keeps its imports
        # leaves who imports whom as it was)
        facts = self._import_facts_used(key, "import rows")
        if facts is None:
            return frozenset()
        found = set()
        for module, level, names in facts.imports:
            if level < 0:  # (``import a.b``: a, then a.b)
                for name in names:
                    parts = name.split(".")
                    for end in range(1, len(parts) + 1):
                        target = self.imports.module_file(key, ".".join(parts[:end]))
                        if target is not None:
                            found.add(target)
                continue
            base = self.imports.module_file(key, module or "", level)
            if base is not None:
                found.add(base)
            for name in names:
                target = self.imports.module_file(key, f"{module}.{name}" if module else name, level)
                if target is not None:
                    found.add(target)
        return frozenset(found)

    def import_facts(self, path: str) -> Optional["ImportFacts"]:
        """What the import search asks of the module at *path* (:class:`.imports.ImportFacts`), None when there
        is no module (missing, too large, not Python: as :meth:`module` says).  The module the reader has (being
        checked, or kept) answers; else a bare parse of the file, unless its text may edit ``sys.path``: most
        modules the search asks are asked nothing else, and their index is not built (a tenth of a cold run of
        diffusers was the index of modules asked only whether they import the one being checked).  The facts of
        the last :data:`MAX_IMPORT_FACTS` files asked are kept while each keeps its stamp."""
        from .imports import import_facts_of_module

        key = os.path.abspath(path)
        if key in self._checking:  # (the text being checked, which may not be the file's)
            module = self.module(key)
            return import_facts_of_module(module) if module is not None else None
        self._record(key)  # (the facts are the file's: a check that asks depends on its content)
        stamp = _raw_stamp(key)
        kept = self._import_facts.get(key)
        if kept is not None and stamp is not None and kept[0] == stamp:
            self._import_facts.move_to_end(key)
            return kept[1]
        facts = self._import_facts_of_file(key, stamp)
        # (a long-lived reader keeps no facts of a file whose mtime is too recent to prove it unchanged later)
        if stamp is not None and (self._snapshot or time.time_ns() - stamp[1] >= RACY_NS):
            self._import_facts[key] = (stamp, facts)
            if len(self._import_facts) > MAX_IMPORT_FACTS:
                self._import_facts.popitem(last=False)
        return facts

    def _import_facts_of_file(self, key: str, stamp: Optional[tuple[int, int]]) -> Optional["ImportFacts"]:
        from .imports import import_facts_of_module, import_facts_of_text

        data = self._unparsed_source(key, stamp)
        if data is not None and key in self._expected and self._analysed(key):
            data = None  # (parsed whole below, for its check)
        if data is not None:
            try:
                facts = import_facts_of_text(data)
            except Exception:  # (not Python: as the module is found, or not)
                facts = None
            if facts is not None:
                return facts
        module = self.module(key)
        return import_facts_of_module(module) if module is not None else None

    def _analysed(self, key: str) -> bool:
        """Whether the check of the file at *key* will parse it, as the project's search read it (its text names a
        worker API, or the modules around it may give it a finding): a guess that only decides how a module is
        read, so it records nothing."""
        index = self._importers.get(self.root(key))
        return index is not None and (key in index.sinks or index.relevant(key))

    def may_edit_path(self, path: str) -> bool:
        """Whether the module at *path* may edit ``sys.path`` (:func:`.imports.may_edit_path`; True when it is not
        a Python file that can be read, or is being checked from a text that may not be the file's: then the module
        itself answers): asked of each module another imports at top level, most of which edit nothing and need
        not be parsed for it.  A derived fact: what asks depends on the answer, not on the rest of the file."""
        key = os.path.abspath(path)
        if key in self._buffers or key.lower().endswith(".ipynb"):
            self._record(key)
            return True
        return self.derived(_key("may edit", key, "")).endswith("|1")

    def _may_edit_digest(self, key: str) -> str:
        from .imports import may_edit_path

        stamp = _raw_stamp(key)
        known = self._may_edit.get(key)
        if known is not None and stamp is not None and known[0] == stamp and (
                self._snapshot or time.time_ns() - stamp[1] >= RACY_NS):
            return known[1]
        data = None
        if stamp is not None and stamp[0] <= MAX_MODULE_BYTES:
            try:
                with open(key, "rb") as handle:
                    data = handle.read()
            except OSError:
                pass
        found = "1" if data is None or may_edit_path(data) else "0"
        if stamp is not None:
            self._may_edit[key] = (stamp, found)
        return found

    def _unparsed_source(self, key: str, stamp: Optional[tuple[int, int]]) -> Optional[bytes]:
        """The source of the file at *key* (recorded as read by the caller; *stamp*: its raw stamp now), when the
        reader has no module of it (not being checked, not kept) and it is a Python file :meth:`module` would
        parse; else None."""
        if key in self._checking or key.lower().endswith(".ipynb"):
            return None
        if stamp is None or stamp[0] > MAX_MODULE_BYTES or self._modules.get(key, (None,))[0] == stamp \
                or self._alive.get(key) is not None:
            return None
        try:
            with open(key, "rb") as handle:
                return handle.read()
        except OSError:
            return None

    def derived(self, key: str) -> str:
        """The digest of a derived fact, recorded as a dependency of the file being checked: ``importers`` (the
        files under a root whose imports mention a name), ``relevant`` (whether a file may hold a finding through
        the modules around it), ``reaches`` (whether a module may reach a worker API), or a fact of one file
        (:data:`_FILE_FACTS`): ``module`` (a module is there and parses: :meth:`module_used`), ``binding`` (how it
        binds a name: :meth:`binding_used`), ``may edit`` (whether its text may edit ``sys.path``), ``search
        facts`` (:meth:`search_facts`), ``import rows`` (its import statements: :meth:`imported_files`) or ``names
        module`` (whether the imports the project's search read in it may name a module: :meth:`_may_import`)."""
        digest = self._derived_digest(key)
        if self._derived is not None:
            self._derived.setdefault(key, digest)
        return digest

    def binding_used(self, module: ProjectModule, name: str) -> None:
        """Record that what is being found used, of *module* (read without being recorded: :meth:`module`), how
        it binds *name* at module level, and nothing else: imports that pass a name on (a package's
        ``__init__.py``), or, when it binds none, its star imports.  An edit elsewhere in the module (a new name, a
        changed function that was not used) then leaves the finding standing; the caller records the module's
        content (:meth:`record`) as soon as it uses anything more of it.  (Editing ``timm/layers/__init__.py``,
        which 107 files import, checked 212 of pytorch-image-models' 263 files again when every read of a module
        was a read of all of it.)"""
        if self._derived is not None:
            key = _key("binding", module.path, name)
            if key not in self._derived:
                self._derived[key] = self._file_fact(module.path, binding_digest(module, name))

    def module_used(self, module: ProjectModule) -> None:
        """Record that what is being found used that *module* (read without being recorded: :meth:`module`) is
        one: a module of the project is there and parses."""
        if self._derived is not None:
            key = _key("module", module.path, "")
            if key not in self._derived:
                self._derived[key] = self._file_fact(module.path, "1")

    def _derived_digest(self, key: str) -> str:
        kind, root, name = (key.split(_SEPARATOR) + ["", "", ""])[:3]
        if kind == "module":
            return self._file_fact(root, "0" if self.module(root, record=False) is None else "1")
        if kind == "binding":  # (the module's path where a root stands)
            module = self.module(root, record=False)
            return self._file_fact(root, binding_digest(module, name) if module is not None else "no module")
        if kind == "may edit":
            return self._file_fact(root, self._may_edit_digest(root))
        if kind in ("search facts", "import rows"):
            with self._unrecorded():
                facts = self.import_facts(root)
            return self._import_facts_digest(root, kind, facts)
        if kind == "names module":
            from .importers import ModulePath

            found = self._names_module(root, ModulePath(name), self.importers(self.root(name)))
            return self._file_fact(root, "1" if found else "0")
        if kind == "importers":
            stem = name
            index = self.importers(root)
            files = sorted(index.mentions.get(stem, ())) if index is not None else ["<too many files>"]
            return content_hash("\0".join(files).encode("utf-8", "surrogatepass"))
        if kind == "relevant":
            index = self.importers(root)
            if index is None:
                return "0"
            # (a file the search did not read, though it is there: as reaches() says of it)
            return "1" if index.relevant(name) or (name not in index.imports and os.path.isfile(name)) else "0"
        if kind == "imported from":
            index = self.importers(root)
            if index is None:
                return "0"
            folder, first = os.path.split(name)
            return "1" if first in index.first_parts(folder) else "0"
        if kind == "reaches":
            index = self.importers(root)
            return "1" if index is None or name not in index.imports or index.reaches(name) else "0"
        return ""

    def derived_holds(self, key: str, digest: str) -> bool:
        """Whether the derived fact *key* still has *digest*.  A fact of one file (:data:`_FILE_FACTS`) holds
        without being found again while the file keeps the stamp its digest begins with."""
        if self._snapshot:  # (the results cache asks the same facts of hundreds of entries)
            known = self._derived_held.get((key, digest))
            if known is None:
                known = self._derived_held[(key, digest)] = self._derived_holds(key, digest)
            return known
        return self._derived_holds(key, digest)

    def _derived_holds(self, key: str, digest: str) -> bool:
        kind, root, _ = (key.split(_SEPARATOR) + ["", "", ""])[:3]
        if kind in _FILE_FACTS:
            recorded, _, found = digest.partition("|")
            stamp = _stamp_in(recorded)
            held = self._held.get((root, stamp))
            if held is None:
                held = self._held[(root, stamp)] = stamp not in PRESENCE and holds(
                    root, stamp, trust_recent=self._snapshot)
            if held:
                return True
            now = self._found_now.get(key) if self._snapshot else None
            if now is None:
                now = self._derived_digest(key)
                if self._snapshot:
                    self._found_now[key] = now
            return now.partition("|")[2] == found
        return self._derived_digest(key) == digest

    @staticmethod
    def same_derived(key: str, kept: str, other: str) -> Optional[str]:
        """Of two digests of the derived fact *key* that the entries of one run hold, each found to hold, the one
        to keep when both say the same: a fact of one file found alike, the file known by its content in one (an
        entry made while its mtime was too recent to trust) and by its mtime in the other (made once it was old);
        the one by mtime, which the next run proves with a stat.  None when they say different things."""
        if key.split(_SEPARATOR, 1)[0] not in _FILE_FACTS:
            return None
        kept_stamp, _, kept_found = kept.partition("|")
        other_stamp, _, other_found = other.partition("|")
        if kept_found != other_found:
            return None
        by_mtime = _stamp_in(other_stamp)
        return other if by_mtime is not None and by_mtime not in PRESENCE and isinstance(by_mtime[1], int) else kept

    def _file_fact(self, path: str, found: str) -> str:
        """The digest of a fact found from the file at *path* alone: its stamp (by its content when its mtime is
        too recent to trust, as a snapshot records it), then what was found."""
        stamp = self._stamp_of(path)[1]
        if stamp is not None and stamp[1] is None and stamp[0] <= MAX_MODULE_BYTES:
            stamp = content_stamp(path) or stamp
        return f"{_stamp_text(stamp)}|{found}"

    @contextmanager
    def _unrecorded(self) -> Iterator[None]:
        """Inside the block, nothing read is recorded (a derived fact is found: what asks depends on its digest)."""
        previous = self._reads, self._derived
        self._reads = self._derived = None
        try:
            yield
        finally:
            self._reads, self._derived = previous

    def search_facts(self, path: str) -> Optional["ImportFacts"]:
        """:meth:`import_facts` of the module at *path* as the search for the folders of its own imports uses
        them: what asks depends on whether it has a main guard or reads the command line, which modules it imports
        first and whether its text may edit ``sys.path`` (a derived fact), not on the rest of it: an edit of a
        package's ``__init__.py`` that leaves these as they were does not move where its imports are found."""
        return self._import_facts_used(path, "search facts")

    def _import_facts_used(self, path: str, kind: str) -> Optional["ImportFacts"]:
        """:meth:`import_facts` of the module at *path*, recorded as the derived fact *kind* (what the asker uses
        of them) rather than as a read of the file."""
        key = os.path.abspath(path)
        if key in self._buffers or key.lower().endswith(".ipynb"):
            return self.import_facts(key)
        derived = self._derived
        with self._unrecorded():
            facts = self.import_facts(key)
        if derived is not None and _key(kind, key, "") not in derived:
            derived[_key(kind, key, "")] = self._import_facts_digest(key, kind, facts)
        return facts

    def _import_facts_digest(self, path: str, kind: str, facts: Optional["ImportFacts"]) -> str:
        """The digest of the derived fact *kind* (``search facts`` or ``import rows``) of the module at *path*,
        whose import facts are *facts*."""
        if facts is None:
            return self._file_fact(path, "no module")
        # (the rows as a set: the index and a bare parse list them in different orders)
        used = sorted(set(map(repr, facts.imports))) if kind == "import rows" else (
            facts.main_guard, facts.reads_argv, facts.first_imports, self._may_edit_digest(path))
        return self._file_fact(path, content_hash(repr(used).encode("utf-8", "surrogatepass")))

    def search_inputs(self, derived: Iterable[str]) -> Optional[tuple[dict[str, int], dict[str, Optional[Stamp]]]]:
        """What the derived facts *derived* (their keys) were found from, when this reader searched each of their
        projects with the results cache and could trust all it saw: (each folder the searches listed -> its mtime,
        each file they found, or a ``relevant``/``reaches`` fact asked of outside them, -> its stamp); while all of
        it holds, every one of these facts has its digest.  None when not known (a project searched by a parallel
        run's worker, or with too many files, or changed too recently)."""
        folders: dict[str, int] = {}
        files: dict[str, Optional[Stamp]] = {}
        for key in derived:
            kind, root, name = (key.split(_SEPARATOR) + ["", "", ""])[:3]
            if kind in _FILE_FACTS:  # (a fact of one file: while the file keeps its stamp, it has its digest)
                files[root] = self._stamp_of(root)[1]
                continue
            index = self._importers.get(root)
            if index is None or index.inputs is None:
                return None
            folders.update(index.inputs.folders)
            files.update(index.inputs.files)
            if kind in ("relevant", "reaches") and name not in index.imports and name not in files:
                files[name] = PRESENT_FILE if os.path.isfile(name) else None  # (as _derived_digest asks)
        return folders, files

    def importers(self, root: str) -> Optional["ProjectIndex"]:
        """The imports of the files under *root* (:class:`.importers.ProjectIndex`); None when there are too many
        files to search.  Read once per root and run."""
        if root not in self._importers:
            from .importers import SearchInputs, scan
            from .prefilter import may_have_findings, may_name_api

            earlier = self._unconfirmed.pop(root, None)
            if earlier is not None and earlier[1].hold():
                self._importers[root] = earlier[0]
                if earlier[0] is None:
                    self._too_many[root] = earlier[1]
                return earlier[0]

            registry = self.registry
            if registry is None:
                from ..spawn_apis import DEFAULT_REGISTRY

                registry = DEFAULT_REGISTRY
            listed: dict[str, int] = {}
            index = self._importers[root] = scan(root, lambda text: may_have_findings(text, registry),
                                                 self.scan_memory, lambda word: may_name_api(word, registry), listed)
            if index is None and listed:
                self._too_many[root] = SearchInputs(listed, {})
        return self._importers[root]

    def files_changed(self) -> None:
        """Files of the project were created, changed or deleted: forget what was searched across the project
        (:meth:`importers`).  What was read file by file checks itself against the file's size and mtime.  A
        long-lived owner (the language server) calls this when its client reports changed files."""
        self._importers.clear()
        self._too_many.clear()
        self._unconfirmed.clear()
        self._named_modules.clear()
        self._root_of.clear()  # (a marker file created or deleted moves a project's root)
        self.context = object()

    def files_may_have_changed(self) -> None:
        """As :meth:`files_changed`, for an owner that is not told what changed (the public API, between its
        calls): a search of a project is taken back, when its root is asked for again, while every folder it listed
        and every file it found are as they were (:meth:`.importers.SearchInputs.hold`), and so is the answer that
        a project has too many files to search while the folders listed to find that are; each is done again
        otherwise.  Only the :data:`MAX_UNCONFIRMED` searches last used are kept so, and none is checked before it
        is asked for (a caller going through many projects pays for the one it checks in)."""
        earlier = dict(self._unconfirmed)
        for root, index in self._importers.items():
            inputs = index.inputs if index is not None else self._too_many.get(root)
            earlier.pop(root, None)
            if inputs is not None:
                earlier[root] = (index, inputs)
        self.files_changed()
        self._unconfirmed = dict(list(earlier.items())[-MAX_UNCONFIRMED:])
        if self.scan_memory is not None:
            self.scan_memory.keep_only(self._unconfirmed)  # (what was read of each file of the projects let go)

    def line_length(self, path: Optional[str]) -> int:
        """The maximum line length the project configures for *path* (flake8/pycodestyle ini files, ruff,
        black); its configuration files are dependencies of what the fixer writes."""
        if not path or path == "-":
            return DEFAULT_MAX_LINE_LENGTH
        directory = os.path.dirname(os.path.abspath(path))
        cached = self._line_lengths.get(directory)
        if cached is None or any(_raw_stamp(candidate) != stamp for candidate, stamp in cached[1]):
            length, looked_at = configured_line_length(directory)
            cached = self._line_lengths[directory] = (length, tuple((c, _raw_stamp(c)) for c in looked_at))
        for candidate, _ in cached[1]:
            self._record(candidate)
        return cached[0]


def _note(reads: dict[str, Optional[Stamp]], path: str, stamp: Optional[Stamp]) -> None:
    """Record *stamp* for *path* in *reads*: the first record of a path stands, except that a file's stamp
    (its content was read) or its absence replaces a record of its presence alone, and a file's presence
    replaces a path's."""
    if path not in reads:
        reads[path] = stamp
        return
    old = reads[path]
    if old == PRESENT and stamp is not None or old == PRESENT_FILE and stamp not in PRESENCE:
        reads[path] = stamp


class KeptFiles:
    """The files a kept fact read, with their stamps, in two tuples: a run over diffusers keeps 2,092 module facts
    that read 500 files each, which as dicts took 45 MB."""

    __slots__ = ("paths", "stamps")

    def __init__(self, files: dict[str, Optional[Stamp]]) -> None:
        self.paths = tuple(files)
        self.stamps = tuple(files.values())

    def __contains__(self, path: str) -> bool:
        return path in self.paths

    def items(self) -> Iterable[tuple[str, Optional[Stamp]]]:
        return zip(self.paths, self.stamps)


def _note_all(reads: dict[str, Optional[Stamp]], recorded: KeptFiles) -> None:
    """:func:`_note` each of *recorded* in *reads* (a kept fact's reads, thousands for the import search's)."""
    noted = {path: reads[path] for path in reads.keys() & recorded.paths}
    reads.update(recorded.items())  # (the new paths in one call: the loop below visits only those noted before)
    for path, stamp in noted.items():
        new = reads[path]
        reads[path] = stamp
        if stamp != new:
            _note(reads, path, new)


#: between the parts of a derived fact's key (a character no path holds)
_SEPARATOR = "\x1f"
#: the kinds of derived facts found from one file (its path where a key holds a root)
_FILE_FACTS = frozenset({"module", "binding", "may edit", "search facts", "import rows", "names module"})


def _stamp_text(stamp: Optional[Stamp]) -> str:
    """*stamp* as the digest of a fact of one file begins with it: ``size:mtime_ns``, ``size:digest`` (of its
    content), ``size:?`` (an mtime too recent to trust) or ``-`` (no file)."""
    if stamp is None:
        return "-"
    return f"{stamp[0]}:{'?' if stamp[1] is None else stamp[1]}"


@lru_cache(maxsize=4096)
def _stamp_in(text: str) -> Optional[Stamp]:
    """The stamp :func:`_stamp_text` wrote; :data:`PRESENT`, which never holds for a file's content, when *text*
    is not one."""
    if text == "-":
        return None
    size, _, mtime = text.partition(":")
    if not size.isdigit() or not mtime:
        return PRESENT
    return (int(size), None if mtime == "?" else int(mtime) if mtime.isdigit() else mtime)


def binding_digest(module: ProjectModule, name: str) -> str:
    """How *module* binds *name* at module level (:meth:`Project.binding_used`): each binding's kind and line, and
    for an import what it imports and under which name, and the ``try`` it falls back from; with no binding,
    the modules it star-imports.  Kept with the module."""
    key = ("binding", name)
    found = module.derived.get(key)
    if found is None:
        scope = module.index.module_scope
        bindings = scope.bindings.get(name, ())
        parts: list = [_binding_row(binding) for binding in bindings] if bindings else ["*", *scope.star_imports]
        found = module.derived[key] = content_hash(repr(parts).encode("utf-8", "surrogatepass"))
    return found


def _binding_row(binding: Any) -> tuple:
    node = binding.node
    row: tuple = (binding.kind, binding.line, binding.qualname)
    if isinstance(node, ast.ImportFrom):
        row += (node.module, node.level, tuple((alias.name, alias.asname) for alias in node.names))
    elif isinstance(node, ast.Import):
        row += (tuple((alias.name, alias.asname) for alias in node.names),)
    if binding.fallback_of is not None:
        row += (_binding_row(binding.fallback_of[0]), binding.fallback_of[1])
    return row


def _nearest_first(target: str) -> Callable[[str], tuple[int, str]]:
    """A sort key of the files that may import the module at *target*: those sharing more folders with it first,
    then by path.  A script imports the ``utils.py`` beside it (its folder is first on ``sys.path``), not one of
    another example folder, and only the first candidates are read: in path order, the scripts of a project with
    many ``utils`` modules were past the bound (Low-rank-Multimodal-Fusion's ``train_*.py``, checked from the
    folder that holds it and 149 other repositories, reached no ``DataLoader`` from ``utils.py``)."""
    folders = os.path.dirname(target).split(os.sep)

    def key(path: str) -> tuple[int, str]:
        shared = 0
        for mine, theirs in zip(folders, os.path.dirname(path).split(os.sep)):
            if mine != theirs:
                break
            shared += 1
        return -shared, path

    return key


def _key(kind: str, root: str, name: str) -> str:
    """A derived fact's key: what it is, the project root, and the module (name or path) it is about."""
    return _SEPARATOR.join((kind, root, name))


def _raw_stamp(path: str) -> Optional[tuple[int, int]]:
    """(size, mtime_ns) of a regular file; None for anything else (a FIFO would block its reader forever)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return (info.st_size, info.st_mtime_ns)
