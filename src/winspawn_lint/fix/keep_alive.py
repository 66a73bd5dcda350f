"""Keep a lock created inline in a ``Process``'s arguments alive in a variable (WSP302, the one mechanical shape).

``Process(target=work, args=(multiprocessing.Lock(), queue))``: ``Process.start()`` drops its references to its
arguments once the child is launched, nothing else refers to the lock, and its finalizer unlinks the named
semaphore while the spawned child is still starting; the child cannot open it and dies, and a parent waiting on
it hangs.  The fix binds the lock to a variable just before the statement, which keeps it alive as long as the
function (or module) that starts the process::

    lock = multiprocessing.Lock()
    p = multiprocessing.Process(target=work, args=(lock, queue))

UNSAFE: the lock is created a statement earlier and lives longer (which changes nothing the process sees, but
moves code).  A lock created inline in a loop, a lambda, a comprehension, or a compound statement's header is left
with a note.  Every other WSP302 finding (a file, a connection, a generator...) has no fix: the check gives it none
(no fix hint), so it is never marked fixable.
"""

from __future__ import annotations

import ast
from typing import Optional

from .. import rules
from ..rules import FixSafety
from ._base import DEFINITIONS, Codemod, Edit, syntax_tree
from ._tree import Names, ancestors, find_node, import_names, parents, qualified_name, unique_name
from .lines import Lines

#: multiprocessing's synchronisation primitives (``multiprocessing.X`` and ``multiprocessing.synchronize.X``), and
#: the variable each is kept in
_PRIMITIVES = {"Lock": "lock", "RLock": "lock", "Semaphore": "semaphore", "BoundedSemaphore": "semaphore",
               "Event": "event", "Condition": "condition", "Barrier": "barrier"}
_SIMPLE = (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


class KeepAlive(Codemod):
    DESCRIPTION = "Keep a lock created inline in a Process's arguments alive in a variable."
    TITLE = "Keep the lock alive in a variable until the child has started"
    FIXES = (rules.WSP302,)

    @staticmethod
    def wants(finding) -> bool:
        return "inline" in finding.fix_hint

    def edit(self, text: str) -> list[Edit]:
        module = syntax_tree(text)
        lines = Lines(text)
        imports = import_names(module)
        for finding in self.findings_for(text):
            hint = finding.fix_hint["inline"]
            node = find_node(module, (ast.Call,), hint["line"], hint["col"])
            kind = _primitive(node, imports)
            if node is None or kind is None:
                self.note(finding, "the lock's creation was not found")
                continue
            statement, scope, why = _host_statement(module, node, lines)
            if statement is None:
                self.note(finding, why)
                continue
            # a new local of the function (a global at module level): free where the function uses no such name
            name = unique_name(_PRIMITIVES[kind], Names(scope, text))
            lines.insert(statement.lineno, f"{lines.indent(statement.lineno)}{name} = {lines.segment(node).strip()}\n")
            lines.replace_node(node, name)
            self.fixes([finding], FixSafety.UNSAFE, "the lock is created a statement earlier")
        return lines.edits()


def _primitive(node: Optional[ast.AST], imports: dict[str, str]) -> Optional[str]:
    """``Lock`` for ``multiprocessing.Lock()`` (however imported), None for anything else."""
    if not isinstance(node, ast.Call) or node.args and any(isinstance(a, ast.Starred) for a in node.args):
        return None
    name = qualified_name(node.func, imports) or ""
    module, _, kind = name.rpartition(".")
    return kind if module in ("multiprocessing", "multiprocessing.synchronize") and kind in _PRIMITIVES else None


def _host_statement(module: ast.Module, node: ast.AST, lines: Lines) -> tuple[Optional[ast.stmt], ast.AST, str]:
    """The simple statement whose evaluation creates ``node``, outside any loop, lambda or comprehension, and the
    function (or module) it runs in; or (None, the module, why not)."""
    path = list(reversed(list(ancestors(node, parents(module)))))  # the module first (find_node recorded them)
    statements = [n for n in path if isinstance(n, ast.stmt)]
    if not statements or not isinstance(statements[-1], _SIMPLE):
        return None, module, "the lock is created in the header of a compound statement: bind it to a variable " \
                             "before it"
    if lines.row(statements[-1].lineno)[:statements[-1].col_offset].strip():
        return None, module, "the lock is created in a statement that shares its line: bind it to a variable before it"
    if any(isinstance(n, (ast.Lambda, ast.comprehension, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp))
           for n in path):
        return None, module, "the lock is created in a lambda or a comprehension: bind it to a variable outside it"
    scope = path[max(i for i, n in enumerate(path) if isinstance(n, (ast.Module, *DEFINITIONS)))]
    if isinstance(scope, ast.ClassDef):
        return None, module, "the lock is created in a class body: bind it to a variable before the class"
    if any(isinstance(n, _LOOPS) for n in path[path.index(scope):]):
        return None, module, "the lock is created in a loop, where a variable keeps only the last one alive: keep " \
                             "each one until its process has started"
    return statements[-1], scope, ""
