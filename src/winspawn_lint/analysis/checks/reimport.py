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
import os
from typing import Iterator, Optional

from ... import rules
from ...spawn_apis import PICKLE, Arg
from ..context import Context
from ..heavy import dotted
from ..index import FUNCTION_NODES, Binding, ModuleIndex, Scope
from ..names import MAX_DEPTH, Resolver
from ..positions import span
from ..taint import BOUND, CONST, FUNC, INST, Obj, const_value
from ..values import UNKNOWN
from ..workers import Payload, instance_class, resolve_callee

#: Methods of an object sent to workers that run *in* the worker (``__len__`` and ``__init__`` run in the parent).
WORKER_METHODS = ("__getitem__", "__getitems__", "__iter__", "__call__")
_DATALOADER = "torch.utils.data.DataLoader"
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_ITER_WRAPPERS = frozenset({"enumerate", "iter", "tqdm", "reversed", "zip"})
#: How deep a sink's value is searched for the functions and instances it sends (``Subset(ds)``, a partial).
_MAX_PART_DEPTH = 4


def check(ctx: Context) -> None:
    wanted = {rule for rule in (rules.WSP107, rules.WSP902) if rule.code in ctx.enabled}
    if rules.WSP902 in wanted:
        _per_epoch_workers(ctx)
    if rules.WSP107 not in wanted:
        return
    payloads = [p for p in ctx.model.payloads if p.api.pickler == PICKLE and p.api.reimports_main]
    # (the functions that start workers: what one assigns through `global` before, the parent alone has)
    starters = {p.site.function.node for p in payloads
                if p.site.function is not None and p.site.function.kind == "function"}
    if not ctx.index.main_guards and not starters:
        return  # about what only the guard (or what it calls), or a function that starts workers, assigns
    places = ParentOnly(ctx.index, ctx.resolver, starters)
    if places.assigned_at_run_time:
        _run_time_globals(ctx, places, payloads)


class ParentOnly:
    """Which module-level statements of a module run only in the parent: under the guard, in functions the guard
    calls, or in a function that starts workers itself (``global results; results = Manager().dict()`` before
    ``Process(target=work).start()`` in a module a script imports), none of them called at import."""

    def __init__(self, index: ModuleIndex, resolver: Resolver, starters: "set[ast.AST] | frozenset" = frozenset()
                 ) -> None:
        self.starters = starters
        self.guarded: set[ast.stmt] = set()
        #: the guard's `else:`, which runs exactly where the guard does not: in the workers' re-import
        self.guard_else: set[ast.stmt] = set()
        for guard in index.main_guards:
            self.guarded.update(statements(guard.body))
            self.guard_else.update(statements(guard.orelse))
        self.import_time: set[ast.stmt] = set(statements(index.tree.body)) - self.guarded
        # function node -> the statements of its own body (not of nested defs)
        self.owner: dict[ast.stmt, ast.AST] = {}
        for function in index.functions:
            for stmt in statements(function.body):
                self.owner[stmt] = function
        self.edges: dict[ast.AST, set[ast.AST]] = {}
        guard_calls, import_calls = set(), set()
        for call, site in index.calls:
            callee = resolve_callee(call, site, index, resolver)
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
        module = index.module_scope
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
        return binding.node in self.guarded or self.run_time_statement(binding.node)

    def run_time_statement(self, stmt: ast.AST) -> bool:
        """The statement of a function runs only in the parent: the guard calls the function, the import does not."""
        function = self.owner.get(stmt)
        return function is not None and (function in self.called_by_guard or function in self.starters) \
            and function not in self.called_at_import


def statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
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
def _run_time_globals(ctx: Context, places: ParentOnly, payloads: list[Payload]) -> None:
    found: dict[int, list[tuple[ast.AST, str]]] = {}  # id of a payload -> its worker functions (asked twice)

    def functions(payload: Payload) -> list[tuple[ast.AST, str]]:
        if id(payload) not in found:
            found[id(payload)] = worker_functions(ctx, payload)
        return found[id(payload)]

    entries: dict[ast.AST, tuple[str, Payload]] = {}  # function run in a worker -> its name, how it gets there
    for payload in payloads:
        for function, label in functions(payload):
            entries.setdefault(function, (label, payload))
    if not entries:
        return
    # Every function that may run in a worker: a global it assigns is set up by the worker itself.
    all_callables: list[ast.AST] = []
    for payload in ctx.model.payloads:
        if payload.arg.kind == "callable":
            all_callables.extend(f for f, _ in functions(payload))
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
                # (the worker imports this module, as `__mp_main__` when it is the script, and runs no more of it
                # than its import does)
                ctx.emit(rules.WSP107, name, name=name.id, worker=label, where=place, line=ctx.line_ref(where.line),
                         imported="this module", seen=seen)
    ctx.worker = None


def worker_functions(ctx: Context, payload: Payload) -> list[tuple[ast.AST, str]]:
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
            return [(info.methods[m], f"`{info.node.name}.{m}`") for m in WORKER_METHODS if m in info.methods]
        return _held_functions(ctx, payload)
    return []


def _held_functions(ctx: Context, payload: Payload) -> list[tuple[ast.AST, str]]:
    """The functions of this module a payload made by a call holds, as the taint analysis sees it: what a
    library object keeps (``ds.transform(fn)`` of a Gluon dataset, ``Subset(Frames(), rows)``), a function or
    the worker methods of an instance."""
    engine = ctx.engine
    if engine is None:
        return []
    out: list[tuple[ast.AST, str]] = []
    for obj in sent_objects(engine.eval(payload.expr, engine.main, payload.site.scope), 0):
        if obj.unit != engine.main.path:
            continue
        scope = ctx.index.scope_of.get(obj.node)
        if obj.kind in (FUNC, BOUND) and scope is not None and scope.parent is not None \
                and scope.parent.kind in ("module", "class"):
            out.append((obj.node, f"`{obj.node.name}`"))
        elif obj.kind == INST and obj.node in ctx.index.classes:
            info = ctx.index.classes[obj.node]
            out += [(info.methods[m], f"`{info.node.name}.{m}`") for m in WORKER_METHODS if m in info.methods]
    return list(dict.fromkeys(out))


def sent_objects(value: frozenset, depth: int) -> Iterator[Obj]:
    """The objects of a sink's value and those they hold (``Subset(ds)``, a partial's function), bounded."""
    for obj in value:
        yield obj
        if depth < _MAX_PART_DEPTH:
            for _, part in obj.parts:
                if isinstance(part, frozenset):
                    yield from sent_objects(part, depth + 1)


def _global_reads(ctx: Context, function: ast.AST, scope: Scope) -> Iterator[ast.Name]:
    """First read of each module-level name in a function's own body (nested defs are separate functions)."""
    nodes, stack = [], list(function.body)
    while stack:
        node = stack.pop()
        if not isinstance(node, (*FUNCTION_NODES, ast.ClassDef)):
            nodes.append(node)
            stack.extend(ast.iter_child_nodes(node))
    # Names a comprehension or lambda of the body binds (`x for x in rows`, `lambda item: ...`) are theirs,
    # not globals; counting every such name as local only makes the check quieter.
    inner = {n.id for n in nodes if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    inner |= {n.arg for n in nodes if isinstance(n, ast.arg)}
    seen: set[str] = set()
    loads = [node for node in nodes if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)]
    for node in sorted(loads, key=lambda n: (n.lineno, n.col_offset)):  # (the first in the source, at any depth)
        if node.id not in seen:
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
    """A loader iterated again and again: by a loop of a function of this module (the iteration there, or in a
    function it calls with the loader, of this module or another: ``train_one_epoch(model, loader)`` in the
    epoch loop), or by a loop of the function that iterates it (``while True: for batch in dl: yield batch``);
    and a loader this module builds that a loop of a module importing it iterates so (a ``get_loader()``
    helper called by a training script).  The starts come from the taint analysis's summaries, which follow the
    loader through calls and returns."""
    engine = ctx.engine
    main = engine.main
    parents: dict[ast.AST, dict[ast.AST, ast.AST]] = {}
    sites = dict(ctx.index.calls)
    reported: set[ast.AST] = set()  # (the loaders of this module reported: once each, at the first loop)
    loaders = _loader_calls(main, engine.registry)
    for function in _looking_functions(main, loaders):
        for start in engine.summary(function, main).starts:
            found = _restarted(ctx, main, function, start, sites, parents)
            if found is None:
                continue
            anchor, where = found
            worker = start.worker
            own = worker.unit == main.path and worker.unit is not None
            if own:
                # (on the loader's call, where `persistent_workers=True` goes and a `# noqa` says "this one may
                # restart": one finding per loader, however many loops iterate it)
                if worker.node in reported:
                    continue
                reported.add(worker.node)
                anchor = worker.node
            _emit(ctx, start, anchor, where, own)
    if main.path is None or not loaders.keys() - reported:
        return
    # (the importer's check reports the loop where it reaches the loader; this one, the loader's call, where the
    # fix goes and where the held-out audit labels it)
    for importer in engine.importers(main):
        if importer.notebook:
            continue  # (a notebook's lines have no name in another file's message; its kernel is not re-imported)
        for function in _looking_functions(importer, _loader_calls(importer, engine.registry)):
            for start in engine.summary(function, importer).starts:
                worker = start.worker
                if worker is None or worker.unit != main.path or worker.node in reported:
                    continue
                found = _restarted(ctx, importer, function, start, sites, parents)
                if found is not None:
                    reported.add(worker.node)
                    _emit(ctx, start, worker.node, found[1], True)


def _restarted(ctx: Context, unit, function: ast.AST, start, sites: dict, parents: dict
               ) -> Optional[tuple[ast.AST, str]]:
    """For a worker start of *function*'s summary (*function* of *unit*: this module or one importing it), when it
    is a loader without persistent workers that a loop iterates again and again: where this module's loop reaches
    it (the iteration, or the call in the loop that leads to it) and how the message names the loop."""
    engine = ctx.engine
    worker = start.worker
    if worker is None or worker.data != _DATALOADER or not engine.active(start.api, start.count, start.via):
        return None
    if not _not_persistent(ctx, worker, sites):
        return None
    first = start.hops[0] if start.hops else None
    anchor, site = (first.call, first.site) if first is not None else (start.node, start.site)
    if site is None:
        return None
    # (a loop at import time is WSP101's too: under spawn it never gets to a second epoch, and once it is
    # guarded, as WSP101's fix does, every epoch starts the workers again)
    loop = _repeating_loop(engine, parents, function, unit, anchor, site, start, first is None)
    where = elsewhere(ctx, unit.path, loop.lineno) if loop is not None else None
    if loop is None and first is not None:
        loop = _loop_of_iteration(engine, parents, start)
        where = elsewhere(ctx, start.unit, loop.lineno) if loop is not None else None
    return (anchor, where) if where is not None else None


def _emit(ctx: Context, start, anchor: ast.AST, where: str, own: bool) -> None:
    ctx.worker = (start.api, start.method, False)
    ctx.emit(rules.WSP902, anchor, line_only=isinstance(anchor, ast.stmt), line=where,
             fix_hint={"loader": span(start.worker.node)} if own else None)
    ctx.worker = None


def _loader_calls(unit, registry) -> dict[ast.Call, Scope]:
    """The ``DataLoader(...)`` calls of *unit*, with the scope of each."""
    by_name = registry.by_name
    return {call: site.scope for call, site in unit.index.calls
            if (api := by_name.get(unit.resolver.qualname(call.func, site.scope) or "")) is not None
            and api.key == _DATALOADER}


def _looking_functions(unit, loaders: dict[ast.Call, Scope]) -> Iterator[ast.AST]:
    """The body and functions of *unit* that may iterate a loader repeatedly: those with a loop, or that
    construct a ``DataLoader`` (*loaders*: its calls), and may hand it to a function that loops over it."""
    index = unit.index
    looking = set()
    for node, scope in index.scope_of.items():
        if node is index.tree or scope.kind == "function":
            if any(isinstance(inner, _LOOPS) for inner in _own_nodes(node)):
                looking.add(node)
    for scope in loaders.values():
        owner = scope.function_scope()
        looking.add(owner.node if owner is not None else index.tree)
    yield from (node for node in index.scope_of if node in looking)


def _own_nodes(root: ast.AST) -> Iterator[ast.AST]:
    """The nodes under *root* (a loop's target and test as well as its body), not those inside the functions,
    classes and lambdas defined there: a loop's own target rebinds what it names on every pass."""
    stack = list(ast.iter_child_nodes(root))
    while stack:
        node = stack.pop()
        if isinstance(node, (*FUNCTION_NODES, ast.ClassDef, ast.Lambda)):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _not_persistent(ctx: Context, worker, sites: dict) -> bool:
    """Whether the loader's call says its workers do not persist: no ``persistent_workers`` (nor ``**kwargs``,
    nor a tenth positional argument, that could give it), or ``persistent_workers=False``.  A call of this module
    is read with its ``**loader_args`` dict."""
    call = worker.node
    site = sites.get(call) if worker.unit == ctx.engine.main.path else None
    if site is not None:
        given, expr = ctx.values.argument(call, Arg("persistent_workers", 9), site.scope)
        return given is not UNKNOWN and (expr is None or ctx.values.fold(expr, site.scope) is False)
    if not isinstance(call, ast.Call) or len(call.args) > 9 or any(isinstance(a, ast.Starred) for a in call.args):
        return False
    if any(k.arg is None for k in call.keywords):
        return False
    if not any(k.arg == "persistent_workers" for k in call.keywords):
        return True
    value = worker.part("kw:persistent_workers")
    return len(value) == 1 and next(iter(value)).kind == CONST and const_value(next(iter(value))) is False


def _repeating_loop(engine, parents: dict, function: ast.AST, unit, anchor: ast.AST, site, start,
                    direct: bool) -> Optional[ast.stmt]:
    """The loop of *function* around *anchor* (the iteration, or the call that leads to it) in whose every pass
    the same loader is iterated: the expression that carries it there is a name (or ``self.loader``) the loop
    does not assign, given to the call or a global of the module that the called function iterates
    (:func:`_global_carrier`)."""
    worker = start.worker
    if function not in parents:
        parents[function] = _parent_map(function)
    loop = _enclosing_loop(parents[function], anchor)
    if loop is None:
        return None
    if direct:
        iterated = _iterated(anchor)
        carriers = [_unwrap(unit.resolver, iterated, site.scope)] if iterated is not None else []
    else:
        carriers = [a for a in (*anchor.args, *(k.value for k in anchor.keywords))
                    if worker in engine.eval(a, unit, site.scope)] or _global_carrier(unit, start, function)
    if not carriers or not all(_stable(carrier, loop) for carrier in carriers):
        return None
    return loop


def _global_carrier(unit, start, function: ast.AST) -> list[ast.Name]:
    """The global of this module that a function of it iterates (``for batch in trainloader:`` in ``train()``,
    called once per epoch by a loop of *function*), when no other function of the module assigns it (``global
    trainloader``; *function*'s own assignments inside the loop are :func:`_stable`'s to find): then each call
    iterates the same loader.  Empty otherwise."""
    if start.unit != unit.path or start.site is None:
        return []
    iterated = _iterated(start.node)
    name = _unwrap(unit.resolver, iterated, start.site.scope) if iterated is not None else None
    if not isinstance(name, ast.Name) or not _is_global(name.id, start.site.scope):
        return []
    if any(name.id in scope.globals_ for node, scope in unit.index.scope_of.items() if node is not function):
        return []
    return [name]


def _loop_of_iteration(engine, parents: dict, start) -> Optional[ast.stmt]:
    """The loop around an iteration made by a function the module calls (``while True: for batch in dl:``),
    when what it iterates is one of that function's parameters, which the loop does not assign."""
    owner = start.site.scope.function_scope()
    iterable = _iterated(start.node)
    if owner is None or owner.kind != "function" or not isinstance(iterable, ast.Name):
        return None
    arguments = owner.node.args
    if iterable.id not in {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}:
        return None
    if owner.node not in parents:
        parents[owner.node] = _parent_map(owner.node)
    loop = _enclosing_loop(parents[owner.node], start.node)
    return loop if loop is not None and _stable(iterable, loop) else None


def _iterated(report: ast.AST) -> Optional[ast.expr]:
    """What an iteration found by the index iterates: a ``for``'s iterable; a comprehension's is the node itself."""
    if isinstance(report, (ast.For, ast.AsyncFor)):
        return report.iter
    return report if isinstance(report, ast.expr) and not isinstance(report, ast.Call) else None


def _stable(carrier: ast.expr, loop: ast.stmt) -> bool:
    """Whether *carrier* (``loader``, ``self.loader``) names the same object in every pass of *loop*: nothing
    in the loop assigns the name or the attribute."""
    path = dotted(carrier)
    if path is None:
        return False
    for node in _own_nodes(loop):
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            assigned = dotted(node)
            if assigned is not None and (path == assigned or path.startswith(assigned + ".")):
                return False
        elif isinstance(node, ast.NamedExpr) and node.target.id == path.split(".", 1)[0]:
            return False
    return True


def elsewhere(ctx: Context, path: Optional[str], line: int) -> str:
    """How a message names a line of another module (or of this one)."""
    if path is None or path == ctx.engine.main.path:
        return ctx.line_ref(line)
    return f"{relative_path(ctx, path)}:{line}"


def relative_path(ctx: Context, path: str) -> str:
    """How a message names another module's file: relative to the checked module's folder."""
    here = os.path.dirname(ctx.engine.main.path) if ctx.engine.main.path else os.getcwd()
    return os.path.relpath(path, here)


def _unwrap(resolver, iterable: ast.expr, scope: Scope) -> ast.expr:
    for _ in range(MAX_DEPTH):
        if not (isinstance(iterable, ast.Call) and iterable.args):
            break
        name = (resolver.qualname(iterable.func, scope) or "").replace("builtins.", "").rsplit(".", 1)[-1]
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
