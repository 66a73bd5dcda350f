"""Move import-time work under the main guard (WSP101, WSP103, WSP104) and put ``freeze_support()`` first
in it (WSP105).

A spawned worker imports the main module as ``__mp_main__``: everything outside
``if __name__ == "__main__":`` runs again in every worker.  This codemod moves the module-level
statements that start workers, load data or set the start method — from the first flagged one on,
together with the script statements after it and the ones just before it that only feed them —
out of the import path, and keeps at module level what the workers need when they re-import the
module: imports, functions, classes, and the plain assignments those read.

Two shapes, chosen per module:

* **guard body** — when the module already has a main guard (the statements move into it, at its
  start, or at its end for statements that came after it), or when the only statement to move is a
  call such as ``main()`` / ``asyncio.run(main())`` (then only that call is guarded).  The body of
  the guard is module scope: names it assigns stay globals of the parent process.
* **``def main() -> None:``** (or a free name when ``main`` is taken) called from a new guard at the
  end of the module: names the moved code assigns become locals, except those a module-level
  function reads or that module-level code also binds, which are declared ``global``.

**The order of what runs in the main process is kept.**  A statement that stays at module level while
one before it moves would now run first: it stays only when it is a plain assignment (no call, nothing a
moved statement assigns or reads), else it moves too.  A definition or import that stays while a
statement before it moves must not need, when it runs, a name that statement assigns (a base class, a
decorator, a default value), nor bind a name the moved code uses; otherwise the fix is declined, with a
note that says which line needs which name.

A name assigned by flagged code and read by a function that may run in a worker (one passed as a
value, a method, or what those call) must stay at module level, else the worker gets a NameError:
that finding is reported without a fix.  Moved statements are one block deeper, indented by the file's
own unit (:func:`.lines.indent_step`); in a file that keeps to the project's maximum line length, a line
that would newly pass it is wrapped (:func:`.style.indent_deeper`), and a statement with such a line that
has no clean break does not move, with a note.  The new guard always starts with ``freeze_support()``
(reusing an ``import multiprocessing``, else importing it).

A ``DataLoader`` with workers that the moved code builds and a loop iterates once per epoch gets
``persistent_workers=True`` with ``--unsafe-fixes`` (its workers then live across epochs: under spawn each new
one re-imports the script); a safe run says so in a note instead.

UNSAFE: code that imports the module no longer gets the moved names or side effects.

The codemod edits the module's rows (:mod:`.lines`): a statement moves with its leading comment and blank rows
and its blocks' footer, and one block deeper each of its rows is indented, but blank rows and rows inside a
string.

Run on its own::

    python -m libcst.tool codemod -x winspawn_lint.fix.commands.WrapInMainGuard train.py
"""

from __future__ import annotations

import ast
from typing import Optional

from .. import rules
from ..analysis.guards import is_main_guard
from ..analysis.positions import char_column
from ..analysis.scopes import ScopeTree
from ..io.source import split_rows
from ..records import Record
from ._base import DEFINITIONS, Codemod, Edit, existing_spelling, line_ref, syntax_tree
from ._tree import module_names, unique_name
from .lines import Lines, indent_step, indented, row_groups
from .persistent_workers import epoch_loaders, keyword_insertion
from .style import indent_deeper, keeps_to

_DEFINITIONS = (ast.Import, ast.ImportFrom, *DEFINITIONS)


class _Unit(Record):
    """One top-level statement as the rows count them: the ast statements on its rows (``a = 1; b = 2``)."""

    __slots__ = ("index", "at", "stmts", "binds", "reads", "runs", "findings")

    def __init__(self, index: int, at: int, stmts: list[ast.stmt], binds: set[str], reads: set[str], runs: set[str],
                 findings: Optional[list] = None) -> None:
        self.index = index
        self.at = at  # the index of its first statement in the module's body
        self.stmts = stmts
        self.binds = binds  # names it binds in the module scope
        self.reads = reads  # module-level names it reads (in its nested functions and classes too)
        self.runs = runs  # module-level names it reads when it runs (not in the functions it defines)
        self.findings = findings if findings is not None else []

    @property
    def kind(self) -> str:
        if len(self.stmts) == 1 and isinstance(self.stmts[0], ast.If) and is_main_guard(self.stmts[0].test):
            return "guard"
        if self.findings and all(isinstance(s, (ast.Import, ast.ImportFrom)) for s in self.stmts):
            return "statement"  # an import that does heavy work (a sibling module loading data)
        if all(isinstance(s, _DEFINITIONS) or _is_docstring(s) for s in self.stmts):
            return "definition"
        return "statement"

    @property
    def is_definition(self) -> bool:
        """A def or class (pycodestyle wants two blank rows around it at top level)."""
        return isinstance(self.stmts[0], DEFINITIONS)

    @property
    def line(self) -> int:
        """Its first row (a decorator's, for a decorated definition)."""
        first = self.stmts[0]
        return min([first.lineno, *(d.lineno for d in getattr(first, "decorator_list", ()))])

    @property
    def pure(self) -> bool:
        """A plain assignment to names (``LABELS = ("a", "b")``): running it earlier or later changes nothing but
        the names it binds, as long as nothing it reads changes in between."""
        return all(isinstance(s, (ast.Assign, ast.AnnAssign))
                   and all(isinstance(t, ast.Name) for t in (s.targets if isinstance(s, ast.Assign) else [s.target]))
                   and not any(isinstance(n, _EFFECTS) for n in ast.walk(s)) for s in self.stmts)


_EFFECTS = (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr, ast.Subscript, ast.Attribute)


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _is_constant_config(unit: _Unit) -> bool:
    """``NUM_WORKERS = 2``: configuration a reader expects at the top, never pulled into main()."""
    names = unit.binds
    return bool(names) and all(n.isupper() for n in names)


class WrapInMainGuard(Codemod):
    DESCRIPTION = "Move import-time worker starts and heavy work under the main guard."
    TITLE = 'Move import-time code under `if __name__ == "__main__":`'
    FIXES = (rules.WSP101, rules.WSP103, rules.WSP104, rules.WSP105)

    @classmethod
    def title(cls, finding) -> str:
        return "Call `freeze_support()` first in the main guard" if finding.rule is rules.WSP105 else cls.TITLE

    def edit(self, text: str) -> list[Edit]:
        if text and not text.endswith(("\n", "\r")):  # rows are whole rows: end the last one, and take it off again
            newline = Lines(text).newline
            edits = self.edit(text + newline)
            if not edits:
                return []
            new = Lines(text + newline)
            new._edits = edits
            return [Edit(0, len(text), new.edited()[:-len(newline)])]
        findings = self.findings_for(text)
        if not findings:
            return []
        module = syntax_tree(text)
        scopes = self.scopes(module)
        lines = Lines(text)
        units = self._units(module, scopes)
        by_line = {}
        for unit in units:
            for stmt in unit.stmts:
                for line in range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1):
                    by_line[line] = unit
        guards = [u for u in units if u.kind == "guard"]
        guard = guards[-1] if guards else None
        freeze_findings = [f for f in findings if f.rule is rules.WSP105]
        for finding in findings:
            if finding.rule is rules.WSP105:
                continue
            unit = by_line.get(finding.line)
            if unit is None or unit.kind == "guard" or any(isinstance(stmt, DEFINITIONS) for stmt in unit.stmts):
                self.note(finding, "it is not in a module-level statement that can move (a decorator or a class "
                                   "body?)")
                continue
            unit.findings.append(finding)

        # The moved statements go one level deeper: lines that would grow past the maximum line length are
        # wrapped (in a file that keeps to it), and a statement with such a line that cannot be wrapped cleanly
        # does not move.
        step = indent_step(module, lines)
        block = step
        if guard is not None and _body_rows(guard):
            block = lines.indent(guard.stmts[0].body[0].lineno)
        limit = self.line_length if keeps_to(lines.rows, self.line_length) else None
        self._deeper = _Deeper(lines, module, units, block, limit)
        moved = self._plan(units, scopes, guard)
        if not moved and not (guard is not None and freeze_findings):
            return []
        if self.decide:  # the plan is made: what follows writes it
            self.fixes([f for unit in moved for f in unit.findings])
            if guard is not None or moved:
                self.fixes(freeze_findings)
            return []
        self._persistent_workers(module, lines, units, moved)

        freeze = self._freeze_support(module)
        newline = lines.newline
        for unit in moved:
            self.fixes(unit.findings)
            lines.replace(*_span(lines, module, unit), "", native=True)
        moved_index = {u.index for u in moved}
        _respace(lines, module, [u for u in units if u.index not in moved_index])

        if guard is not None:
            self._into_guard(lines, module, guard, moved, freeze, block, freeze_findings)
            return lines.edits()

        single_call = len(moved) == 1 and len(moved[0].stmts) == 1 and isinstance(moved[0].stmts[0], ast.Expr) \
            and isinstance(moved[0].stmts[0].value, (ast.Call, ast.Await))
        guard_text = f'\n\nif __name__ == "__main__":\n{step}{freeze}()\n'
        moved_rows = "".join(self._deeper.rows(u.index, first=i == 0) for i, u in enumerate(moved))
        if single_call:
            added = guard_text.replace("\n", newline) + moved_rows
        else:
            name = unique_name("main", module_names(module, text))
            globals_needed = self._globals(units, moved, scopes)
            declaration = f"{step}global {', '.join(sorted(globals_needed))}\n" if globals_needed else ""
            added = (f"\n\ndef {name}() -> None:\n{declaration}".replace("\n", newline) + moved_rows
                     + f"{guard_text}{step}{name}()\n".replace("\n", newline))
        lines.insert(lines.last(module.body[-1]) + 1, added, native=True)
        return lines.edits()

    def _into_guard(self, lines: Lines, module: ast.Module, guard: _Unit, moved: list[_Unit], freeze: str,
                    block: str, freeze_findings: list) -> None:
        """The moved statements into the guard: those from above it at its start (after ``freeze_support()``),
        those from below it at its end (before the comment rows that close it)."""
        newline = lines.newline
        statement = guard.stmts[0]
        body = statement.body
        first = row_groups(body)[0]
        has_freeze = _is_freeze_call(first[0])
        above = [u for u in moved if u.index < guard.index]
        below = [u for u in moved if u.index > guard.index]
        before = "".join(self._deeper.rows(u.index, first=i == 0) for i, u in enumerate(above))
        after = "".join(self._deeper.rows(u.index, first=False) for u in below)
        if not has_freeze and (freeze_findings or moved):
            before = f"{block}{freeze}()\n".replace("\n", newline) + before
            self.fixes(freeze_findings)
        if not _body_rows(guard):  # `if __name__ == "__main__": main()`: the body goes to rows of its own
            row = lines.row(body[0].lineno)
            column = char_column(row, body[0].col_offset)
            suite = f"{block}{row[column:]}"
            rows = [suite, before] if has_freeze else [before, suite]
            header = row[:column].rstrip(" \t") + newline
            lines.replace(body[0].lineno, body[0].lineno, "".join([header, *rows, after]), native=True)
            return
        if before:
            at = lines.last(first[-1]) + 1 if has_freeze else lines.leading(body[0], None)
            lines.insert(at, before, native=True)
        if after:
            lines.insert(lines.last(body[-1]) + 1, after, native=True)

    # -- analysis ---------------------------------------------------------------------------------------
    def _units(self, module: ast.Module, scopes: ScopeTree) -> list[_Unit]:
        units, at = [], 0
        for index, group in enumerate(row_groups(module.body)):
            binds = set().union(*(scopes.module_binds(s) for s in group))
            runs = set().union(*(scopes.run_time_reads(s) for s in group))
            units.append(_Unit(index, at, group, binds, scopes.module_reads(group), runs))
            at += len(group)
        return units

    def _plan(self, units: list[_Unit], scopes: ScopeTree, guard: Optional[_Unit]) -> list[_Unit]:
        """The units to move, in order; drops (with a note) findings whose fix would break workers or change the
        order of what runs.

        Each round either returns or declines at least one flagged unit, so there are at most as many
        rounds as flagged units, plus the one that finds none left.
        """
        workers = _worker_functions(scopes.module.node)
        worker_reads = scopes.module_reads(workers)
        for _ in range(sum(1 for u in units if u.findings) + 1):
            flagged = [u for u in units if u.findings]
            if not flagged:
                break
            moved = self._moved(units, flagged, guard, worker_reads)
            # Names a worker may read must stay: a flagged unit binding one cannot be fixed.
            blocked = {i: f"{_names(units[i].binds & worker_reads)}, which it assigns, is read by code that runs "
                          "in worker processes: under the guard, the workers would fail with NameError"
                       for i in sorted(moved) if units[i].binds & worker_reads}
            if not blocked:
                blocked = _order_problems(units, moved, guard)
            if not blocked:
                blocked = {i: f"indented under the guard, {why}" for i in sorted(moved)
                           if (why := self._deeper.problem(i))}
            if not blocked:
                return [units[i] for i in sorted(moved)]
            for index, why in blocked.items():
                unit = units[index]
                # An unflagged unit moves because of flagged ones: those before it (everything after the
                # first flagged statement moves) or, for a statement that feeds them, those after it.
                victims = [unit] if unit.findings else (
                    [u for u in flagged if u.index < unit.index] or [u for u in flagged if u.index > unit.index])
                for victim in victims:
                    said = why if victim is unit else (
                        f"{line_ref(unit.line)} would have to move with it (what runs after it moves too, to keep the "
                        f"order), and {why}")
                    for finding in victim.findings:
                        self.note(finding, said)
                    victim.findings = []
        return []

    def _moved(self, units: list[_Unit], flagged: list[_Unit], guard: Optional[_Unit],
               worker_reads: set[str]) -> set[int]:
        """Indexes of the units that move with the flagged ones."""
        first = flagged[0].index
        moved = {u.index for u in flagged}
        for unit in units:
            if unit.index > first and unit.kind == "statement":
                moved.add(unit.index)
        # Statements right before the first flagged one that only feed the moved code move too.
        for unit in reversed(units[:first]):
            if unit.kind != "statement" or _is_constant_config(unit):
                break
            names = unit.binds
            others = set().union(*(u.reads for u in units if u.index not in moved and u.index != unit.index))
            moved_reads = set().union(*(units[i].reads for i in moved))
            if names and not (names & others) and names & moved_reads:
                moved.add(unit.index)
            else:
                break
        # A plain assignment that a definition or a worker reads stays at module level, when moving the statements
        # before it after it changes nothing: it reads nothing they assign, and binds nothing they use.  Each
        # round keeps one more unit or stops: at most len(units) rounds.
        for _ in range(len(units)):
            kept_reads = worker_reads | set().union(
                *(u.reads for u in units if u.index not in moved and u.kind != "guard"))
            keep = next((unit for unit in units if unit.index in moved and not unit.findings and unit.pure
                         and unit.binds & kept_reads and _commutes(unit, _jumped(unit, units, moved, guard))), None)
            if keep is None:
                break
            moved.discard(keep.index)
        return moved

    def _globals(self, units: list[_Unit], moved: list[_Unit], scopes: ScopeTree) -> set[str]:
        """Names main() must declare ``global``: those it binds that a module-level function or class reads,
        or that module-level code also binds and main() reads (it may read the module's value first)."""
        moved_index = {u.index for u in moved}
        binds = set().union(*(u.binds for u in moved))
        moved_reads = set().union(*(u.reads for u in moved))
        stay = [u for u in units if u.index not in moved_index]
        definitions = [s for u in stay for s in u.stmts if isinstance(s, DEFINITIONS)]
        read_by_definitions = scopes.module_reads(definitions)
        bound_elsewhere = set().union(*(u.binds for u in stay)) if stay else set()
        return (binds & read_by_definitions) | (binds & bound_elsewhere & moved_reads)

    def _freeze_support(self, module: ast.Module) -> str:
        spelling = existing_spelling(module, "multiprocessing", "freeze_support")
        if spelling is None:
            self.add_import("multiprocessing", "freeze_support")
            spelling = "freeze_support"
        return spelling

    def _persistent_workers(self, module: ast.Module, lines: Lines, units: list[_Unit], moved: list[_Unit]) -> None:
        """``persistent_workers=True`` for each module-level ``DataLoader`` with workers that a loop iterates once
        per epoch, now that the loop runs under the guard (unsafe: its workers then live across epochs, where under
        spawn each new one would re-import the script); a note in a safe run."""
        findings = [f for unit in moved for f in unit.findings]
        if not findings:
            return
        moved_index = {u.index for u in moved}
        for unit in units:
            for loader, name, workers in epoch_loaders(module, unit.stmts):
                keyword = f"persistent_workers={workers}"
                if self.unsafe:
                    edit = keyword_insertion(lines, loader, keyword)
                    if unit.index in moved_index:
                        self._deeper.amend(unit.index, edit)
                    else:
                        lines.replace_span(*edit)
                    what = (f"added `{keyword}` to the DataLoader `{name}`, which a loop iterates once per epoch: "
                            "its workers now live across epochs instead of each epoch starting new ones that "
                            "re-import this module")
                else:
                    what = (f"the DataLoader `{name}` is iterated once per epoch: give it `{keyword}` "
                            "(--unsafe-fixes adds it), or every epoch starts new workers that re-import this module")
                self.remark(findings[0], what)


class _Deeper:
    """Each top-level statement's rows as they stand one block deeper (see :func:`.style.indent_deeper`), or
    why they cannot; worked out once per statement, when the plan first moves it."""

    def __init__(self, lines: Lines, module: ast.Module, units: list[_Unit], indent: str,
                 limit: Optional[int]) -> None:
        self.lines, self.module, self.units, self.indent, self.limit = lines, module, units, indent, limit
        self.done: dict[int, tuple[list[str], list[str], Optional[str]]] = {}
        self.amendments: dict[int, list[tuple[int, int, str]]] = {}  # unit -> (start, end, text) in the text

    def amend(self, index: int, edit: tuple[int, int, str]) -> None:
        """Change the unit's code before it moves (``edit``: offsets in the text, ``\\n`` line ends)."""
        self.amendments.setdefault(index, []).append(edit)
        self.done.pop(index, None)

    def problem(self, index: int) -> Optional[str]:
        if self.limit is None:  # nothing is rewrapped: a statement that parses moves as it is
            return None
        return self._work(index)[2]

    def rows(self, index: int, first: bool) -> str:
        """The statement's rows in the block (the file's line ends), after its leading comment rows; ``first``:
        it opens the block, so the blank rows before its first comment go."""
        leading, statement, _ = self._work(index)
        return "".join([*_block_leading(leading, first), *statement])

    def _work(self, index: int) -> tuple[list[str], list[str], Optional[str]]:
        if index not in self.done:
            self.done[index] = self._deeper(self.units[index])
        return self.done[index]

    def _deeper(self, unit: _Unit) -> tuple[list[str], list[str], Optional[str]]:
        lines, newline = self.lines, self.lines.newline
        start, stop = _span(lines, self.module, unit)
        base = lines.offset(start)
        raw = lines.text[base:lines.offset(stop + 1)]
        for begin, end, text in sorted(self.amendments.get(unit.index, ()), reverse=True):
            raw = raw[:begin - base] + text.replace("\n", newline) + raw[end - base:]
        code = raw.replace("\r\n", "\n")
        new, why = indent_deeper(code, self.indent, self.limit)
        if why:
            return [], [], why
        if code.replace("\n", newline) != raw:  # a string holds a line end other than the file's: keep each
            kept = indented(raw, self.indent)
            if new != kept.replace("\r\n", "\n"):
                return [], [], "its line endings are mixed (CRLF and LF), so it is not rewrapped"
            new = kept
        elif newline != "\n":
            new = new.replace("\n", newline)
        rows = split_rows(new)
        leading = lines.first(unit.stmts[0]) - start  # comment rows are never rewrapped: the count holds
        return rows[:leading], rows[leading:], None


def _span(lines: Lines, module: ast.Module, unit: _Unit) -> tuple[int, int]:
    """The unit's rows: its leading rows (none for the module's first statement), itself, its blocks' footer."""
    return lines.top_leading(module, unit.at), lines.last(unit.stmts[-1])


def _block_leading(rows: list[str], first: bool) -> list[str]:
    """Leading rows as they stand inside a block: one blank row at a time (two are pycodestyle's E303 there), and
    none before the first comment of the block's first statement."""
    kept: list[str] = []
    for row in rows:
        if not row.strip() and ((first and not any(r.strip() for r in kept)) or (kept and not kept[-1].strip())):
            continue
        kept.append(row)
    return kept


def _respace(lines: Lines, module: ast.Module, remaining: list[_Unit]) -> None:
    """Where two top-level statements become neighbours that were not, and one of them is a def or class, two
    blank rows separate them (pycodestyle E302, E305): the blank rows before the second one's comments become two."""
    for previous, unit in zip(remaining, remaining[1:]):
        if unit.index == previous.index + 1 or not (unit.is_definition or previous.is_definition):
            continue
        at = lines.top_leading(module, unit.at)
        blanks = lines.blank_run(at)  # those before its first comment (or itself)
        if blanks < 2:
            lines.replace(at, at + blanks - 1, "\n\n")


def _jumped(unit: _Unit, units: list[_Unit], moved: set[int], guard: Optional[_Unit]) -> list[_Unit]:
    """The moved units that ``unit``, staying where it is, would now run before (or after) instead of after (or
    before): those between it and the place they move to.  With a guard, statements above it move to its start
    and those below it to its end; without one, everything moves to a new ``main()`` at the end."""
    if guard is None:
        return [units[i] for i in sorted(moved) if i < unit.index]
    if unit.index < guard.index:
        return [units[i] for i in sorted(moved) if i < unit.index]
    return [units[i] for i in sorted(moved) if unit.index < i]


def _commutes(unit: _Unit, jumped: list[_Unit]) -> bool:
    """Whether ``unit`` may run on the other side of ``jumped`` without anything changing: it reads nothing they
    assign, and assigns nothing they read or assign."""
    binds = set().union(*(u.binds for u in jumped)) if jumped else set()
    reads = set().union(*(u.reads for u in jumped)) if jumped else set()
    return not (unit.runs & binds) and not (unit.binds & (binds | reads))


def _order_problems(units: list[_Unit], moved: set[int], guard: Optional[_Unit]) -> dict[int, str]:
    """Moved unit -> why moving it changes what a definition or import that stays (and would now run first) sees."""
    problems: dict[int, str] = {}
    for unit in units:
        if unit.index in moved or unit.kind == "guard":
            continue
        for other in _jumped(unit, units, moved, guard):
            if other.index in problems:
                continue
            needed = unit.runs & other.binds
            rebound = unit.binds & (other.binds | other.reads)
            if needed:
                problems[other.index] = (f"{line_ref(unit.line)} needs {_names(needed)} when it runs, which "
                                         f"{line_ref(other.line)} assigns: moved under the guard, that would run "
                                         "too late")
            elif rebound:
                problems[other.index] = (f"{line_ref(unit.line)} rebinds {_names(rebound)}"
                                         f", which {line_ref(other.line)} uses: moved under the guard, it would see "
                                         "another value")
    return problems


def _names(names: set[str]) -> str:
    return ", ".join(f"`{name}`" for name in sorted(names))


def _body_rows(guard: _Unit) -> bool:
    """Whether the guard's body starts on a row of its own (not ``if __name__ == "__main__": main()``)."""
    statement = guard.stmts[0]
    return statement.body[0].lineno > statement.lineno


def _worker_functions(module: ast.Module) -> list[ast.AST]:
    """Module-level functions and classes whose code may run in a worker process.

    A function passed anywhere as a value (``pool.map(f, ...)``, ``target=f``), every class (its
    instances may be pickled to workers, and their methods run there), and whatever those call.
    """
    functions = {n.name: n for n in module.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    classes = [n for n in module.body if isinstance(n, ast.ClassDef)]
    called: set[int] = set()
    for node in ast.walk(module):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            called.add(id(node.func))
    as_value = {node.id for node in ast.walk(module)
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in called}
    todo: list[ast.AST] = [*classes, *(f for name, f in functions.items() if name in as_value)]
    seen: list[ast.AST] = []
    ids: set[int] = set()
    while todo:  # each definition is walked once
        node = todo.pop()
        if id(node) in ids:
            continue
        seen.append(node)
        ids.add(id(node))
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id in functions:
                todo.append(functions[inner.func.id])
    return seen


def _is_freeze_call(stmt: ast.stmt) -> bool:
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    func = stmt.value.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name == "freeze_support"
