"""``--fix``: rewrite flagged code with libcst codemods, one per transform.

* :mod:`.repair_main_guard` — WSP102 (a typo'd or inverted main guard, fixed in place);
* :mod:`.hoist_local_def` — WSP202/WSP203 (and the local functions of WSP204/WSP901);
* :mod:`.hoist_lambda` — WSP201/WSP204/WSP901 (and ``partial(lambda ...)`` of WSP202);
* :mod:`.wrap_in_main_guard` — WSP101/WSP103/WSP104, and WSP105's ``freeze_support()``.

:func:`fix_text` applies the codemods whose rules are enabled and whose fix
safety the caller allows, re-checks after each one (positions move), and
repeats until nothing changes (at most :data:`MAX_PASSES` passes).  It never
returns text that does not compile or that has findings the original did not
have: then the original text comes back with a note.  Front ends import this
package (and with it libcst) only when a file has something to fix.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Optional

from ..finding import Finding
from .hoist_lambda import HoistLambda
from .hoist_local_def import HoistLocalDef
from .repair_main_guard import RepairMainGuard
from .wrap_in_main_guard import WrapInMainGuard

MAX_PASSES = 3

# In the order they run: the guard first (other fixes rely on it), then the hoisting of definitions out of
# functions, then moving module-level statements under the guard.
CODEMODS = (RepairMainGuard, HoistLocalDef, HoistLambda, WrapInMainGuard)
FIXABLE = frozenset(rule for codemod in CODEMODS for rule in codemod.FIXES)


@dataclass
class FixOutcome:
    text: str
    fixed: list[Finding] = field(default_factory=list)
    remaining: list[Finding] = field(default_factory=list)
    note: Optional[str] = None


def _allowed(finding: Finding, unsafe: bool) -> bool:
    return finding.rule in FIXABLE and finding.rule.fix_safety.applies(unsafe)


def fix_text(text: str, filename: Optional[str], settings, unsafe: bool = False) -> FixOutcome:
    """Apply every allowed fix to ``text``; never returns code that does not compile."""
    # libcst keeps LF and CRLF files byte for byte but drops a lone-CR file's last newline: fix such a file
    # with LF endings and put its CRs back (old Mac files exist; they are valid Python).
    if "\r" in text and "\n" not in text:
        outcome = _fix_text(text.replace("\r", "\n"), filename, settings, unsafe)
        if outcome.text == text.replace("\r", "\n"):
            return FixOutcome(text, outcome.fixed, outcome.remaining, outcome.note)
        return FixOutcome(outcome.text.replace("\n", "\r"), outcome.fixed, outcome.remaining, outcome.note)
    if "\r" in text.replace("\r\n", ""):
        findings = _check(text, filename, settings)
        return FixOutcome(text, [], findings, "mixed lone-CR and LF line endings; not fixed (normalise them first)")
    return _fix_text(text, filename, settings, unsafe)


def _check(text: str, filename: Optional[str], settings) -> list:
    from .. import check_text
    from ..settings import Settings

    return check_text(text, filename, settings or Settings())


def _fix_text(text: str, filename: Optional[str], settings, unsafe: bool = False) -> FixOutcome:
    from .. import check_text
    from ..settings import Settings

    settings = settings or Settings()
    original = check_text(text, filename, settings)
    if not any(_allowed(f, unsafe) for f in original):
        return FixOutcome(text, [], original)

    import libcst as cst
    from libcst.codemod import CodemodContext

    # Each text is checked and parsed once: most codemods in a pass leave the text as it was.
    checked = {text: original}
    parsed: dict[str, cst.Module] = {}

    def check(source: str) -> list:
        if source not in checked:
            checked[source] = check_text(source, filename, settings)
        return checked[source]

    def parse(source: str) -> cst.Module:  # libcst trees are immutable, so one can be shared by codemods
        if source not in parsed:
            parsed[source] = cst.parse_module(source)
        return parsed[source]

    current, notes = text, []
    converged = False
    for _ in range(MAX_PASSES):
        changed = False
        for command_class in CODEMODS:
            class_name = command_class.__name__
            targets = [f for f in check(current) if f.rule in command_class.FIXES and _allowed(f, unsafe)]
            if not targets:
                continue
            command = command_class(CodemodContext(filename=filename), findings=targets, unsafe=unsafe)
            try:
                new = command.transform_module(parse(current)).code
            except Exception as error:  # a codemod bug must not lose the user's file
                notes.append(f"{class_name} failed ({type(error).__name__}: {error}); skipped")
                continue
            for note in command.notes:
                if note not in notes:
                    notes.append(note)
            if new != current:
                try:
                    compile(new, filename or "<fix>", "exec", dont_inherit=True)
                except SyntaxError as error:
                    notes.append(f"{class_name} produced code that does not compile ({error.msg}); skipped")
                    continue
                current, changed = new, True
        if not changed:
            converged = True
            break
    note = "; ".join(notes) or None
    if current == text:
        return FixOutcome(text, [], original, note)
    if not converged:
        return FixOutcome(text, [], original, _join(note, f"fixes did not converge in {MAX_PASSES} passes; "
                                                          "file left unchanged"))
    remaining = check(current)
    before, after = Counter(f.code for f in original), Counter(f.code for f in remaining)
    new_codes = sorted(code for code in after if after[code] > before[code])
    if new_codes:
        return FixOutcome(text, [], original, _join(note, f"the fix would introduce {', '.join(new_codes)}; "
                                                          "file left unchanged"))
    # A finding this run did not set out to fix must not vanish either: a rewrite that hides a hazard from the
    # checker (say, a closure over a sqlite connection turned into a partial) has not fixed it.
    targeted = {f.code for f in original if _allowed(f, unsafe)}
    hidden = sorted(code for code in before if code not in targeted and after.get(code, 0) < before[code])
    if hidden:
        return FixOutcome(text, [], original, _join(note, f"the fix would hide {', '.join(hidden)} without fixing "
                                                          "it; file left unchanged"))
    fixed: list[Finding] = []
    for code, count in before.items():
        gone = count - after.get(code, 0)
        fixed.extend([f for f in original if f.code == code][:gone])
    return FixOutcome(current, sorted(fixed, key=Finding.sort_key), remaining, note)


def _join(note: Optional[str], more: str) -> str:
    return f"{note}; {more}" if note else more
