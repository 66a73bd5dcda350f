"""Give workers a global that only the parent assigns at run time (WSP107), where that is mechanical.

A spawned worker re-imports the script: the main guard does not run there, nor a function it calls, so a global
assigned there keeps its import-time value (or does not exist).  Two shapes have a fix that gives every worker
what a forked one inherits:

* **a module imported only under the guard** (``import json`` in ``if __name__ == "__main__":``, read by a worker
  function): the import moves to the module's imports.  The module is then imported when the script is, before
  the guard's code runs (which may set the environment it reads): UNSAFE.
* **a global assigned in the guard, or through ``global`` in a function, before that same code creates the
  ``multiprocessing.Pool`` or ``ProcessPoolExecutor`` that runs the worker function**: the pool gets an initializer
  that sets the global in each worker from ``initargs`` (the documented idiom), so each worker has the value the
  parent had when it created the pool, which is what a forked worker copies::

      def _set_factor(factor):
          global FACTOR
          FACTOR = factor

      ... multiprocessing.Pool(2, initializer=_set_factor, initargs=(FACTOR,)) ...

  UNSAFE: the value now travels by pickling, and must be picklable.

Anything else (a ``Process``, a ``DataLoader``, a pool that already has an initializer, a global assigned in more
than one place, or after the pool is created) is left with a note: there the value is best passed as an argument,
which is the author's choice of signature.
"""

from __future__ import annotations

import ast
from typing import Iterator, Optional

from .. import rules
from ..analysis.guards import is_main_guard
from ..rules import FixSafety
from ._base import DEFINITIONS, Codemod, Edit, syntax_tree
from ._tree import import_names, module_names, qualified_name, unique_name
from .lines import Lines, indent_step
from .persistent_workers import keyword_insertion
from .style import line_limit

#: what creates a pool of workers that takes ``initializer``/``initargs``, and the position of ``initializer``
_POOLS = {"multiprocessing.Pool": 1, "multiprocessing.pool.Pool": 1, "torch.multiprocessing.Pool": 1,
          "concurrent.futures.ProcessPoolExecutor": 2, "concurrent.futures.process.ProcessPoolExecutor": 2}
_IMPORTED_EARLIER = ("the module is now imported when the script is, before the code of the main guard runs (which "
                     "may set up what the import reads): an unsafe fix")
_PICKLED = "the value now goes to each worker by pickling (`initargs`), so it must be picklable: an unsafe fix"
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


class PassRunTimeGlobal(Codemod):
    DESCRIPTION = "Give pool workers the globals the parent assigns at run time, through an initializer."
    TITLE = "Pass the global to the pool's workers through an initializer"
    FIXES = (rules.WSP107,)

    def edit(self, text: str) -> list[Edit]:
        module = syntax_tree(text)
        lines = Lines(text)
        guards = [stmt for stmt in module.body if isinstance(stmt, ast.If) and is_main_guard(stmt.test)]
        imports = import_names(module)
        by_name: dict[str, list] = {}
        for finding in self.findings_for(text):
            by_name.setdefault(finding.args.get("name", ""), []).append(finding)
        pools: dict[ast.Call, tuple[ast.stmt, list[tuple[str, list]]]] = {}  # pool -> (its top statement, names)
        for name, findings in by_name.items():
            early = _import_time_bindings(module, guards, name)
            late = _run_time_bindings(module, guards, name)
            if not late:
                self._decline(findings, f"`{name}` is not assigned under the main guard or through `global`")
            elif all(isinstance(stmt, (ast.Import, ast.ImportFrom)) for _, stmt in late):
                self._move_imports(lines, findings, name, [stmt for _, stmt in late], guards, early)
            elif len({id(host) for host, _ in late}) != 1:
                self._decline(findings, f"`{name}` is assigned in more than one function: pass its value to the "
                                        "worker as an argument")
            else:
                host = late[0][0]
                pool, why = _pool_for(host, [stmt for _, stmt in late], findings, imports, name)
                if pool is None:
                    self._decline(findings, why)
                else:
                    pools.setdefault(pool, (host, []))[1].append((name, findings))
        if pools:
            self._initializers(lines, module, text, pools)
        return lines.edits()

    def _decline(self, findings: list, why: str) -> None:
        for finding in findings:
            self.note(finding, why)

    def _move_imports(self, lines: Lines, findings: list, name: str, statements: list[ast.stmt],
                      guards: list[ast.If], early: list[ast.stmt]) -> None:
        """``import m`` / ``from m import n`` of the guard, to the module's imports."""
        if early:
            self._decline(findings, f"`{name}` is also bound when the module is imported, which the import would "
                                    "not replace")
            return
        body = guards[-1].body if guards else []
        for statement in statements:
            if statement not in body or (isinstance(statement, ast.ImportFrom) and statement.level) or \
                    any(alias.asname or alias.name == "*" for alias in statement.names):
                self._decline(findings, f"`{name}` is imported under the main guard in a form that does not move "
                                        "as it is: import it at the top of the module")
                return
            if len(body) == 1 or _shares_rows(statement, body, lines):
                self._decline(findings, f"`{name}` is imported under the main guard on a line shared with other "
                                        "code: import it at the top of the module")
                return
        for statement in statements:
            for alias in statement.names:
                if isinstance(statement, ast.Import):
                    self.add_import(alias.name)
                else:
                    self.add_import(statement.module, alias.name)
            first, last = lines.first(statement), statement.end_lineno
            if guards[-1].body[0] is statement or not lines.row(first - 1).strip():
                last += lines.blank_run(last + 1)  # no blank rows left after the guard's header, nor two in a row
            lines.replace(first, last, "")
        self.fixes(findings, FixSafety.UNSAFE, _IMPORTED_EARLIER)

    def _initializers(self, lines: Lines, module: ast.Module, text: str,
                      pools: dict[ast.Call, tuple[ast.stmt, list[tuple[str, list]]]]) -> None:
        taken = module_names(module, text)
        step = indent_step(module, lines)
        limit = line_limit(lines.rows, self.line_length)
        for pool, (top, named) in pools.items():
            names = [name for name, _ in named]
            base = f"_set_{'_and_'.join(n.lower() for n in names)}" if len(names) <= 2 else "_set_worker_globals"
            function = unique_name(base, taken)
            params = [n.lower() if n.lower() != n else unique_name(f"{n}_value", taken) for n in names]
            body = [f"{step}global {', '.join(names)}", *(f"{step}{n} = {p}" for n, p in zip(names, params))]
            row = lines.top_leading(module, module.body.index(top))
            while row < lines.first(top) and not lines.row(row).strip():  # after the blank rows, before comments
                row += 1
            lines.insert(row, f"def {function}({', '.join(params)}):\n" + "\n".join(body) + "\n\n\n")
            values = ", ".join(names) + ("," if len(names) == 1 else "")
            keywords = [f"initializer={function}", f"initargs=({values})"]
            lines.replace_span(*_added_keywords(lines, pool, keywords, limit))
            for _, findings in named:
                self.fixes(findings, FixSafety.UNSAFE, _PICKLED)


def _added_keywords(lines: Lines, call: ast.Call, keywords: list[str], limit: int) -> tuple[int, int, str]:
    """The edit that adds ``keywords`` to ``call``; on continuation rows aligned with the first argument (one, else
    one per keyword) when the call's one row would pass ``limit``."""
    start, end, added = keyword_insertion(lines, call, ", ".join(keywords))
    row = lines.row(call.end_lineno).rstrip("\r\n")
    arguments = sorted([*call.args, *call.keywords], key=lambda node: (node.lineno, node.col_offset))
    if added.startswith("\n") or len(row) + len(added) <= limit or not arguments or \
            arguments[0].lineno != call.lineno:
        return start, end, added
    column = lines.at(arguments[0].lineno, arguments[0].col_offset) - lines.offset(arguments[0].lineno)
    tail = len(row) - (end - lines.offset(call.end_lineno))  # what follows the last argument: `) as pool:`
    if column + len(", ".join(keywords)) + tail <= limit:
        return start, end, f",\n{' ' * column}{', '.join(keywords)}"
    return start, end, "".join(f",\n{' ' * column}{keyword}" for keyword in keywords)


def _shares_rows(statement: ast.stmt, body: list[ast.stmt], lines: Lines) -> bool:
    return any(other is not statement and other.lineno <= statement.end_lineno and other.end_lineno >= statement.lineno
               for other in body) or lines.row(statement.lineno)[:statement.col_offset].strip() != ""


def _pool_for(host: ast.AST, assigned: list[ast.stmt], findings: list, imports: dict[str, str],
              name: str) -> tuple[Optional[ast.Call], str]:
    """The pool created in ``host`` (the guard, or a function declaring ``global name``) that the findings' worker
    functions run in, after every assignment of ``name``; or (None, why not)."""
    where = "the main guard" if isinstance(host, ast.If) else f"`{host.name}()`"
    parent = {child: node for node in ast.walk(host) for child in ast.iter_child_nodes(node)}
    calls = [node for node in _own_nodes(host.body) if isinstance(node, ast.Call)
             and qualified_name(node.func, imports) in _POOLS]
    if len(calls) != 1:
        return None, (f"{where} creates {'no' if not calls else 'more than one'} `multiprocessing.Pool` or "
                      f"`ProcessPoolExecutor` to give an initializer that sets `{name}`: pass its value to the "
                      "worker as an argument")
    pool = calls[0]
    workers = {finding.args.get("worker", "").strip("`").split(".")[0] for finding in findings}
    uses = [node for node in _own_nodes(host.body) if isinstance(node, ast.Name) and node.id in workers]
    if {node.id for node in uses} != workers:
        return None, f"the pool {where} creates does not run the worker function that reads `{name}`"
    if not all(_given_to(use, pool, parent) for use in uses):
        # the initializer would set the global for the pool's workers only: those of the other code would still
        # miss it, and the check (which counts a global an initializer sets as the workers' own) would not say so
        return None, f"{where} gives the worker function that reads `{name}` to other code than the pool too: " \
                     "pass the value as an argument"
    position = _POOLS[qualified_name(pool.func, imports)]
    if any(k.arg in ("initializer", "initargs") or k.arg is None for k in pool.keywords) or \
            len(pool.args) > position or any(isinstance(a, ast.Starred) for a in pool.args):
        return None, f"the pool {where} creates has an initializer already, or arguments that may set one: set " \
                     f"`{name}` in it from `initargs`"
    pool_loops = set(_loops(pool, parent))
    for statement in assigned:
        if statement.lineno >= pool.lineno or pool_loops & set(_loops(statement, parent)):
            return None, f"`{name}` is assigned after the pool is created, or in the same loop: pass its value " \
                         "to the worker as an argument"
    return pool, ""


def _given_to(use: ast.Name, pool: ast.Call, parent: dict) -> bool:
    """Whether ``use`` is an argument (however nested: ``functools.partial(work, x)``) of a method call on the pool
    (``pool.map(work, ...)``, with ``pool`` the name it is bound to, or on the call itself)."""
    bound = parent.get(pool)
    names = set()
    if isinstance(bound, ast.withitem) and isinstance(bound.optional_vars, ast.Name):
        names.add(bound.optional_vars.id)
    elif isinstance(bound, ast.Assign) and len(bound.targets) == 1 and isinstance(bound.targets[0], ast.Name):
        names.add(bound.targets[0].id)
    node: ast.AST = use
    while isinstance(parent.get(node), (ast.expr, ast.keyword)):
        node = parent[node]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                node.func.value is pool or isinstance(node.func.value, ast.Name) and node.func.value.id in names):
            return True
    return False


def _loops(node: ast.AST, parent: dict) -> Iterator[ast.AST]:
    while node in parent:
        node = parent[node]
        if isinstance(node, _LOOPS):
            yield node


def _own_nodes(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node of ``body``, not inside a nested function, class or lambda."""
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (*DEFINITIONS, ast.Lambda)):
            stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _binds(node: ast.AST, name: str) -> bool:
    if isinstance(node, ast.Name):
        return node.id == name and isinstance(node.ctx, (ast.Store, ast.Del))
    if isinstance(node, DEFINITIONS):
        return node.name == name
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return any((alias.asname or alias.name.split(".")[0]) == name for alias in node.names)
    if isinstance(node, ast.ExceptHandler):
        return node.name == name
    return False


def _bindings(body: list[ast.stmt], name: str) -> list[ast.stmt]:
    """The statements of ``body`` (nested blocks included, nested scopes not) that bind ``name``."""
    found: list[ast.stmt] = []
    statement: Optional[ast.stmt] = None
    for node in _own_nodes(body):
        if isinstance(node, ast.stmt):
            statement = node
        if _binds(node, name) and statement is not None and statement not in found:
            found.append(statement)
    return found


def _import_time_bindings(module: ast.Module, guards: list[ast.If], name: str) -> list[ast.stmt]:
    return _bindings([stmt for stmt in module.body if stmt not in guards], name)


def _run_time_bindings(module: ast.Module, guards: list[ast.If], name: str) -> list[tuple[ast.AST, ast.stmt]]:
    """(where, statement) for each binding of the global ``name`` that runs only in the parent: in a guard, or in a
    top-level function that declares ``global name``; where: the guard or the function."""
    found: list[tuple[ast.AST, ast.stmt]] = []
    for guard in guards:
        found += [(guard, stmt) for stmt in _bindings(guard.body, name)]
    for stmt in module.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                isinstance(node, ast.Global) and name in node.names for node in _own_nodes(stmt.body)):
            found += [(stmt, binding) for binding in _bindings(stmt.body, name)]
    return found
