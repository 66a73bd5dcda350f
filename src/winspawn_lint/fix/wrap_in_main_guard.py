"""Move import-time work under the main guard (WSP101, WSP103, WSP104) and put ``freeze_support()`` first
in it (WSP105).

A spawned worker imports the main module as ``__mp_main__``: everything outside
``if __name__ == "__main__":`` runs again in every worker.  This codemod moves the module-level
statements that start workers, load data or set the start method — from the first flagged one on,
together with the script statements after it and the ones just before it that only feed them —
out of the import path, and keeps at module level what the workers need when they re-import the
module: imports, functions, classes, and the assignments those read.

Two shapes, chosen per module:

* **guard body** — when the module already has a main guard (the statements move into it, at its
  start, or at its end for statements that came after it), or when the only statement to move is a
  call such as ``main()`` / ``asyncio.run(main())`` (then only that call is guarded).  The body of
  the guard is module scope: names it assigns stay globals of the parent process.
* **``def main() -> None:``** (or a free name when ``main`` is taken) called from a new guard at the
  end of the module: names the moved code assigns become locals, except those a module-level
  function reads or that module-level code also binds, which are declared ``global``.

A name assigned by flagged code and read by a function that may run in a worker (one passed as a
value, a method, or what those call) must stay at module level, else the worker gets a NameError:
that finding is reported without a fix.  Moved statements are one block deeper: a line that would
newly pass the project's maximum line length is wrapped (:func:`.style.indent_deeper`), and a statement
with such a line that has no clean break (a long comment, a long string outside brackets) does not move,
with a note.  The new guard always starts with ``freeze_support()`` (reusing an ``import
multiprocessing``, else importing it).
UNSAFE: code that imports the module no longer gets the moved names or side effects.

Run on its own::

    python -m libcst.tool codemod -x winspawn_lint.fix.commands.WrapInMainGuard train.py
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Optional

from .. import rules
from ..analysis.guards import is_main_guard
from ..analysis.scopes import ScopeTree
from . import _cst as cst
from ._base import WinspawnCodemod, existing_spelling, respace, statement_groups
from ._tree import module_names, unique_name
from .style import indent_deeper, max_line_length

_DEFINITIONS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass
class _Unit:
    """One libcst top-level statement and the ast statements on its lines."""

    index: int
    stmts: list[ast.stmt]
    binds: set[str]  # names it binds in the module scope
    reads: set[str]  # module-level names it reads (in its nested functions and classes too)
    findings: list = field(default_factory=list)

    @property
    def kind(self) -> str:
        if len(self.stmts) == 1 and isinstance(self.stmts[0], ast.If) and is_main_guard(self.stmts[0].test):
            return "guard"
        if self.findings and all(isinstance(s, (ast.Import, ast.ImportFrom)) for s in self.stmts):
            return "statement"  # an import that does heavy work (a sibling module loading data)
        if all(isinstance(s, _DEFINITIONS) or _is_docstring(s) for s in self.stmts):
            return "definition"
        return "statement"


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _is_constant_config(unit: _Unit) -> bool:
    """``NUM_WORKERS = 2``: configuration a reader expects at the top, never pulled into main()."""
    names = unit.binds
    return bool(names) and all(n.isupper() for n in names)


class WrapInMainGuard(WinspawnCodemod):
    DESCRIPTION = "Move import-time worker starts and heavy work under the main guard."
    FIXES = (rules.WSP101, rules.WSP103, rules.WSP104, rules.WSP105)

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        text, module, _ = self.prepare(tree)
        findings = self.findings_for(text)
        if not findings:
            return tree
        scopes = self.scopes(module)
        units = self._units(tree, module, scopes)
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
            if unit is None or unit.kind == "guard" or any(
                    isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for stmt in unit.stmts):
                self.note(finding, "not in a module-level statement that can move (a decorator or class body?)")
                continue
            unit.findings.append(finding)

        # The moved statements go one level deeper: lines that would grow past the maximum line length are
        # wrapped, and a statement with such a line that cannot be wrapped cleanly does not move.
        block = tree.default_indent
        if guard is not None:
            block = getattr(tree.body[guard.index].body, "indent", None) or block
        self._deeper = _Deeper(self, tree, block, max_line_length(self.context.filename))
        moved = self._plan(units, module, scopes)
        if not moved and not (guard is not None and freeze_findings):
            return tree

        freeze = self._freeze_support(module)
        indent = tree.default_indent
        quote = '"'
        nodes = list(tree.body)
        moved_set = {u.index for u in moved}
        moved_nodes = [_strip_first_blank(self._deeper.node(u.index), i == 0) for i, u in enumerate(moved)]
        for unit in moved:
            self.applied.extend(unit.findings)

        if guard is not None:
            guard_node = nodes[guard.index]
            assert isinstance(guard_node, cst.If)
            body = list(guard_node.body.body)
            first = guard.stmts[0].body[0] if guard.stmts[0].body else None
            has_freeze = first is not None and _is_freeze_call(first)
            before = [n for n, u in zip(moved_nodes, moved) if u.index < guard.index]
            after = [n for n, u in zip(moved_nodes, moved) if u.index > guard.index]
            head = body[:1] if has_freeze else []
            rest = body[1:] if has_freeze else body
            if not has_freeze and (freeze_findings or moved):
                head = self.parse_statements(tree, f"{freeze}()\n")
                self.applied.extend(freeze_findings)
            if rest and before:
                rest = [rest[0]] + rest[1:]
            new_body = head + before + rest + [_strip_first_blank(n, False) for n in after]
            nodes[guard.index] = guard_node.with_changes(body=guard_node.body.with_changes(body=new_body))
            return tree.with_changes(body=respace([(i, n) for i, n in enumerate(nodes)
                                                   if i not in moved_set or i == guard.index]))

        remaining = respace([(i, n) for i, n in enumerate(nodes) if i not in moved_set])
        single_call = len(moved) == 1 and len(moved[0].stmts) == 1 and isinstance(moved[0].stmts[0], ast.Expr) \
            and isinstance(moved[0].stmts[0].value, (ast.Call, ast.Await))
        guard_text = f"if __name__ == {quote}__main__{quote}:\n{indent}{freeze}()\n"
        if single_call:
            new_guard = self.parse_statements(tree, guard_text)[0]
            assert isinstance(new_guard, cst.If)
            new_guard = new_guard.with_changes(
                body=new_guard.body.with_changes(body=[*new_guard.body.body, *moved_nodes]))
            return tree.with_changes(body=[*remaining, _with_blanks(new_guard, 2)])

        taken = module_names(module)
        name = unique_name("main", taken)
        globals_needed = self._globals(units, moved, scopes)
        header = f"def {name}() -> None:\n{indent}pass\n"
        function = self.parse_statements(tree, header)[0]
        assert isinstance(function, cst.FunctionDef)
        inner: list[cst.BaseStatement] = []
        if globals_needed:
            inner.extend(self.parse_statements(tree, f"global {', '.join(sorted(globals_needed))}\n"))
        inner.extend(moved_nodes)
        function = function.with_changes(body=function.body.with_changes(body=inner))
        new_guard = self.parse_statements(tree, guard_text + f"{indent}{name}()\n")[0]
        return tree.with_changes(body=[*remaining, _with_blanks(function, 2), _with_blanks(new_guard, 2)])

    # -- analysis ---------------------------------------------------------------------------------------
    def _units(self, tree: cst.Module, module: ast.Module, scopes: ScopeTree) -> list[_Unit]:
        units = []
        for index, mine in enumerate(statement_groups(tree, module)):
            binds = set().union(*(scopes.module_binds(s) for s in mine)) if mine else set()
            units.append(_Unit(index, mine, binds, scopes.module_reads(mine)))
        return units

    def _plan(self, units: list[_Unit], module: ast.Module, scopes: ScopeTree) -> list[_Unit]:
        """The units to move, in order; drops (with a note) findings whose fix would break workers.

        Each round either returns or declines at least one flagged unit, so there are at most as many
        rounds as flagged units, plus the one that finds none left.
        """
        workers = _worker_functions(module)
        worker_reads = scopes.module_reads(workers)
        for _ in range(sum(1 for u in units if u.findings) + 1):
            flagged = [u for u in units if u.findings]
            if not flagged:
                break
            moved = self._moved(units, flagged)
            # Names a worker may read must stay: a flagged unit binding one cannot be fixed.
            blocked = {i: f"{', '.join(sorted(units[i].binds & worker_reads))} is read by code that runs in worker "
                          "processes; moving it under the guard would make the workers fail with NameError"
                       for i in sorted(moved) if units[i].binds & worker_reads}
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
                    for finding in victim.findings:
                        self.note(finding, why)
                    victim.findings = []
        return []

    def _moved(self, units: list[_Unit], flagged: list[_Unit]) -> set[int]:
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
        # Keep (at module level) unflagged statements whose names definitions read, unless they depend on
        # moved code.  Each round keeps at least one more unit or stops: at most len(units) rounds.
        for _ in range(len(units)):
            kept_reads = set().union(*(u.reads for u in units if u.index not in moved and u.kind != "guard"))
            keep = [unit for unit in units
                    if unit.index in moved and not unit.findings and unit.binds & kept_reads
                    and not (unit.reads & set().union(*(units[i].binds for i in moved if i != unit.index)))]
            if not keep:
                break
            moved.discard(keep[0].index)
        return moved

    def _globals(self, units: list[_Unit], moved: list[_Unit], scopes: ScopeTree) -> set[str]:
        """Names main() must declare ``global``: those it binds that a module-level function or class reads,
        or that module-level code also binds and main() reads (it may read the module's value first)."""
        moved_index = {u.index for u in moved}
        binds = set().union(*(u.binds for u in moved))
        moved_reads = set().union(*(u.reads for u in moved))
        stay = [u for u in units if u.index not in moved_index]
        definitions = [s for u in stay for s in u.stmts
                       if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        read_by_definitions = scopes.module_reads(definitions)
        bound_elsewhere = set().union(*(u.binds for u in stay)) if stay else set()
        return (binds & read_by_definitions) | (binds & bound_elsewhere & moved_reads)

    def _freeze_support(self, module: ast.Module) -> str:
        spelling = existing_spelling(module, "multiprocessing", "freeze_support")
        if spelling is None:
            self.add_import("multiprocessing", "freeze_support")
            spelling = "freeze_support"
        return spelling


class _Deeper:
    """Each top-level statement as it must be written one block deeper (see :func:`.style.indent_deeper`), or
    why it cannot be; worked out once per statement, when the plan first moves it."""

    def __init__(self, codemod: WinspawnCodemod, tree: cst.Module, indent: str, limit: int) -> None:
        self.codemod, self.tree, self.indent, self.limit = codemod, tree, indent, limit
        self.done: dict[int, tuple[cst.BaseStatement, Optional[str]]] = {}

    def node(self, index: int) -> cst.BaseStatement:
        return self._work(index)[0]

    def problem(self, index: int) -> Optional[str]:
        return self._work(index)[1]

    def _work(self, index: int) -> tuple[cst.BaseStatement, Optional[str]]:
        if index not in self.done:
            self.done[index] = self._deeper(self.tree.body[index])
        return self.done[index]

    def _deeper(self, node: cst.BaseStatement) -> tuple[cst.BaseStatement, Optional[str]]:
        leading = len(node.leading_lines)
        raw = self.tree.code_for_node(node)
        code = raw.replace("\r\n", "\n")
        new, why = indent_deeper(code, self.indent, self.limit)
        if why or new == code:
            return _unindent_blank_lines(node), why
        if code != raw and "\n" in raw.replace("\r\n", ""):  # the reparse would make a bare LF (in a string) CRLF
            return node, "its line endings are mixed (CRLF and LF), so it is not rewrapped"
        # The leading comment lines are unchanged (a comment is never rewrapped): parse the statement alone.
        rest = "".join(new.splitlines(keepends=True)[leading:])
        parsed = self.codemod.parse_statements(self.tree, rest)
        if len(parsed) != 1:
            return node, "wrapping its long lines would not keep it one statement"
        return _unindent_blank_lines(parsed[0].with_changes(leading_lines=node.leading_lines)), None


def _unindent_blank_lines(node):
    """``node`` with each blank line inside it written without indentation: a blank line inside a top-level
    statement (before an ``elif``, say) is written with the indentation of its block, which is none at module
    level; one block deeper it would be whitespace (pycodestyle's W293)."""

    class Unindent(cst.CSTTransformer):
        def leave_EmptyLine(self, original: cst.EmptyLine, updated: cst.EmptyLine) -> cst.EmptyLine:
            return updated.with_changes(indent=False) if updated.comment is None and updated.indent else updated

    return node.visit(Unindent())


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
    while todo:
        node = todo.pop()
        if any(node is s for s in seen):
            continue
        seen.append(node)
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


def _strip_first_blank(node: cst.BaseStatement, first: bool) -> cst.BaseStatement:
    """The first statement of a new block starts right after its header: drop its leading blank lines."""
    lines = list(getattr(node, "leading_lines", ()))
    if first:
        while lines and lines[0].comment is None:
            lines.pop(0)
    # Inside a block one blank line at a time (two are pycodestyle's E303 there), and a blank line keeps no
    # indentation (no trailing whitespace on it inside the new block).
    kept: list[cst.EmptyLine] = []
    for line in lines:
        if line.comment is None:
            if kept and kept[-1].comment is None:
                continue
            line = line.with_changes(indent=False)
        kept.append(line)
    return node.with_changes(leading_lines=kept)


def _with_blanks(node: cst.BaseStatement, count: int) -> cst.BaseStatement:
    return node.with_changes(leading_lines=[cst.EmptyLine(indent=False) for _ in range(count)])
