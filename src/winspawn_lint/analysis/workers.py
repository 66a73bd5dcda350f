"""Where a module uses worker processes: the calls that start them and the values that travel to them.

Built on the index, the resolver and the registry; every check family reads
the :class:`WorkerModel` instead of looking for APIs itself.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Iterator, Optional

from ..records import Record
from ..spawn_apis import ABSENT, CONTEXT_FACTORIES, CONTEXT_KEYWORDS, ITERATING_CALLS, Arg, Registry, SpawnAPI
from .index import FUNCTION_NODES, ClassInfo, ModuleIndex, Scope, Site, is_super
from .names import Resolver
from .values import MAYBE, NONE, UNKNOWN, Values

if TYPE_CHECKING:
    from .flow import Flow

_ITERATING_BUILTINS = frozenset({"iter", "list", "next", "tuple", "enumerate", "sorted", "zip", "set", "sum", "any",
                                 "all"})
_START_METHODS = frozenset({"spawn", "forkserver", "fork"})
_ITER_WRAPPERS = frozenset({"enumerate", "zip", "iter", "tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "reversed"})


class StartEvent(Record):
    """An operation that starts worker processes."""

    __slots__ = ("api", "node", "site", "method")

    def __init__(self, api: SpawnAPI, node: ast.AST, site: Site, method: Optional[str] = None) -> None:
        self.api = api
        self.node = node  # what to report
        self.site = site
        #: the start method of an explicit context (``get_context("spawn").Pool``), None: the API's own
        self.method = method


class Payload(Record):
    """A value that is pickled and sent to worker processes."""

    __slots__ = ("api", "expr", "arg", "site", "task", "method")

    def __init__(self, api: SpawnAPI, expr: ast.expr, arg: Arg, site: Site, task: bool = False,
                 method: Optional[str] = None) -> None:
        self.api = api
        self.expr = expr
        self.arg = arg
        self.site = site
        #: sent with a task to a running worker (``pool.map`` …), not when the worker is spawned
        self.task = task
        self.method = method  # as for StartEvent

    @property
    def role(self) -> str:
        """How a message names this value: `` `collate_fn` ``, ``argument 1``, or ``an argument``."""
        return self.arg.describe() if (self.arg.keyword or self.arg.position is not None) else "an argument"


class WorkerModel(Record):
    __slots__ = ("starts", "payloads")

    def __init__(self, starts: Optional[list[StartEvent]] = None, payloads: Optional[list[Payload]] = None) -> None:
        self.starts = starts if starts is not None else []
        self.payloads = payloads if payloads is not None else []


class WorkerFinder:
    def __init__(self, index: ModuleIndex, resolver: Resolver, values: Values, registry: Registry,
                 assume_workers: bool = True, flow: Optional["Flow"] = None) -> None:
        self.index = index
        self.resolver = resolver
        self.values = values
        self.registry = registry
        self.assume_workers = assume_workers
        self.flow = flow
        self._object_methods = frozenset(method for api in registry.apis
                                         for method in (*api.start_methods, *api.method_payload))

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

        Follows simple assignments, one or two levels of factory functions of this module
        (``loader = make_loader()`` where ``make_loader`` returns a ``DataLoader``), and parameters back to
        the arguments of their function's calls in this module (``train(loader)``).
        """
        expr, scope = self.resolver.value_of(expr, scope)
        if isinstance(expr, ast.Name) and self.flow is not None and depth < 2:
            for argument, argument_scope in self.flow.arguments(expr, scope):
                found = self.api_object(argument, argument_scope, depth + 1)
                if found is not None:
                    return found
            return None
        if not isinstance(expr, ast.Call):
            return None
        name = self.resolver.qualname(expr.func, scope)
        api = self.registry.by_name.get(name) if name else None
        if api is not None and (api.kind == "object" or api.method_payload):
            return api, expr, scope
        if api is not None and api.returns in self.registry.by_key:
            return self.registry.by_key[api.returns], expr, scope
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
                return
            method = self.explicit_method(call, scope)
            if api.kind == "call":
                model.starts.append(StartEvent(api, call, site, method))
            elif _never_used(call, site):
                return  # an object nobody keeps is never started, so nothing it holds is pickled
            model.payloads.extend(self._payloads(api, api.payload, call, site, method=method))
            return
        if isinstance(call.func, ast.Attribute):
            method = call.func.attr
            if method == "__init__" and is_super(call.func.value):
                # `super().__init__(...)` in a subclass of a worker API builds that API's object.
                api = self._base_api(site)
                # `super().__init__(*args, **kwargs)` passes on what its callers give: an unresolved count there
                # says nothing about this class's use (most subclasses are built with the defaults).
                passes_through = any(isinstance(a, ast.Starred) for a in call.args) or any(
                    k.arg is None for k in call.keywords)
                if api is not None and api.kind == "object" and self._active(api, call, scope) and not (
                        passes_through and self.values.workers(api, call, scope) == MAYBE):
                    model.payloads.extend(self._payloads(api, api.payload, call, site))
                return
            for candidate in self.registry.by_method.get(method, ()):
                if self.values.passes_keyword(call, candidate.required_keyword, scope):
                    if self._active(candidate, call, scope):
                        model.starts.append(StartEvent(candidate, call, site))
                        model.payloads.extend(self._payloads(candidate, candidate.payload, call, site))
                    return
            if method not in self._object_methods:
                return  # no worker object has this method: what the receiver is does not matter
            found = self.api_object(call.func.value, scope)
            if found is not None:
                obj_api, ctor, ctor_scope = found
                if not self._active(obj_api, ctor, ctor_scope):
                    return
                explicit = self.explicit_method(ctor, ctor_scope)
                if method in obj_api.start_methods:
                    model.starts.append(StartEvent(obj_api, call, site, explicit))
                if method in obj_api.method_payload:
                    model.payloads.extend(self._payloads(obj_api, obj_api.method_payload[method], call, site,
                                                         task=True, method=explicit))
            return
        if name in {f"builtins.{b}" for b in _ITERATING_BUILTINS} or name in ITERATING_CALLS:
            for arg in call.args:
                self._iteration(arg, call, site, model)

    def _base_api(self, site: Site) -> Optional[SpawnAPI]:
        """The worker API a method's class derives from: directly, or through the project's modules."""
        function = site.scope.function_scope()
        owner = function.parent if function is not None else None
        if owner is None or owner.kind != "class":
            return None
        filename, project = self.resolver.filename, self.resolver.project
        for base in owner.node.bases:
            name = self.resolver.qualname(base, owner.parent or owner) or ""
            if name in self.registry.by_name:
                return self.registry.by_name[name]
            # Another module is parsed only for a base named like a worker API (`_BaseTrainer`, `MyDataLoader`).
            if filename and project is not None and isinstance(base, ast.Name) \
                    and base.id.endswith(self._object_api_words()):
                found = project.imported_base(filename, name, frozenset(self.registry.by_name))
                if found is not None:
                    return self.registry.by_name[found]
        return None

    def _object_api_words(self) -> tuple[str, ...]:
        """The last name parts of the object APIs (``Trainer``, ``DataLoader``)."""
        return tuple({name.rsplit(".", 1)[-1] for api in self.registry.apis if api.kind == "object"
                      for name in api.names})

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
                model.starts.append(StartEvent(api, report, site, self.explicit_method(ctor, ctor_scope)))

    def _payloads(self, api: SpawnAPI, args: tuple[Arg, ...], call: ast.Call, site: Site,
                  task: bool = False, method: Optional[str] = None) -> Iterator[Payload]:
        for arg in args:
            if arg.rest and arg.position is not None:
                for value in call.args[arg.position:]:
                    if not isinstance(value, ast.Starred):
                        yield Payload(api, value, Arg(None, None, kind="object", rest=True), site, task, method)
                continue
            found, expr = self.values.argument(call, arg, site.scope)
            if found is ABSENT or found is UNKNOWN or expr is None:
                continue
            yield Payload(api, expr, arg, site, task, method)

    def explicit_method(self, call: ast.Call, scope: Scope) -> Optional[str]:
        """The start method a call names itself: ``get_context("spawn").Pool(...)``, ``ctx.Process(...)`` with
        ``ctx = get_context("spawn")``, ``DataLoader(multiprocessing_context="spawn")``; None for the default."""
        contexts = [k.value for k in call.keywords if k.arg in CONTEXT_KEYWORDS]
        if isinstance(call.func, ast.Attribute):
            contexts.append(call.func.value)
        for expr in contexts:
            value, value_scope = self.resolver.value_of(expr, scope)
            if isinstance(value, ast.Call) and self.resolver.qualname(value.func, value_scope) in CONTEXT_FACTORIES:
                value = value.args[0] if value.args else next(
                    (k.value for k in value.keywords if k.arg == "method"), None)
            if isinstance(value, ast.Constant) and value.value in _START_METHODS:
                return value.value
        return None


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
