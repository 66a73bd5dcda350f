"""Re-import hazards (WSP107, WSP902): what a spawned worker's re-import of the main module does not give it.

A spawned (or forkserver) worker imports the parent's script as ``__mp_main__``:
the body of ``if __name__ == "__main__":`` does not run there, and neither does
anything the guard calls.  So a global the guard (or a function it calls, through
``global``) *assigns* keeps its import-time value there (WSP107: ``None``, or a
``NameError``).  Forked workers inherit the parent's memory and see it, which
is why these scripts work on Linux up to 3.13.  (A function or class *defined*
under the guard, WSP106, is a source of the taint analysis: see ``pickling.py``.)

WSP902 (opt-in, performance): a ``DataLoader`` with workers but without
``persistent_workers=True`` starts new workers every time it is iterated; under
spawn each of them re-imports the script again, every epoch.
"""

from __future__ import annotations

import ast
from typing import Iterator, Optional

from ... import rules
from ...spawn_apis import PICKLE, Arg
from ..context import Context
from ..index import FUNCTION_NODES, Binding, Scope
from ..names import MAX_DEPTH
from ..positions import span
from ..values import MAYBE, NONE, UNKNOWN
from ..workers import Payload, instance_class, resolve_callee

#: Methods of an object sent to workers that run *in* the worker (``__len__`` and ``__init__`` run in the parent).
_WORKER_METHODS = ("__getitem__", "__getitems__", "__iter__", "__call__")
_DATALOADER = "torch.utils.data.DataLoader"
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_ITER_WRAPPERS = frozenset({"enumerate", "iter", "tqdm", "reversed", "zip"})


def check(ctx: Context) -> None:
    wanted = {rule for rule in (rules.WSP107, rules.WSP902) if rule.code in ctx.enabled}
    if rules.WSP902 in wanted:
        _per_epoch_workers(ctx)
    if rules.WSP107 not in wanted or not ctx.index.main_guards:
        return  # about what only the guard (or what it calls) assigns
    places = _Places(ctx)
    payloads = [p for p in ctx.model.payloads if p.api.pickler == PICKLE and p.api.reimports_main]
    if places.assigned_at_run_time:
        _run_time_globals(ctx, places, payloads)


class _Places:
    """Which module-level statements run only in the parent: under the guard, or in functions the guard calls."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.guarded: set[ast.stmt] = set()
        #: the guard's `else:`, which runs exactly where the guard does not: in the workers' re-import
        self.guard_else: set[ast.stmt] = set()
        for guard in ctx.index.main_guards:
            self.guarded.update(_statements(guard.body))
            self.guard_else.update(_statements(guard.orelse))
        self.import_time: set[ast.stmt] = set(_statements(ctx.index.tree.body)) - self.guarded
        # function node -> the statements of its own body (not of nested defs)
        self.owner: dict[ast.stmt, ast.AST] = {}
        for function in ctx.index.functions:
            for stmt in _statements(function.body):
                self.owner[stmt] = function
        self.edges: dict[ast.AST, set[ast.AST]] = {}
        guard_calls, import_calls = set(), set()
        for call, site in ctx.index.calls:
            callee = resolve_callee(call, site, ctx.index, ctx.resolver)
            if callee is None:
                continue
            function = site.function
            if function is not None and function.kind == "function":
                self.edges.setdefault(function.node, set()).add(callee)
            elif site.guarded:
                guard_calls.add(callee)
            elif site.import_time:
                import_calls.add(callee)
        self.called_by_guard = self.closure(guard_calls)
        self.called_at_import = self.closure(import_calls)
        module = ctx.index.module_scope
        self.assigned_at_run_time = any(
            self.run_time(b) for bindings in module.bindings.values() for b in bindings)

    def closure(self, roots: "set[ast.AST] | list[ast.AST]") -> set[ast.AST]:
        seen, todo = set(), list(roots)
        while todo:  # bounded: each function is visited once
            node = todo.pop()
            if node in seen:
                continue
            seen.add(node)
            todo.extend(self.edges.get(node, ()))
        return seen

    def run_time(self, binding: Binding) -> bool:
        """The binding is made only in the parent process, after the import."""
        if binding.node in self.guarded:
            return True
        function = self.owner.get(binding.node)
        return function is not None and function in self.called_by_guard and function not in self.called_at_import


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements of a block and of its nested blocks, not entering function or class bodies."""
    stack = list(body)
    while stack:
        stmt = stack.pop()
        yield stmt
        if isinstance(stmt, (*FUNCTION_NODES, ast.ClassDef)):
            continue
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(stmt, name, ()) or ():
                if isinstance(child, ast.stmt):
                    stack.append(child)
                else:  # except handlers, match cases
                    stack.extend(getattr(child, "body", ()))


# -- WSP107 -------------------------------------------------------------------------------------------
def _run_time_globals(ctx: Context, places: _Places, payloads: list[Payload]) -> None:
    entries: dict[ast.AST, tuple[str, Payload]] = {}  # function run in a worker -> its name, how it gets there
    for payload in payloads:
        for function, label in _worker_functions(ctx, payload):
            entries.setdefault(function, (label, payload))
    if not entries:
        return
    # Every function that may run in a worker: a global it assigns is set up by the worker itself.
    all_callables: list[ast.AST] = []
    for payload in ctx.model.payloads:
        if payload.arg.kind == "callable":
            all_callables.extend(f for f, _ in _worker_functions(ctx, payload))
    in_workers = places.closure([*entries, *all_callables])
    module = ctx.index.module_scope
    for entry, (label, payload) in entries.items():
        ctx.worker = (payload.api, payload.method, False)  # only a re-import misses the assignment
        for function in sorted(places.closure([entry]), key=lambda f: getattr(f, "lineno", 0)):
            scope = ctx.index.scope_of.get(function)
            if scope is None:
                continue
            for name in _global_reads(ctx, function, scope):
                bindings = module.bindings.get(name.id, ())
                # silent when the worker side assigns it itself: in code that runs in workers, or in the
                # guard's `else:` (the value the author chose for importers, workers included)
                if not bindings or any(places.owner.get(b.node) in in_workers or b.node in places.guard_else
                                       for b in bindings):
                    continue
                early = [b for b in bindings if b.node in places.import_time]
                # `import numpy as np` again under the guard rebinds the module the worker already imported
                late = [b for b in bindings if places.run_time(b) and not (early and b.kind == "import")]
                if not late:
                    continue
                where = late[0]
                owner = places.owner.get(where.node)
                place = f"in `{owner.name}()`" if owner is not None else 'under `if __name__ == "__main__":`'
                seen = "its import-time value" if early else "no such name (`NameError`)"
                ctx.emit(rules.WSP107, name, name=name.id, worker=label, where=place, line=ctx.line_ref(where.line),
                         seen=seen)
    ctx.worker = None


def _worker_functions(ctx: Context, payload: Payload) -> list[tuple[ast.AST, str]]:
    """Functions of this module that run in the worker because of this payload."""
    scope = payload.site.scope
    value, value_scope = ctx.resolver.value_of(payload.expr, scope)
    if isinstance(value, ast.Call) and ctx.resolver.qualname(value.func, value_scope) == "functools.partial":
        if not value.args:
            return []
        value, value_scope = ctx.resolver.value_of(value.args[0], value_scope)
    if isinstance(value, ast.Name):  # a function
        binding = ctx.resolver.definition(value, value_scope)
        if binding is not None and binding.kind == "def" and binding.scope is ctx.index.module_scope:
            return [(binding.node, f"`{binding.name}`")]
    elif isinstance(value, ast.Attribute) and payload.arg.kind == "callable":  # a bound method
        info = instance_class(value.value, value_scope, ctx.index, ctx.resolver)
        if info is not None and value.attr in info.methods:
            return [(info.methods[value.attr], f"`{info.node.name}.{value.attr}`")]
    elif isinstance(value, ast.Call):  # an instance: what a worker calls on it
        info = instance_class(value, value_scope, ctx.index, ctx.resolver)
        if info is not None:
            return [(info.methods[m], f"`{info.node.name}.{m}`") for m in _WORKER_METHODS if m in info.methods]
    return []


def _global_reads(ctx: Context, function: ast.AST, scope: Scope) -> Iterator[ast.Name]:
    """First read of each module-level name in a function's own body (nested defs are separate functions)."""
    nodes, stack = [], list(function.body)
    while stack:
        node = stack.pop(0)
        if not isinstance(node, (*FUNCTION_NODES, ast.ClassDef)):
            nodes.append(node)
            stack.extend(ast.iter_child_nodes(node))
    # Names a comprehension or lambda of the body binds (`x for x in rows`, `lambda item: ...`) are theirs,
    # not globals; counting every such name as local only makes the check quieter.
    inner = {n.id for n in nodes if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    inner |= {n.arg for n in nodes if isinstance(n, ast.arg)}
    seen: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in seen:
            seen.add(node.id)
            if (node.id not in inner or node.id in scope.globals_) and _is_global(node.id, scope):
                yield node


def _is_global(name: str, scope: Scope) -> bool:
    current: Optional[Scope] = scope
    while current is not None and current.kind != "module":
        if current.is_function and name in current.bindings and name not in current.globals_:
            return False
        current = current.parent
    return True


# -- WSP902 -------------------------------------------------------------------------------------------
def _per_epoch_workers(ctx: Context) -> None:
    parents: dict[ast.AST, dict[ast.AST, ast.AST]] = {}
    for iterable, report, site in ctx.index.iterations:
        if site.import_time:
            continue  # WSP101: under spawn this loop never gets to a second epoch
        loader = _unwrap(ctx, iterable, site.scope)
        found = ctx.finder.api_object(loader, site.scope)
        if found is None or found[0].key != _DATALOADER:
            continue
        api, ctor, ctor_scope = found
        state = ctx.values.workers(api, ctor, ctor_scope)
        if state == NONE or (state == MAYBE and not ctx.finder.assume_workers):
            continue
        given, expr = ctx.values.argument(ctor, Arg("persistent_workers", 9), ctor_scope)
        if given is UNKNOWN or (expr is not None and ctx.values.fold(expr, ctor_scope) is not False):
            continue
        function = site.scope.function_scope()
        root = function.node if function is not None else ctx.index.tree
        if root not in parents:
            parents[root] = _parent_map(root)
        outer = _enclosing_loop(parents[root], report)
        if outer is None or _within(ctor, outer):
            continue  # iterated once, or a new loader every epoch (persistence would not help)
        ctx.worker = (api, ctx.finder.explicit_method(ctor, ctor_scope), False)
        ctx.emit(rules.WSP902, report, line_only=isinstance(report, ast.stmt), line=ctx.line_ref(outer.lineno),
                 fix_hint={"loader": span(ctor)})
        ctx.worker = None


def _unwrap(ctx: Context, iterable: ast.expr, scope: Scope) -> ast.expr:
    for _ in range(MAX_DEPTH):
        if not (isinstance(iterable, ast.Call) and iterable.args):
            break
        name = (ctx.resolver.qualname(iterable.func, scope) or "").replace("builtins.", "").rsplit(".", 1)[-1]
        if name not in _ITER_WRAPPERS:
            break
        iterable = iterable.args[0]
    return iterable


def _parent_map(root: ast.AST) -> dict[ast.AST, ast.AST]:
    parents: dict[ast.AST, ast.AST] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (*FUNCTION_NODES, ast.ClassDef, ast.Lambda)):
                continue
            parents[child] = node
            stack.append(child)
    return parents


def _enclosing_loop(parents: dict[ast.AST, ast.AST], node: ast.AST) -> Optional[ast.stmt]:
    current = parents.get(node)
    while current is not None:
        if isinstance(current, _LOOPS) and node not in (getattr(current, "iter", None),):
            return current
        node, current = current, parents.get(current)
    return None


def _within(inner: ast.AST, outer: ast.AST) -> bool:
    return (outer.lineno, outer.col_offset) <= (inner.lineno, inner.col_offset) and \
        (inner.end_lineno or 0) <= (outer.end_lineno or 0)
