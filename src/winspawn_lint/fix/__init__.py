"""``--fix``: rewrite flagged code with codemods, one per transform (rows of the text edited at ``ast`` positions
for the hoists and the guard wrap, which touch a few statements of large training scripts; libcst trees for the
others).

* :mod:`.repair_main_guard` — WSP102 (a typo'd or inverted main guard, fixed in place);
* :mod:`.hoist_guarded_def` — WSP106 (a definition workers need, out of the main guard);
* :mod:`.hoist_local_def` — WSP202/WSP203 (and the local functions of WSP204/WSP901);
* :mod:`.hoist_lambda` — WSP201/WSP204/WSP901 (and ``partial(lambda ...)`` of WSP202);
* :mod:`.reopen_file` — WSP301 for a file opened with ``open()`` (sent by name and position, reopened);
* :mod:`.wrap_in_main_guard` — WSP101/WSP103/WSP104, and WSP105's ``freeze_support()``.

:func:`fix_text` applies the codemods whose rules are enabled and whose fix safety the caller allows,
re-checks after each one (positions move), and repeats until nothing changes.  Every step is verified on
its own: a codemod whose output does not compile, adds a finding, or hides one it did not set out to fix is
dropped (with a note) while the others still apply.

Termination does not depend on the code converging: a run makes at most :data:`MAX_PASSES` passes over the
codemods; a codemod still changing the text in the last pass is declined and the run starts again without
it, so there are at most ``len(CODEMODS) + 1`` runs.  Front ends import this package only when a file has
something to fix, and libcst is imported only when a codemod that rewrites a tree runs (:mod:`._cst`).
"""

from __future__ import annotations

import ast
import difflib
import functools
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Optional

from ..finding import Finding
from ..io.line_length import DEFAULT_MAX_LINE_LENGTH
from ..io.source import split_lines
from ..rules import RULES, FixSafety
from ._base import forget_texts, remember_tree, statement_texts, syntax_tree
from .hoist_guarded_def import HoistGuardedDef
from .hoist_lambda import HoistLambda
from .hoist_local_def import HoistLocalDef
from .reopen_file import ReopenFile
from .repair_main_guard import RepairMainGuard
from .wrap_in_main_guard import WrapInMainGuard

MAX_PASSES = 5

# In the order they run: the guard first (other fixes rely on it), then the hoisting of definitions out of
# functions, then moving module-level statements under the guard.
CODEMODS = (RepairMainGuard, HoistGuardedDef, HoistLocalDef, HoistLambda, ReopenFile, WrapInMainGuard)
FIXABLE = frozenset(rule for codemod in CODEMODS for rule in codemod.FIXES)


@dataclass
class FixOutcome:
    text: str
    fixed: list[Finding] = field(default_factory=list)
    #: findings of the fixed text, at its positions
    remaining: list[Finding] = field(default_factory=list)
    note: Optional[str] = None
    #: the original's findings that the fix leaves, at the original's positions (what ``--diff`` reports)
    unfixed: Optional[list[Finding]] = None

    def __post_init__(self) -> None:
        if self.unfixed is None:
            self.unfixed = self.remaining


def title(finding: Finding) -> Optional[str]:
    """What fixing ``finding`` does, as an editor's quick fix names it; None when no codemod here fixes it."""
    codemod = _codemod_of(finding)
    return codemod.title(finding) if codemod is not None else None


def _codemod_of(finding: Finding):
    return next((c for c in CODEMODS if finding.rule in c.FIXES and c.wants(finding)), None)


def _unit(finding: Finding) -> object:
    """What *finding* is fixed together with (see ``WinspawnCodemod.unit``), or None."""
    codemod = _codemod_of(finding)
    unit = codemod.unit(finding) if codemod is not None else None
    return (codemod.__name__, unit) if unit is not None else None


def _allowed(finding: Finding, unsafe: bool, safe_rules: frozenset = frozenset()) -> bool:
    """``safe_rules``: rules whose fix is graded SAFE for this file (re-checked findings do not carry it)."""
    return finding.rule in FIXABLE and (finding.rule in safe_rules or finding.safety.applies(unsafe))


#: How the fixer checks a text it wrote (and, with its ``ast`` when the caller has one, the text it was given):
#: the driver's own check, bound to the file's name, settings and project (so the fixer never reaches upward).
Check = Callable[[str, Optional[ast.Module]], list[Finding]]


def fix_text(text: str, findings: list[Finding], check: Check, *, filename: Optional[str] = None,
             unsafe: bool = False, tree: Optional[ast.Module] = None, line_length: int = DEFAULT_MAX_LINE_LENGTH,
             note: Optional[str] = None, only: Optional[frozenset[Finding]] = None) -> FixOutcome:
    """Apply every allowed fix to ``text``; never returns code that does not compile.

    ``findings``: the check's findings for ``text``, each with the fix safety it has in this file (see
    :mod:`..analysis.importers`); ``tree``: the ``ast`` they were found on (not parsed again); ``check``: how
    a rewritten text is checked; ``line_length``: the project's limit; ``note``: said first among the notes
    (why the fixes have the safety they have here); ``only``: fix these of ``findings`` (equal by code and
    place) and leave the others, as an editor's quick fix for one finding does (``None``: every allowed one).
    """
    try:
        return _fix_endings(text, findings, _Options(check, filename, unsafe, line_length, note, only), tree)
    finally:
        # The trees, scope models and indexes of this text's versions serve no other text: kept, each later
        # collection of the cyclic garbage collector would traverse them (a tenth of a repository's fix run).
        _line_map.cache_clear()
        forget_texts()


@dataclass(frozen=True)
class _Options:
    check: Check
    filename: Optional[str]
    unsafe: bool
    line_length: int
    note: Optional[str]
    only: Optional[frozenset[Finding]] = None


def _fix_endings(text: str, findings: list[Finding], options: _Options, tree) -> FixOutcome:
    if tree is not None:
        remember_tree(text, tree)
    # libcst keeps LF and CRLF files byte for byte but drops a lone-CR file's last newline: fix such a file
    # with LF endings and put its CRs back (old Mac files exist; they are valid Python).
    if "\r" in text and "\n" not in text:
        outcome = _fix_text(text.replace("\r", "\n"), findings, options)
        if outcome.text == text.replace("\r", "\n"):
            return FixOutcome(text, outcome.fixed, outcome.remaining, outcome.note, outcome.unfixed)
        return FixOutcome(outcome.text.replace("\n", "\r"), outcome.fixed, outcome.remaining, outcome.note,
                          outcome.unfixed)
    if "\r" in text.replace("\r\n", ""):
        return FixOutcome(text, [], findings, "mixed lone-CR and LF line endings; not fixed (normalise them first)")
    return _fix_text(text, findings, options)


def _fix_text(text: str, original: list[Finding], options: _Options) -> FixOutcome:
    unsafe = options.unsafe
    safe_rules = frozenset(f.rule for f in original if f.fix_safety is FixSafety.SAFE)
    if not any(_allowed(f, unsafe) and (options.only is None or f in options.only) for f in original):
        return FixOutcome(text, [], original, options.note)

    run = _Run(text, options, original, safe_rules)
    if options.note:
        run.notes.append(options.note)
    declined: set[str] = set()
    # Each run either reaches a fixed point or declines one more codemod: at most len(CODEMODS) + 1 runs.
    for _ in range(len(CODEMODS) + 1):
        current, unstable = run.passes(declined)
        if not unstable:
            break
        declined |= unstable
        run.notes.append(f"{', '.join(sorted(unstable))} did not reach a fixed point in {MAX_PASSES} passes; "
                         "its fixes were not applied")
    else:  # every codemod declined and still no fixed point: cannot happen, but the bound is the contract
        return FixOutcome(text, [], original, _join(run.note(), "no fix could be planned within the pass "
                                                                "budget; file left unchanged"))
    note = run.note()
    if current == text:
        return FixOutcome(text, [], original, note)
    remaining = run.check(current)
    unfixed = _on_original(remaining, original, text, current)
    kept = {id(f) for f in unfixed}
    fixed = [f for f in original if id(f) not in kept]
    return FixOutcome(current, sorted(fixed, key=Finding.sort_key), remaining, note,
                      sorted(unfixed, key=Finding.sort_key))


class _Run:
    """The state of fixing one text: checked and parsed texts (each done once), and the notes."""

    def __init__(self, text: str, options: _Options, original: list[Finding], safe_rules: frozenset) -> None:
        self.text, self.options, self.filename, self.unsafe = text, options, options.filename, options.unsafe
        self.safe_rules = safe_rules
        self.original = original
        self.checked = {text: original}
        self.parsed: dict = {}
        #: id(top-level statement) -> (the statement, (indent, newline) it was rendered with, its text)
        self.rendered: dict[int, tuple] = {}
        self.kept: set[tuple[str, str]] = set()  # (codemod, text) it left unchanged
        self.notes: list[str] = []
        self.declines: dict[tuple, str] = {}  # (original finding id, why) -> note, in first-seen order
        #: the original findings to fix (by id), or None: every allowed one
        self.only = None if options.only is None else {id(f) for f in original if f in options.only}
        #: what the findings asked for are fixed together with (see WinspawnCodemod.unit)
        self.units = {_unit(f) for f in original if id(f) in (self.only or ())} - {None}
        self.chosen: dict[str, set[int]] = {}  # text -> ids of its findings that stand for one of self.only
        # A finding this run did not set out to fix must not vanish: a rewrite that hides a hazard from the
        # checker (say, a closure over a sqlite connection turned into a partial) has not fixed it.  Fixing
        # some findings, what their codemods fix may go with them (statements moved under the main guard
        # after the one asked for).
        codemods = {_codemod_of(f) for f in original if id(f) in (self.only or ())}
        self.targeted = {f.code for f in original if _allowed(f, self.unsafe, safe_rules)
                         and (self.only is None or _codemod_of(f) in codemods)}

    def check(self, source: str) -> list:
        """The findings of ``source`` (a text that compiles), checked on the ``ast`` the codemods read."""
        if source not in self.checked:
            self.checked[source] = self.options.check(source, syntax_tree(source))
        return self.checked[source]

    def wanted(self, finding: Finding, source: str) -> bool:
        """Whether ``finding`` (of ``source``) is to be fixed: it stands for one of the findings asked for."""
        if self.only is None:
            return True
        if source not in self.chosen:
            found = self.check(source)
            on_original = _on_original(found, self.original, self.text, source)
            self.chosen[source] = {id(f) for f, at in zip(found, on_original)
                                   if id(at) in self.only or _unit(f) in self.units}
        return id(finding) in self.chosen[source]

    def parse(self, source: str):  # libcst trees are immutable, so one can be shared by codemods
        import libcst as cst

        if source not in self.parsed:
            tree = self.parsed[source] = cst.parse_module(source)
            self.rendered.update(statement_texts(tree, source, syntax_tree(source)))
        return self.parsed[source]

    def render(self, tree) -> str:
        """``tree.code``, with each top-level statement already seen (in a text parsed or rendered in this run)
        taken from its text instead of rendered again: a codemod changes a few statements of a module."""
        if not tree.has_trailing_newline or not tree.body:
            return tree.code
        parts = ["".join(tree.code_for_node(line) for line in tree.header)]
        for statement in tree.body:
            known = self.rendered.get(id(statement))
            if known is None or known[0] is not statement or known[1] != (tree.default_indent, tree.default_newline):
                known = self.rendered[id(statement)] = (statement, (tree.default_indent, tree.default_newline),
                                                        tree.code_for_node(statement))
            parts.append(known[2])
        parts.append("".join(tree.code_for_node(line) for line in tree.footer))
        return "".join(parts)

    def passes(self, declined: set[str]) -> tuple[str, set[str]]:
        """At most MAX_PASSES passes; returns the text and the codemods that still changed it in the last."""
        current = self.text
        changed_by: set[str] = set()
        for _ in range(MAX_PASSES):
            changed_by = set()
            for command_class in CODEMODS:
                class_name = command_class.__name__
                if class_name in declined:
                    continue
                targets = [f for f in self.check(current)
                           if f.rule in command_class.FIXES and _allowed(f, self.unsafe, self.safe_rules)
                           and command_class.wants(f) and self.wanted(f, current)]
                # A codemod that left this text as it was (no change, failed, or refused) would again: its
                # findings and notes for it are those of the text.
                if not targets or (class_name, current) in self.kept:
                    continue
                self.kept.add((class_name, current))
                command = command_class(self.filename, targets, unsafe=self.unsafe,
                                        line_length=self.options.line_length)
                command.source_text = current
                transformed = None
                try:
                    if command_class.ON_TEXT:
                        new = command.transform_text(current)
                    else:
                        tree = self.parse(current)
                        transformed = command.transform_module(tree)
                        # A codemod that changes nothing returns its tree: rendering it again would cost as much.
                        new = current if transformed is tree else self.render(transformed)
                except Exception as error:  # a codemod bug must not lose the user's file
                    self._note(f"{class_name} failed ({type(error).__name__}: {error}); skipped")
                    continue
                for finding, why in command.declined:
                    self._decline(finding, why, current)
                if new == current:
                    continue
                problem = self._verify(new, current)
                if problem:
                    self._note(f"{class_name} {problem}; skipped")
                    continue
                self.kept.discard((class_name, current))
                # The codemod's tree is the next codemods' tree of its text (rendering it gave the text, and
                # libcst trees are never changed in place): parsing the text again would cost more than all the
                # codemods together.
                if transformed is not None:
                    self.parsed.setdefault(new, transformed)
                current = new
                changed_by.add(class_name)
            if not changed_by:
                break
        return current, changed_by

    def _verify(self, new: str, current: str) -> Optional[str]:
        try:
            compile(_changed(syntax_tree(new), new, current), self.filename or "<fix>", "exec", dont_inherit=True)
        except SyntaxError as error:
            return f"produced code that does not compile ({error.msg})"
        before = Counter(f.code for f in self.check(current))
        after = Counter(f.code for f in self.check(new))
        added = sorted(code for code in after if after[code] > before[code] and not self._revealed(code))
        if added:
            return f"would introduce {', '.join(added)}"
        hidden = sorted(code for code in before if code not in self.targeted and after[code] < before[code])
        if hidden:
            return f"would hide {', '.join(hidden)} without fixing it"
        return None

    def _revealed(self, code: str) -> bool:
        """Whether a new finding of ``code`` is one the original had, masked by a hazard this run fixes."""
        return any(rule.code in self.targeted for rule in RULES[code].masked_by)

    def _note(self, note: str) -> None:
        if note not in self.notes:
            self.notes.append(note)

    def _decline(self, finding: Finding, why: str, current: str) -> None:
        """A finding a codemod left, reported once at its place in the original text."""
        (at,) = _on_original([finding], self.original, self.text, current) or [finding]
        key = (at.code, at.line, at.col, why)
        self.declines.setdefault(key, f"{at.line}:{at.col + 1}: {at.code} not fixed: {why}")

    def note(self) -> Optional[str]:
        return "; ".join([*self.declines.values(), *self.notes]) or None


def _changed(tree: ast.Module, new: str, current: str) -> ast.Module:
    """The module of the top-level statements of ``tree`` (the ``ast`` of ``new``) whose rows ``current`` does
    not hold as they are, after its ``__future__`` imports: what the compiler has to see again.  Every error it
    raises past the parser (``return`` outside a function, ``nonlocal`` with no binding, a duplicate parameter)
    is within one top-level statement, and the statements left as they were compiled before."""
    rows, old_rows = split_lines(new), split_lines(current)
    before = Counter("\n".join(old_rows[s.lineno - 1:s.end_lineno]) for s in syntax_tree(current).body)
    body = [statement for statement in tree.body
            if (isinstance(statement, ast.ImportFrom) and statement.module == "__future__")
            or before["\n".join(rows[statement.lineno - 1:statement.end_lineno])] == 0]
    return ast.Module(body=body, type_ignores=[])


def _on_original(findings: list[Finding], original: list[Finding], text: str, current: str) -> list[Finding]:
    """The original's findings that ``findings`` (of ``current``, a rewrite of ``text``) stand for.

    A finding is matched to an unmatched original one with the same code and message, else the same code (a
    message may name a line the rewrite moved), preferring the one on the line it came from (lines the rewrite
    left in place map back through a diff of the two texts); one with no counterpart is kept as it is.
    """
    if current == text or not findings:
        return list(findings)
    line_map = _line_map(text, current)
    free = list(original)
    out: list[Finding] = []
    for finding in findings:
        same = ([f for f in free if f.code == finding.code and f.message == finding.message]
                or [f for f in free if f.code == finding.code])
        if not same:
            out.append(finding)
            continue
        line = line_map.get(finding.line, finding.line)
        best = min(same, key=lambda f: (abs(f.line - line), abs(f.col - finding.col)))
        free.remove(best)
        out.append(best)
    return out


@functools.lru_cache(maxsize=8)
def _line_map(text: str, current: str) -> dict[int, int]:
    """Line of ``current`` -> line of ``text``, for the lines a rewrite left in place."""
    line_map: dict[int, int] = {}
    matcher = difflib.SequenceMatcher(None, split_lines(text), split_lines(current), autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            for offset in range(j2 - j1):
                line_map[j1 + offset + 1] = i1 + offset + 1
    return line_map


def _join(note: Optional[str], more: str) -> str:
    return f"{note}; {more}" if note else more
