"""``--fix``: rewrite flagged code with codemods, one per transform, through one edit model.

* :mod:`.repair_main_guard` — WSP102 (a typo'd or inverted main guard, fixed in place);
* :mod:`.hoist_guarded_def` — WSP106 (a definition workers need, out of the main guard);
* :mod:`.hoist_local_def` — WSP202/WSP203 (and the local functions of WSP204/WSP901);
* :mod:`.hoist_lambda` — WSP201/WSP204/WSP901 (and ``partial(lambda ...)`` of WSP202);
* :mod:`.reopen_file` — WSP301 for a file opened with ``open()`` (sent by name and position, reopened);
* :mod:`.keep_alive` — WSP302 for a lock created inline in a ``Process``'s arguments (kept in a variable);
* :mod:`.pass_run_time_global` — WSP107 (an import out of the guard; a pool initializer that sets the global);
* :mod:`.wrap_in_main_guard` — WSP101/WSP103/WSP104, and WSP105's ``freeze_support()``;
* :mod:`.persistent_workers` — WSP902 (``persistent_workers=True`` for a loader iterated once per epoch).

Each codemod plans a :class:`._base.Fix` for a text (edits at offsets of that text, the findings they fix with
each fix's safety, the findings it declines and why); :func:`fix_text` applies the plans of the codemods whose
rules are enabled and whose fix safety the caller allows, one codemod at a time, re-checks after each one
(positions move), and repeats until nothing changes.  Every step is verified on its own: a plan whose output
does not compile, adds a finding, or hides one it did not set out to fix is dropped (each of its findings gets a
note saying so) while the others still apply.  :func:`fixable` reads the same plans, unapplied, to tell at check
time which findings ``--fix`` would fix (ruff's ``[*]``).

Termination does not depend on the code converging: a run makes at most :data:`MAX_PASSES` passes over the
codemods; a codemod still changing the text in the last pass is declined and the run starts again without
it, so there are at most ``len(CODEMODS) + 1`` runs.  Front ends import this package only when a file has
something to fix.
"""

from __future__ import annotations

import ast
import difflib
import functools
from collections import Counter
from typing import Callable, Optional

from ..finding import Finding
from ..io.line_length import DEFAULT_MAX_LINE_LENGTH
from ..io.source import split_lines
from ..records import Record, Value
from ..rules import RULES, FixSafety
from ._base import LINE_REF, CannotEdit, Codemod, Fix, apply_edits, as_said, forget_texts, remember_tree, syntax_tree
from .hoist_guarded_def import HoistGuardedDef
from .hoist_lambda import HoistLambda
from .hoist_local_def import HoistLocalDef
from .imports import import_edits
from .keep_alive import KeepAlive
from .pass_run_time_global import PassRunTimeGlobal
from .persistent_workers import PersistentWorkers
from .reopen_file import ReopenFile
from .repair_main_guard import RepairMainGuard
from .wrap_in_main_guard import WrapInMainGuard

MAX_PASSES = 5

# In the order they run: the guard first (other fixes rely on it), then the hoisting of definitions out of
# functions, then giving pool workers the globals set at run time, then moving module-level statements under
# the guard, then what a loop moved there reveals.
CODEMODS: tuple[type[Codemod], ...] = (RepairMainGuard, HoistGuardedDef, HoistLocalDef, HoistLambda, ReopenFile,
                                       KeepAlive, PassRunTimeGlobal, WrapInMainGuard, PersistentWorkers)
FIXABLE = frozenset(rule for codemod in CODEMODS for rule in codemod.FIXES)


class FixOutcome(Record):
    """What ``--fix`` made of a text."""

    __slots__ = ("text", "fixed", "remaining", "note", "unfixed", "declined")

    def __init__(self, text: str, fixed: Optional[list[Finding]] = None, remaining: Optional[list[Finding]] = None,
                 note: Optional[str] = None, unfixed: Optional[list[Finding]] = None,
                 declined: Optional[dict[tuple[str, int, int], str]] = None) -> None:
        self.text = text
        self.fixed = fixed if fixed is not None else []
        #: findings of the fixed text, at its positions
        self.remaining = remaining if remaining is not None else []
        self.note = note
        #: the original's findings that the fix leaves, at the original's positions (what ``--diff`` reports)
        self.unfixed = unfixed if unfixed is not None else self.remaining
        #: (code, line, col) of each finding of ``unfixed`` whose fix was declined -> why
        self.declined = declined if declined is not None else {}


def title(finding: Finding) -> Optional[str]:
    """What fixing ``finding`` does, as an editor's quick fix names it; None when no codemod here fixes it."""
    codemod = _codemod_of(finding)
    return codemod.title(finding) if codemod is not None else None


def _codemod_of(finding: Finding):
    return next((c for c in CODEMODS if finding.rule in c.FIXES and c.wants(finding)), None)


def _unit(finding: Finding) -> object:
    """What *finding* is fixed together with (see ``Codemod.unit``), or None."""
    codemod = _codemod_of(finding)
    unit = codemod.unit(finding) if codemod is not None else None
    return (codemod.__name__, unit) if unit is not None else None


def _allowed(finding: Finding, unsafe: bool, safe_rules: frozenset = frozenset()) -> bool:
    """``safe_rules``: rules whose fix is graded SAFE for this file (re-checked findings do not carry it)."""
    return finding.rule in FIXABLE and (finding.rule in safe_rules or finding.safety.applies(unsafe))


def _allowed_rule(rule, unsafe: bool) -> bool:
    """Whether a run fixes findings of ``rule`` (one a fix revealed carries only the rule's own grade)."""
    return rule in FIXABLE and rule.fix_safety.applies(unsafe)


#: How the fixer checks a text it wrote (and, with its ``ast`` when the caller has one, the text it was given):
#: the driver's own check, bound to the file's name, settings and project (so the fixer never reaches upward).
Check = Callable[[str, Optional[ast.Module]], list[Finding]]


def fixable(text: str, findings: list[Finding], check: Check, *, filename: Optional[str] = None,
            tree: Optional[ast.Module] = None, line_length: int = DEFAULT_MAX_LINE_LENGTH) -> Fixability:
    """``findings`` (the check's, of ``text``) with the safety of the fix ``--fix --unsafe-fixes`` would make of
    each: ``NONE`` for one it would not fix, ``UNSAFE`` for one whose fix here is unsafe though the rule's is safe
    (a closure's captured names bound with ``functools.partial``).

    The codemods plan on ``text`` unapplied, which is what the first pass of the fixer does.  Where one codemod
    declines a finding and another would edit the text first, the first one's edit may be what the second needed
    (a lambda hoisted out of a class makes its open file picklable): there the fixer itself is run (``check``:
    how it re-checks what it writes), and its outcome is the answer.
    """
    wanted = [f for f in findings if f.rule in FIXABLE and f.safety is not FixSafety.NONE]
    if not wanted:
        return Fixability(findings, {}, {})
    if tree is not None:
        remember_tree(text, tree)
    try:
        verdicts: dict[int, Optional[FixSafety]] = {}  # id(finding) -> the safety of its fix, None: declined
        reasons: dict[tuple[str, int, int], str] = {}
        unsafe: dict[tuple[str, int, int], str] = {}
        editing: list[type[Codemod]] = []  # the codemods that plan edits, in order
        uncertain = False
        for codemod_class in CODEMODS:
            targets = [f for f in wanted if f.rule in codemod_class.FIXES and codemod_class.wants(f)]
            if not targets:
                continue
            for finding in targets:  # a finding its codemods neither fix nor decline is not fixed either
                verdicts.setdefault(id(finding), None)
            try:
                fix = codemod_class(filename, targets, unsafe=True, line_length=line_length, decide=True).plan(text)
            except Exception as error:  # a codemod bug: say so, and promise nothing
                fix = Fix(declined=[(f, _failed(error)) for f in targets])
            for finding, why in fix.declined:
                reasons.setdefault((finding.code, finding.line, finding.col), as_said(why))
            for finding, safety, why in fix.fixed:
                verdicts[id(finding)] = safety
                if safety is FixSafety.UNSAFE and why:
                    unsafe[(finding.code, finding.line, finding.col)] = as_said(why)
            if fix.fixed:
                editing.append(codemod_class)
            uncertain = uncertain or bool(fix.declined and [c for c in editing if c is not codemod_class])
        if uncertain:
            return _by_fixing(text, findings, check, filename, line_length, verdicts, unsafe)
        out = [_graded(finding, verdicts.get(id(finding), finding.safety)) for finding in findings]
        left = {(f.code, f.line, f.col) for f in out if f.fix_safety is FixSafety.NONE}
        return Fixability(out, {key: why for key, why in reasons.items() if key in left}, unsafe)
    finally:
        _line_map.cache_clear()
        forget_texts()


def _graded(finding: Finding, verdict: Optional[FixSafety]) -> Finding:
    """``finding`` with the safety of its fix: None, it has none."""
    if verdict is None:
        return finding.replace(fix_safety=FixSafety.NONE)
    if verdict is FixSafety.UNSAFE and finding.safety is FixSafety.SAFE:
        return finding.replace(fix_safety=FixSafety.UNSAFE)
    return finding


def _by_fixing(text: str, findings: list[Finding], check: Check, filename: Optional[str], line_length: int,
               verdicts: dict[int, Optional[FixSafety]], unsafe: dict) -> Fixability:
    """:func:`fixable` answered by running the fixer: what it leaves has no fix."""
    outcome = fix_text(text, [f for f in findings], check, filename=filename, unsafe=True, line_length=line_length)
    left = {id(f) for f in outcome.unfixed}
    out = [_graded(finding, None if id(finding) in left else verdicts.get(id(finding)) or finding.safety)
           if id(finding) in verdicts or id(finding) in left else finding for finding in findings]
    return Fixability(out, outcome.declined, unsafe)


class Fixability(Record):
    """What :func:`fixable` tells of a text's findings."""

    __slots__ = ("findings", "declined", "unsafe")

    def __init__(self, findings: list[Finding], declined: dict[tuple[str, int, int], str],
                 unsafe: dict[tuple[str, int, int], str]) -> None:
        self.findings = findings
        #: (code, line, col) of each finding whose fix its codemod declines here -> why (said when ``--fix`` runs)
        self.declined = declined
        #: (code, line, col) of each finding whose fix is unsafe here though its rule's is safe -> why (said when a
        #: safe ``--fix`` runs)
        self.unsafe = unsafe


def declined_note(declined: dict[tuple[str, int, int], str]) -> Optional[str]:
    """The note on findings whose fix is declined, one each, in the order of the text."""
    return "; ".join(f"{line}:{col + 1}: {code} not fixed: {why}"
                     for (code, line, col), why in sorted(declined.items(), key=lambda item: item[0][1:])) or None


def _failed(error: Exception) -> str:
    return f"the fixer failed on it ({type(error).__name__}: {error}; please report this file)"


def fix_text(text: str, findings: list[Finding], check: Check, *, filename: Optional[str] = None,
             unsafe: bool = False, tree: Optional[ast.Module] = None, line_length: int = DEFAULT_MAX_LINE_LENGTH,
             note: Optional[str] = None, declined: Optional[dict[tuple[str, int, int], str]] = None,
             may_add: frozenset[str] = frozenset(), added_note: Optional[dict[str, str]] = None,
             only: Optional[frozenset[Finding]] = None) -> FixOutcome:
    """Apply every allowed fix to ``text``; never returns code that does not compile.

    ``findings``: the check's findings for ``text``, each with the fix safety it has in this file (see
    :mod:`..analysis.importers` and :func:`fixable`); ``tree``: the ``ast`` they were found on (not parsed again);
    ``check``: how a rewritten text is checked; ``line_length``: the project's limit; ``note``: said last among
    the notes (why the fixes have the safety they have here); ``declined``: why :func:`fixable` found a finding's
    fix declined (said unless a later pass fixes it after all); ``may_add``: codes a fix may add findings of (the
    caller fixes those next: a notebook's new definitions move to a module); ``added_note``: code -> why a fix that
    adds a finding of it is declined, said instead of the count; ``only``: fix these of ``findings`` (equal by code
    and place) and leave the others, as an editor's quick fix for one finding does (``None``: every allowed one).
    """
    options = _Options(check, filename, unsafe, line_length, note, declined or {}, may_add, added_note or {}, only)
    try:
        return _fix_endings(text, findings, options, tree)
    finally:
        # The trees, scope models and indexes of this text's versions serve no other text: kept, each later
        # collection of the cyclic garbage collector would traverse them (a tenth of a repository's fix run).
        _line_map.cache_clear()
        forget_texts()


class _Options(Value):
    __slots__ = ("check", "filename", "unsafe", "line_length", "note", "declined", "may_add", "added_note", "only")

    def __init__(self, check: Check, filename: Optional[str], unsafe: bool, line_length: int, note: Optional[str],
                 declined: dict[tuple[str, int, int], str], may_add: frozenset[str], added_note: dict[str, str],
                 only: Optional[frozenset[Finding]] = None) -> None:
        self.check = check
        self.filename = filename
        self.unsafe = unsafe
        self.line_length = line_length
        self.note = note
        self.declined = declined
        self.may_add = may_add
        self.added_note = added_note
        self.only = only


def _fix_endings(text: str, findings: list[Finding], options: _Options, tree) -> FixOutcome:
    if tree is not None:
        remember_tree(text, tree)
    # Rows are edited with the text's own line end: a lone-CR file (old Mac files exist; they are valid Python)
    # is fixed with LF endings and gets its CRs back.
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
        return FixOutcome(text, [], original, _join(declined_note(options.declined), options.note))

    run = _Run(text, options, original, safe_rules)
    declined: set[type[Codemod]] = set()
    # Each run either reaches a fixed point or declines one more codemod: at most len(CODEMODS) + 1 runs.
    for _ in range(len(CODEMODS) + 1):
        current, unstable = run.passes(declined)
        if not unstable:
            break
        declined |= unstable
        for codemod in unstable:
            run.unsettled |= set(codemod.FIXES)
    else:  # every codemod declined and still no fixed point: cannot happen, but the bound is the contract
        return FixOutcome(text, [], original, _join(options.note, "no fix could be planned within the pass "
                                                                  "budget; file left unchanged"))
    if current == text:
        return FixOutcome(text, [], original, run.note(original), declined=run.reasons(original))
    remaining = run.check(current)
    unfixed = _on_original(remaining, original, text, current)
    kept = {id(f) for f in unfixed}
    fixed = [f for f in original if id(f) not in kept]
    return FixOutcome(current, sorted(fixed, key=Finding.sort_key), remaining, run.note(unfixed, fixed),
                      sorted(unfixed, key=Finding.sort_key), run.reasons(unfixed))


class _Run:
    """The state of fixing one text: checked and parsed texts (each done once), and the notes."""

    def __init__(self, text: str, options: _Options, original: list[Finding], safe_rules: frozenset) -> None:
        self.text, self.options, self.filename, self.unsafe = text, options, options.filename, options.unsafe
        self.safe_rules = safe_rules
        self.original = original
        self.checked = {text: original}
        self.kept: set[tuple[type, str]] = set()  # (codemod, text) it left unchanged
        #: (code, line, col) of an original finding -> why its fix was not made (the last reason given wins: it is
        #: the one of the text the run ended with)
        self.declines: dict[tuple, str] = dict(options.declined)
        #: (code, line, col) of an original finding -> what to know about its fix
        self.remarks: dict[tuple, list[str]] = {}
        #: rules whose codemod did not reach a fixed point (their findings left are said to be so)
        self.unsettled: set = set()
        #: the original findings to fix (by id), or None: every allowed one
        self.only = None if options.only is None else {id(f) for f in original if f in options.only}
        #: what the findings asked for are fixed together with (see Codemod.unit)
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

    def passes(self, declined: set[type[Codemod]]) -> tuple[str, set[type[Codemod]]]:
        """At most MAX_PASSES passes; returns the text and the codemods that still changed it in the last."""
        current = self.text
        changed_by: set[type[Codemod]] = set()
        for _ in range(MAX_PASSES):
            changed_by = set()
            for codemod_class in CODEMODS:
                if codemod_class in declined:
                    continue
                targets = [f for f in self.check(current)
                           if f.rule in codemod_class.FIXES and _allowed(f, self.unsafe, self.safe_rules)
                           and codemod_class.wants(f) and self.wanted(f, current)]
                # A codemod that left this text as it was (no change, failed, or refused) would again: its
                # findings and notes for it are those of the text.
                if not targets or (codemod_class, current) in self.kept:
                    continue
                self.kept.add((codemod_class, current))
                new = self._step(codemod_class, targets, current)
                if new is None:
                    continue
                self.kept.discard((codemod_class, current))
                current = new
                changed_by.add(codemod_class)
            if not changed_by:
                break
        return current, changed_by

    def _step(self, codemod_class: type[Codemod], targets: list[Finding], current: str) -> Optional[str]:
        """``current`` with the codemod's fix made and verified, or None (each finding it meant to fix noted)."""
        codemod = codemod_class(self.filename, targets, unsafe=self.unsafe, line_length=self.options.line_length)
        try:
            fix = codemod.plan(current)
        except Exception as error:  # a codemod bug must not lose the user's file
            for finding in targets:
                self._decline(finding, _failed(error), current)
            return None
        for finding, why in fix.declined:
            self._decline(finding, why, current)
        if not fix.edits:
            return None
        try:
            new = _applied(current, fix)
        except CannotEdit as why:
            problem: Optional[str] = f"its edits cannot be made ({why})"
        else:
            problem = None if new != current else "its edits change nothing"
            problem = problem or self._verify(new, current)
        if problem:
            for finding, _, _ in fix.fixed:
                self._decline(finding, problem, current)
            return None
        for finding, what in fix.remarks:
            self.remarks.setdefault(self._key(finding, current), []).append(self._on_disk(what, current))
        return new

    def _verify(self, new: str, current: str) -> Optional[str]:
        try:
            compile(_changed(syntax_tree(new), new, current), self.filename or "<fix>", "exec", dont_inherit=True)
        except SyntaxError as error:
            return f"its fix would not compile ({error.msg})"
        before = Counter(f.code for f in self.check(current))
        after = Counter(f.code for f in self.check(new))
        added = sorted(code for code in after if after[code] > before[code] and not self._revealed(code)
                       and code not in self.options.may_add)
        if added:
            said = [self.options.added_note[code] for code in added if code in self.options.added_note]
            return said[0] if said else f"its fix would add {_findings(added)}"
        hidden = sorted(code for code in before if after[code] < before[code] and code not in self.targeted
                        and not (self._revealed(code) and _allowed_rule(RULES[code], self.unsafe)))
        if hidden:
            return f"its fix would hide {_findings(hidden)} without fixing it"
        return None

    def _revealed(self, code: str) -> bool:
        """Whether a new finding of ``code`` is one the original had, masked by a hazard this run fixes."""
        return any(rule.code in self.targeted for rule in RULES[code].masked_by)

    def _key(self, finding: Finding, current: str) -> tuple:
        """Where ``finding`` (of ``current``) stands in the original text."""
        (at,) = _on_original([finding], self.original, self.text, current) or [finding]
        return at.code, at.line, at.col

    def _decline(self, finding: Finding, why: str, current: str) -> None:
        key = self._key(finding, current)
        self.declines.pop(key, None)  # re-inserted: the notes come in the order of their last reasons
        self.declines[key] = self._on_disk(why, current)

    def _on_disk(self, said: str, current: str) -> str:
        """``said`` with each row it names (:func:`._base.line_ref`) numbered as in the original text."""
        line_map = _line_map(self.text, current) if current != self.text else {}
        return LINE_REF.sub(lambda match: str(line_map.get(int(match[1]), int(match[1]))), said)

    def reasons(self, unfixed: list[Finding]) -> dict[tuple[str, int, int], str]:
        """Why each finding left (of the original, at its place there) was not fixed: the last reason given."""
        left = {(f.code, f.line, f.col) for f in unfixed}
        out = {key: why for key, why in self.declines.items() if key in left}
        for finding in sorted(unfixed, key=Finding.sort_key):
            key = (finding.code, finding.line, finding.col)
            if key not in out and finding.rule in self.unsettled:
                out[key] = f"its fix kept changing the file for {MAX_PASSES} passes"
        return out

    def note(self, unfixed: list[Finding], fixed: list[Finding] = ()) -> Optional[str]:
        """One note per finding left (the last reason it was declined), then what to know about fixes made, then
        the file's own note."""
        parts = [f"{line}:{col + 1}: {code} not fixed: {why}"
                 for (code, line, col), why in self.reasons(unfixed).items()]
        done = {(f.code, f.line, f.col) for f in fixed}
        for (code, line, col), remarks in self.remarks.items():
            if (code, line, col) in done:
                parts.extend(f"{line}:{col + 1}: {code} fixed: {remark}" for remark in dict.fromkeys(remarks))
        if self.options.note:
            parts.append(self.options.note)
        return "; ".join(parts) or None


def _findings(codes: list[str]) -> str:
    return ", ".join(codes) + (" findings" if len(codes) > 1 else " finding")


def _applied(text: str, fix: Fix) -> str:
    """``text`` with the fix's edits made and the imports it needs added."""
    if not fix.imports:
        return apply_edits(text, fix.edits)
    imports = import_edits(text, syntax_tree(text), fix.imports)
    if not imports:
        return apply_edits(text, fix.edits)
    low, high = min(e.start for e in imports), max(e.end for e in imports)
    if all(e.end < low or e.start > high for e in fix.edits):  # apart: one text, one set of edits
        return apply_edits(text, [*imports, *fix.edits])
    # The fix edits the import block (a heavy import moved under the guard): place the imports in its output.
    new = apply_edits(text, fix.edits)
    return apply_edits(new, import_edits(new, syntax_tree(new), fix.imports))


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


def _join(note: Optional[str], more: Optional[str]) -> Optional[str]:
    return f"{note}; {more}" if note and more else note or more
