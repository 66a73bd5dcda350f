"""Pickled-value hazards (WSP2xx, WSP3xx, WSP901): what travels to workers, and whether it survives pickling.

Under spawn every callable and object handed to a worker is pickled.  The
standard pickler stores functions and classes *by reference* (module and
qualified name), so lambdas and anything defined inside a function cannot
travel (WSP201-WSP203), nor can objects that carry them (WSP204) or that
hold OS resources (WSP301, WSP302).  dill (``datasets``, ``multiprocess``)
ships lambdas and closures by value, so there only the portability note
WSP901 and the resources dill cannot re-create remain.
"""

from __future__ import annotations

import ast
from typing import Iterator, Optional

from ... import rules
from ...spawn_apis import (DILL, DROPS_ARGS_AT_START, EAGER_HANDLE_CLASSES, GENERATOR, MP_SYNC_PRIMITIVES, PICKLE,
                           UNPICKLABLE_CALLS, Unpicklable)
from ..context import Context
from ..index import ClassInfo, Scope
from ..names import MAX_DEPTH, is_local_definition
from ..workers import Payload, function_returns

_STATE_HOOKS = frozenset({"__getstate__", "__reduce__", "__reduce_ex__"})
_TORCH_DATASET_BASES = frozenset({
    "torch.utils.data.Dataset", "torch.utils.data.IterableDataset", "torch.utils.data.dataset.Dataset",
    "torch.utils.data.dataset.IterableDataset",
})
_TRANSFORM_SETTERS = frozenset({"with_transform", "set_transform"})


def check(ctx: Context) -> None:
    reached: set[ast.ClassDef] = set()
    for payload in ctx.model.payloads:
        if payload.api.pickler == PICKLE:
            _pickle_payload(ctx, payload, reached)
        elif payload.api.pickler == DILL:
            _dill_payload(ctx, payload)
    _library_datasets(ctx, reached)


def _role(payload: Payload) -> str:
    return payload.arg.describe() if (payload.arg.keyword or payload.arg.position is not None) else "an argument"


# -- the standard pickler ----------------------------------------------------------------------------
def _pickle_payload(ctx: Context, payload: Payload, reached: set) -> None:
    api = payload.api.label
    role = _role(payload)
    report = payload.expr
    scope = payload.site.scope
    if payload.arg.kind == "callable":
        _callable(ctx, payload.expr, scope, report, role, api, reached, in_partial=False, depth=0)
    elif payload.arg.kind in ("args", "kwargs") or payload.arg.rest:
        literal = isinstance(payload.expr, (ast.Tuple, ast.List, ast.Set, ast.Dict))
        items, items_scope = _items(ctx, payload.expr, scope)
        if payload.arg.rest:
            items, items_scope, literal = [payload.expr], scope, True
        for item in items:
            if _sync_primitive(ctx, payload, item, items_scope, item if literal else payload.expr):
                continue
            _object(ctx, item, items_scope, item if literal else payload.expr, role, api, reached, 0)
    else:
        _object(ctx, payload.expr, scope, report, role, api, reached, 0)


def _sync_primitive(ctx: Context, payload: Payload, item: ast.expr, scope: Scope, report: ast.AST) -> bool:
    """Report (WSP302) a multiprocessing Lock/Semaphore sent with a task, or created inline in ``Process(args=...)``."""
    value, value_scope = ctx.resolver.value_of(item, scope)
    if not isinstance(value, ast.Call):
        return False
    name = ctx.resolver.qualname(value.func, value_scope)
    if name not in MP_SYNC_PRIMITIVES:
        return False
    short = f"a `multiprocessing.{name.rsplit('.', 1)[-1]}`"
    if payload.task:
        ctx.emit(rules.WSP302, report, role=_role(payload), api=payload.api.label,
                 what=f"{short} (it can reach a worker only by inheritance: pass it in `initargs=`, or use a "
                      f"`Manager()` lock)")
    elif value is item and payload.api.key in DROPS_ARGS_AT_START:
        ctx.emit(rules.WSP302, report, role=_role(payload), api=payload.api.label,
                 what=f"{short} created inline (nothing keeps it alive, so it is destroyed before the spawned "
                      f"child opens it: keep it in a variable)")
    return True


def _items(ctx: Context, expr: ast.expr, scope: Scope) -> tuple[list[ast.expr], Scope]:
    """The elements of a tuple/list/dict (or comprehension) value, and the scope they are evaluated in."""
    value, value_scope = ctx.resolver.value_of(expr, scope)
    if isinstance(value, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        return [value.elt], value_scope
    if isinstance(value, (ast.Tuple, ast.List, ast.Set)):
        return [e for e in value.elts if not isinstance(e, ast.Starred)], value_scope
    if isinstance(value, ast.Dict):
        return [v for v in value.values], value_scope
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict":
        return [k.value for k in value.keywords], value_scope
    return [], value_scope


def _is_partial(ctx: Context, call: ast.AST, scope: Scope) -> bool:
    return isinstance(call, ast.Call) and ctx.resolver.qualname(call.func, scope) == "functools.partial"


def _callable(ctx: Context, expr: ast.expr, scope: Scope, report: ast.AST, role: str, api: str, reached: set,
              in_partial: bool, depth: int) -> None:
    if depth > MAX_DEPTH:
        return
    value, value_scope = ctx.resolver.value_of(expr, scope)
    if isinstance(value, ast.Lambda):
        rule = rules.WSP202 if in_partial else rules.WSP201
        ctx.emit(rule, report, role=role, api=api, what="a lambda inside `functools.partial`",
                 fix_hint={"lambda": _span(value)})
        return
    if _is_partial(ctx, value, value_scope):
        if value.args:
            _callable(ctx, value.args[0], value_scope, report, role, api, reached, True, depth + 1)
        for extra in [*value.args[1:], *(k.value for k in value.keywords)]:
            _object(ctx, extra, value_scope, report, role, api, reached, depth + 1)
        return
    if isinstance(value, ast.Name):
        binding = ctx.resolver.definition(value, value_scope)
        if binding is not None and is_local_definition(binding):
            if binding.kind == "def":
                ctx.emit(rules.WSP202, report, role=role, api=api, what=f"`{value.id}`",
                         fix_hint={"def": _span(binding.node)})
            else:
                ctx.emit(rules.WSP203, report, role=role, api=api, cls=value.id, fix_hint={"def": _span(binding.node)})
        return
    if isinstance(value, ast.Attribute):
        # A bound method pickles its instance.
        info = _instance_class(ctx, value.value, value_scope)
        if info is not None:
            _class_instance(ctx, info, report, role, api, reached)


def _object(ctx: Context, expr: ast.expr, scope: Scope, report: ast.AST, role: str, api: str, reached: set,
            depth: int) -> None:
    if depth > MAX_DEPTH:
        return
    value, value_scope = ctx.resolver.value_of(expr, scope)
    if isinstance(value, ast.Lambda):
        ctx.emit(rules.WSP201, report, role=role, api=api, fix_hint={"lambda": _span(value)})
        return
    unpicklable = _unpicklable(ctx, value, value_scope)
    if unpicklable is not None:
        ctx.emit(rules.WSP302, report, role=role, api=api, what=unpicklable.what)
        return
    if isinstance(value, ast.Name):
        binding = ctx.resolver.definition(value, value_scope)
        if binding is not None and binding.kind == "def" and is_local_definition(binding):
            ctx.emit(rules.WSP202, report, role=role, api=api, what=f"`{value.id}`",
                     fix_hint={"def": _span(binding.node)})
        return
    if _is_partial(ctx, value, value_scope):
        _callable(ctx, value, value_scope, report, role, api, reached, False, depth + 1)
        return
    if isinstance(value, ast.Call):
        # `ds.with_transform(fn)` stores fn on the dataset that goes to the workers.
        if isinstance(value.func, ast.Attribute) and value.func.attr in _TRANSFORM_SETTERS:
            for arg in [*value.args[:1], *(k.value for k in value.keywords if k.arg == "transform")]:
                _callable(ctx, arg, value_scope, arg, "the dataset's transform", api, reached, False, depth + 1)
            _object(ctx, value.func.value, value_scope, report, role, api, reached, depth + 1)
            return
        name = ctx.resolver.qualname(value.func, value_scope)
        if name in EAGER_HANDLE_CLASSES:
            ctx.emit(rules.WSP302, report, role=role, api=api,
                     what=f"a `{name.rsplit('.', 1)[-1]}` dataset, which holds " + EAGER_HANDLE_CLASSES[name])
            return
        binding = ctx.resolver.definition(value.func, value_scope)
        if binding is not None and binding.kind == "def" and depth < 3:
            # A factory: what its `return` statements build travels too.
            function_scope = ctx.index.scope_of.get(binding.node)
            for returned in function_returns(binding.node):
                _object(ctx, returned, function_scope, report, role, api, reached, depth + 1)
        if binding is not None and binding.kind == "class":
            if is_local_definition(binding):
                ctx.emit(rules.WSP203, report, role=role, api=api, cls=binding.name, fix_hint={"def": _span(binding.node)})
                return
            info = ctx.index.classes.get(binding.node)
            if info is not None and not _has_state_hook(ctx, info):
                # Callables given to the constructor usually end up as attributes.
                for arg in [*value.args, *(k.value for k in value.keywords)]:
                    _stored_callable(ctx, arg, value_scope, f"`{info.node.name}`", api)
                _class_instance(ctx, info, report, role, api, reached)
        if isinstance(expr, ast.Name):
            _in_place_transforms(ctx, expr, scope, api)


def _in_place_transforms(ctx: Context, name: ast.Name, scope: Scope, api: str) -> None:
    """`ds.set_transform(fn)` on the same variable, in the same scope."""
    for call, site in ctx.index.calls:
        func = call.func
        if (isinstance(func, ast.Attribute) and func.attr == "set_transform" and isinstance(func.value, ast.Name)
                and func.value.id == name.id and site.scope is scope and call.args):
            _callable(ctx, call.args[0], scope, call.args[0], "the dataset's transform", api, set(), False, 1)


def _stored_callable(ctx: Context, expr: ast.expr, scope: Scope, owner: str, api: str) -> None:
    """Report (WSP204) lambdas and local functions inside a value that becomes an attribute."""
    for node in _shallow_walk(expr):
        if isinstance(node, ast.Lambda):
            ctx.emit(rules.WSP204, node, what="a lambda", owner=owner.strip("`"), api=api,
                     fix_hint={"lambda": _span(node)})
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            binding = ctx.resolver.definition(node, scope)
            if binding is not None and binding.kind == "def" and is_local_definition(binding):
                ctx.emit(rules.WSP204, node, what=f"local function `{node.id}`", owner=owner.strip("`"), api=api,
                         fix_hint={"def": _span(binding.node)})
            elif binding is None:
                value, _ = ctx.resolver.value_of(node, scope)
                if isinstance(value, ast.Lambda):
                    ctx.emit(rules.WSP204, node, what="a lambda", owner=owner.strip("`"), api=api,
                             fix_hint={"lambda": _span(value)})


def _shallow_walk(expr: ast.AST) -> Iterator[ast.AST]:
    """Nodes of an expression, not entering lambda bodies."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.Lambda):
            continue
        stack.extend(ast.iter_child_nodes(node))


def _instance_class(ctx: Context, expr: ast.expr, scope: Scope) -> Optional[ClassInfo]:
    from ..workers import instance_class

    return instance_class(expr, scope, ctx.index, ctx.resolver)


def _class_chain(ctx: Context, info: ClassInfo) -> list[ClassInfo]:
    """The class and its bases defined in this module, most derived first."""
    chain, todo, seen = [], [info], set()
    while todo:
        current = todo.pop(0)
        if current.node in seen:
            continue
        seen.add(current.node)
        chain.append(current)
        for base in current.node.bases:
            binding = ctx.resolver.definition(base, current.scope) if isinstance(base, ast.Name) else None
            if binding is not None and binding.kind == "class" and binding.node in ctx.index.classes:
                todo.append(ctx.index.classes[binding.node])
    return chain


def _has_state_hook(ctx: Context, info: ClassInfo) -> bool:
    return any(_STATE_HOOKS & set(c.methods) for c in _class_chain(ctx, info))


def _class_instance(ctx: Context, info: ClassInfo, report: ast.AST, role: str, api: str, reached: set) -> None:
    """Report (WSP301/WSP204) what ``__init__`` stores on an instance that travels to workers."""
    if info.node in reached:
        return
    reached.add(info.node)
    if _has_state_hook(ctx, info):
        return
    _init_attributes(ctx, info, f" by {api}")


def _init_attributes(ctx: Context, info: ClassInfo, via: str) -> None:
    owner = info.node.name
    for current in _class_chain(ctx, info):
        for attr, value, stmt, method_scope in current.self_assignments.get("__init__", ()):
            if method_scope is None:
                continue
            unpicklable = _unpicklable(ctx, value, method_scope) or _npz_archive(ctx, current, attr, value, method_scope)
            if unpicklable is not None:
                ctx.emit(rules.WSP301, stmt, line_only=True, attr=attr, what=unpicklable.what, owner=owner, via=via)
                continue
            for node in _shallow_walk(value):
                if isinstance(node, ast.Lambda):
                    ctx.emit(rules.WSP204, node, what="a lambda", owner=owner,
                             api=via.replace(" by ", "", 1) or "workers", fix_hint={"lambda": _span(node)})
                elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                    binding = ctx.resolver.definition(node, method_scope)
                    if binding is not None and binding.kind == "def" and is_local_definition(binding):
                        ctx.emit(rules.WSP204, node, what=f"local function `{node.id}`", owner=owner,
                                 api=via.replace(" by ", "", 1) or "workers", fix_hint={"def": _span(binding.node)})


def _npz_archive(ctx: Context, info: ClassInfo, attr: str, value: ast.expr, scope: Scope) -> Optional[Unpicklable]:
    """``self.a = np.load(path)`` where the class reads ``self.a["key"]``: an NpzFile holding an open zip."""
    if not (isinstance(value, ast.Call) and ctx.resolver.qualname(value.func, scope) == "numpy.load"):
        return None
    for method in info.methods.values():
        for node in ast.walk(method):
            if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == attr
                    and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
                return Unpicklable("an open `.npz` archive (`np.load` of an `.npz` keeps the zip file open)", False)
    return None


def _unpicklable(ctx: Context, expr: Optional[ast.AST], scope: Scope) -> Optional[Unpicklable]:
    value, value_scope = ctx.resolver.value_of(expr, scope) if expr is not None else (None, scope)
    if isinstance(value, ast.GeneratorExp):
        return GENERATOR
    if not isinstance(value, ast.Call):
        return None
    name = ctx.resolver.qualname(value.func, value_scope)
    if name in UNPICKLABLE_CALLS:
        return UNPICKLABLE_CALLS[name]
    if name == "numpy.load" and value.args and isinstance(value.args[0], ast.Constant) \
            and str(value.args[0].value).endswith(".npz"):
        return Unpicklable("an open `.npz` archive (`np.load` keeps the zip file open)", False)
    binding = ctx.resolver.definition(value.func, value_scope)
    if binding is not None and binding.kind == "def" and binding.node in ctx.index.generator_functions:
        return GENERATOR
    return None


# -- dill (datasets, multiprocess) --------------------------------------------------------------------
def _dill_payload(ctx: Context, payload: Payload) -> None:
    api = payload.api.label
    scope = payload.site.scope
    value, value_scope = ctx.resolver.value_of(payload.expr, scope)
    if payload.arg.kind == "callable":
        function_node = None
        if isinstance(value, ast.Lambda):
            ctx.emit(rules.WSP901, payload.expr, what="a lambda", api=api, fix_hint={"lambda": _span(value)})
            function_node = value
        elif isinstance(value, ast.Name):
            binding = ctx.resolver.definition(value, value_scope)
            if binding is not None and binding.kind == "def" and is_local_definition(binding):
                ctx.emit(rules.WSP901, payload.expr, what=f"local function `{value.id}`", api=api,
                         fix_hint={"def": _span(binding.node)})
                function_node = binding.node
        if function_node is not None:
            for binding in _free_names(ctx, function_node):
                found = _unpicklable(ctx, binding.value, binding.scope) if binding.value is not None else None
                if found is not None and not found.dill_ok:
                    ctx.emit(rules.WSP302, payload.expr, role=f"a value captured by {_role(payload)}", api=api,
                             what=f"`{binding.name}` ({found.what})")
    elif payload.arg.kind in ("args", "kwargs"):
        items, items_scope = _items(ctx, payload.expr, scope)
        for item in items:
            found = _unpicklable(ctx, item, items_scope)
            if found is not None and not found.dill_ok:
                ctx.emit(rules.WSP302, item, role=_role(payload), api=api, what=found.what)


def _free_names(ctx: Context, function: ast.AST) -> list:
    """Bindings in enclosing functions that a function reads (its closure)."""
    own = ctx.index.scope_of.get(function)
    if own is None:
        return []
    out, seen = [], set()
    roots = [function.body] if isinstance(function, ast.Lambda) else list(function.body)
    for root in roots:
        for node in ast.walk(root):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in seen:
                seen.add(node.id)
                binding = ctx.resolver.lookup(node.id, own)
                if binding is not None and binding.scope is not own and binding.scope.is_function:
                    out.append(binding)
    return out


# -- library datasets never instantiated here ---------------------------------------------------------
def _library_datasets(ctx: Context, reached: set) -> None:
    """A torch ``Dataset`` subclass defined but not instantiated in this module goes to a DataLoader elsewhere."""
    instantiated = set()
    for call, site in ctx.index.calls:
        binding = ctx.resolver.definition(call.func, site.scope) if isinstance(call.func, ast.Name) else None
        if binding is not None and binding.kind == "class":
            instantiated.add(binding.node)
    for node, info in ctx.index.classes.items():
        if node in reached or node in instantiated or info.scope.kind != "module":
            continue
        if not any((ctx.resolver.qualname(base, info.scope) or "") in _TORCH_DATASET_BASES for base in node.bases):
            continue
        if _has_state_hook(ctx, info):
            continue
        _init_attributes(ctx, info, " by a `DataLoader` with workers")


def _span(node: ast.AST) -> dict:
    return {"line": node.lineno, "col": node.col_offset, "end_line": node.end_lineno, "end_col": node.end_col_offset}
