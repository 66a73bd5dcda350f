"""Where a module uses worker processes: the calls that start them and the values that travel to them.

Built on the index, the resolver and the registry; every check family reads
the :class:`WorkerModel` instead of looking for APIs itself.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterator, Optional

from ..spawn_apis import ABSENT, Arg, Registry, SpawnAPI
from .index import FUNCTION_NODES, ClassInfo, ModuleIndex, Scope, Site
from .names import Resolver
from .values import MAYBE, NONE, UNKNOWN, Values

_ITERATING_BUILTINS = frozenset({"iter", "list", "next", "tuple", "enumerate", "sorted", "zip", "set", "sum", "any", "all"})
_ITER_WRAPPERS = frozenset({"enumerate", "zip", "iter", "tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "reversed"})


@dataclass(frozen=True, eq=False)
class StartEvent:
    """An operation that starts worker processes."""

    api: SpawnAPI
    node: ast.AST  # what to report
    site: Site


@dataclass(frozen=True, eq=False)
class Payload:
    """A value that is pickled and sent to worker processes."""

    api: SpawnAPI
    expr: ast.expr
    arg: Arg
    site: Site
    #: sent with a task to a running worker (``pool.map`` …), not when the worker is spawned
    task: bool = False


@dataclass(eq=False)
class WorkerModel:
    starts: list[StartEvent] = field(default_factory=list)
    payloads: list[Payload] = field(default_factory=list)
    #: every call of a worker API that provably starts no worker (num_workers=0 …)
    idle_calls: list[ast.Call] = field(default_factory=list)


class WorkerFinder:
    def __init__(self, index: ModuleIndex, resolver: Resolver, values: Values, registry: Registry,
                 assume_workers: bool = True) -> None:
        self.index = index
        self.resolver = resolver
        self.values = values
        self.registry = registry
        self.assume_workers = assume_workers

    def _active(self, api: SpawnAPI, call: ast.Call, scope: Scope) -> bool:
        state = self.values.workers(api, call, scope)
        if state == NONE:
            return False
        return state != MAYBE or self.assume_workers

    def find(self) -> WorkerModel:
        model = WorkerModel()
        for call, site in self.index.calls:
            self._call(call, site, model)
        for iterable, report, site in self.index.iterations:
            self._iteration(iterable, report, site, model)
        return model

    def api_object(self, expr: ast.AST, scope: Scope, depth: int = 0) -> Optional[tuple[SpawnAPI, ast.Call, Scope]]:
        """The worker API whose constructor produced this value (``loader`` → its ``DataLoader(...)``).

        Follows simple assignments, and one or two levels of factory functions of this module
        (``loader = make_loader()`` where ``make_loader`` returns a ``DataLoader``).
        """
        expr, scope = self.resolver.value_of(expr, scope)
        if not isinstance(expr, ast.Call):
            return None
        name = self.resolver.qualname(expr.func, scope)
        api = self.registry.by_name.get(name) if name else None
        if api is not None and (api.kind == "object" or api.method_payload):
            return api, expr, scope
        if api is None and depth < 2:
            binding = self.resolver.definition(expr.func, scope)
            if binding is not None and binding.kind == "def":
                inner = self.index.scope_of.get(binding.node)
                for returned in function_returns(binding.node):
                    found = self.api_object(returned, inner, depth + 1)
                    if found is not None:
                        return found
        return None

    def _call(self, call: ast.Call, site: Site, model: WorkerModel) -> None:
        scope = site.scope
        name = self.resolver.qualname(call.func, scope)
        api = self.registry.by_name.get(name) if name else None
        if api is not None:
            if not self._active(api, call, scope):
                model.idle_calls.append(call)
                return
            if api.kind == "call":
                model.starts.append(StartEvent(api, call, site))
            elif _never_used(call, site):
                return  # an object nobody keeps is never started, so nothing it holds is pickled
            model.payloads.extend(self._payloads(api, api.payload, call, site))
            return
        if isinstance(call.func, ast.Attribute):
            method = call.func.attr
            for candidate in self.registry.by_method.get(method, ()):
                if any(k.arg == candidate.required_keyword for k in call.keywords):
                    if self._active(candidate, call, scope):
                        model.starts.append(StartEvent(candidate, call, site))
                        model.payloads.extend(self._payloads(candidate, candidate.payload, call, site))
                    else:
                        model.idle_calls.append(call)
                    return
            found = self.api_object(call.func.value, scope)
            if found is not None:
                obj_api, ctor, ctor_scope = found
                if not self._active(obj_api, ctor, ctor_scope):
                    return
                if method in obj_api.start_methods:
                    model.starts.append(StartEvent(obj_api, call, site))
                if method in obj_api.method_payload:
                    model.payloads.extend(self._payloads(obj_api, obj_api.method_payload[method], call, site,
                                                         task=True))
            return
        if name in {f"builtins.{b}" for b in _ITERATING_BUILTINS}:
            for arg in call.args:
                self._iteration(arg, call, site, model)

    def _iteration(self, iterable: ast.expr, report: ast.AST, site: Site, model: WorkerModel) -> None:
        # `enumerate(loader)`, `tqdm(loader)`: the wrapped loader is what gets iterated.
        if isinstance(iterable, ast.Call) and iterable.args:
            wrapper = self.resolver.qualname(iterable.func, site.scope) or ""
            if wrapper.replace("builtins.", "") in _ITER_WRAPPERS or wrapper.endswith(".tqdm"):
                for arg in iterable.args:
                    self._iteration(arg, report, site, model)
                return
        found = self.api_object(iterable, site.scope)
        if found is not None:
            api, ctor, ctor_scope = found
            if "__iter__" in api.start_methods and self._active(api, ctor, ctor_scope):
                model.starts.append(StartEvent(api, report, site))

    def _payloads(self, api: SpawnAPI, args: tuple[Arg, ...], call: ast.Call, site: Site,
                  task: bool = False) -> Iterator[Payload]:
        for arg in args:
            if arg.rest and arg.position is not None:
                for value in call.args[arg.position:]:
                    if not isinstance(value, ast.Starred):
                        yield Payload(api, value, Arg(None, None, kind="object", rest=True), site, task)
                continue
            found, expr = self.values.argument(call, arg, site.scope)
            if found is ABSENT or found is UNKNOWN or expr is None:
                continue
            yield Payload(api, expr, arg, site, task)


# Names through which a function can read its locals without naming them.
_DYNAMIC_LOCALS = frozenset({"locals", "vars", "eval", "exec"})


def _never_used(call: ast.Call, site: Site) -> bool:
    """The object this call builds is dropped: a bare expression statement, or a function's local variable
    that nothing reads (``proc = Process(target=...)`` and no ``proc.start()``).  A module-level name may
    be used by an importer, so it always counts as used."""
    stmt = site.stmt
    if isinstance(stmt, ast.Expr):
        return stmt.value is call
    if not (isinstance(stmt, ast.Assign) and stmt.value is call and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)):
        return False
    scope, name = site.scope, stmt.targets[0].id
    if scope.kind != "function" or name in scope.globals_:
        return False
    # Depth first in source order from the assignment on (a read usually follows within a few statements;
    # a breadth-first walk of the whole function found it last), then what ends before it (a loop may read
    # it first).  Nested functions included: a closure may read it.
    stack, before = [scope.node], []
    for pending in (stack, before):
        while pending:
            node = pending.pop()
            if isinstance(node, ast.Name):
                if node.id in _DYNAMIC_LOCALS or (node.id == name and not isinstance(node.ctx, ast.Store)):
                    return False
                continue
            if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
                return False
            children = list(ast.iter_child_nodes(node))
            for child in reversed(children):
                if pending is stack and getattr(child, "end_lineno", stmt.lineno) < stmt.lineno:
                    before.append(child)
                else:
                    pending.append(child)
    return True


def resolve_callee(call: ast.Call, site: Site, index: ModuleIndex, resolver: Resolver) -> Optional[ast.AST]:
    """The function (def node) of this module a call runs, when it can be told; None otherwise."""
    func = call.func
    scope = site.scope
    if isinstance(func, ast.Name):
        binding = resolver.definition(func, scope)
        if binding is None:
            return None
        if binding.kind == "def":
            return binding.node
        info = index.classes.get(binding.node)
        return info.methods.get("__init__") if info else None
    if isinstance(func, ast.Attribute):
        info = instance_class(func.value, scope, index, resolver)
        if info is not None:
            return info.methods.get(func.attr)
    return None


def instance_class(expr: ast.AST, scope: Scope, index: ModuleIndex, resolver: Resolver) -> Optional[ClassInfo]:
    """The class of this module that *expr* is an instance of (or names), if it can be told."""
    if isinstance(expr, ast.Name):
        function = scope.function_scope()
        # `self` inside a method: the enclosing class.
        if function is not None and isinstance(function.node, FUNCTION_NODES) and function.parent is not None \
                and function.parent.kind == "class":
            params = [*function.node.args.posonlyargs, *function.node.args.args]
            if params and params[0].arg == expr.id:
                return index.classes.get(function.parent.node)
        binding = resolver.definition(expr, scope)
        if binding is not None and binding.kind == "class":
            return index.classes.get(binding.node)
    value, value_scope = resolver.value_of(expr, scope)
    if isinstance(value, ast.Call) and value is not expr:
        binding = resolver.definition(value.func, value_scope)
        if binding is not None and binding.kind == "class":
            return index.classes.get(binding.node)
    elif isinstance(expr, ast.Call):
        binding = resolver.definition(expr.func, scope)
        if binding is not None and binding.kind == "class":
            return index.classes.get(binding.node)
    return None


def function_returns(function: ast.AST) -> list[ast.expr]:
    """Values of a function's own ``return`` statements (not those of nested defs)."""
    out, stack = [], list(getattr(function, "body", []))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return) and node.value is not None:
            out.append(node.value)
        elif not isinstance(node, (*FUNCTION_NODES, ast.ClassDef, ast.Lambda)):
            stack.extend(child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt))
    return out
