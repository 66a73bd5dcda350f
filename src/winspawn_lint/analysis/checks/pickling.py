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
from typing import Optional

from ... import rules
from ...rules import FixSafety
from ...spawn_apis import (CLASS_REPLACING_DECORATORS, DATASET_TRANSFORM_KEYWORDS, DILL, DROPS_ARGS_AT_START,
                           EAGER_HANDLE_CLASSES, GENERATOR, MODULE_OBJECT, MP_SYNC_PRIMITIVES, PICKLE,
                           PIPELINE_METHODS, PIPELINE_ROOTS, TORCH_SHARED_STATE, UNPICKLABLE_CALLS, Keeper,
                           Unpicklable, keeper)
from ..context import Context
from ..positions import span
from ..index import Binding, ClassInfo, Scope
from ..names import MAX_DEPTH, is_local_definition
from ..workers import Payload, function_returns

_STATE_HOOKS = frozenset({"__getstate__", "__reduce__", "__reduce_ex__"})
_OPEN_CALLS = frozenset({"builtins.open", "io.open"})
_TORCH_DATASET_BASES = frozenset({
    "torch.utils.data.Dataset", "torch.utils.data.IterableDataset", "torch.utils.data.dataset.Dataset",
    "torch.utils.data.dataset.IterableDataset", "torchvision.datasets.VisionDataset",
    "torchvision.datasets.vision.VisionDataset",
})
#: How a finding names the consumer of a library Dataset class that this module never hands to a loader.
_ANY_LOADER = " by any `DataLoader` with `num_workers>0`"
_TRANSFORM_SETTERS = frozenset({"with_transform", "set_transform"})


def check(ctx: Context) -> None:
    reached: set[ast.ClassDef] = set()
    for payload in ctx.model.payloads:
        ctx.worker = (payload.api, payload.method, payload.task or payload.api.payload_with_tasks)
        if payload.api.pickler == PICKLE:
            _pickle_payload(ctx, payload, reached)
        elif payload.api.pickler == DILL:
            _dill_payload(ctx, payload)
    ctx.worker = None
    _library_datasets(ctx, reached)
    _replaced_classes(ctx, reached)


# -- the standard pickler ----------------------------------------------------------------------------
def _pickle_payload(ctx: Context, payload: Payload, reached: set) -> None:
    api = payload.api.label
    role = payload.role
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
        _emit(ctx, rules.WSP302, report, role=payload.role, api=payload.api.label,
              what=f"{short} (it can reach a worker only by inheritance: pass it in `initargs=`, or use a "
              f"`Manager()` lock)")
    elif value is item and payload.api.key in DROPS_ARGS_AT_START:
        _emit(ctx, rules.WSP302, report, role=payload.role, api=payload.api.label,
              what=f"{short} created inline (nothing keeps it alive, so it is destroyed before the spawned "
              f"child opens it: keep it in a variable)", fix_hint={"inline": span(value)})
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
    arguments = _parameter_arguments(ctx, value, value_scope, depth)
    if arguments is not None:
        for argument, argument_scope in arguments:
            _callable(ctx, argument, argument_scope, argument, role, _located(api, report), reached, in_partial,
                      depth + _PARAMETER_STEP)
        return
    if isinstance(value, ast.Lambda):
        rule = rules.WSP202 if in_partial else rules.WSP201
        _emit(ctx, rule, value, role=role, api=_located(api, report), what="a lambda inside `functools.partial`",
              fix_hint={"lambda": span(value)})
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
                _emit(ctx, rules.WSP202, binding.node, line_only=True, role=role, api=_located(api, report),
                      what=f"`{binding.name}`", fix_hint={"def": span(binding.node)})
                _captured(ctx, binding, api, report, reached, depth)
            else:
                _emit(ctx, rules.WSP203, binding.node, line_only=True, role=role, api=_located(api, report),
                      cls=binding.name, fix_hint={"def": span(binding.node)})
        return
    if isinstance(value, ast.Attribute):
        # A bound method pickles its instance (an attribute holding some other object does not).
        info = _instance_class(ctx, value.value, value_scope)
        if info is not None and any(value.attr in current.methods for current in _class_chain(ctx, info)):
            _class_instance(ctx, info, report, role, api, reached)


def _object(ctx: Context, expr: ast.expr, scope: Scope, report: ast.AST, role: str, api: str, reached: set,
            depth: int) -> None:
    if depth > MAX_DEPTH:
        return
    if ctx.flow is not None and depth < MAX_DEPTH:
        for other, other_scope in ctx.flow.alternatives(expr, scope):
            _object(ctx, other, other_scope, report, role, api, reached, depth + 1)
    value, value_scope = _value(ctx, expr, scope)
    arguments = _parameter_arguments(ctx, value, value_scope, depth)
    if arguments is not None:
        for argument, argument_scope in arguments:
            _object(ctx, argument, argument_scope, argument, role, _located(api, report), reached,
                    depth + _PARAMETER_STEP)
        return
    if isinstance(value, ast.Lambda):
        _emit(ctx, rules.WSP201, value, role=role, api=_located(api, report), fix_hint={"lambda": span(value)})
        return
    unpicklable = _unpicklable(ctx, value, value_scope)
    if unpicklable is not None:
        _emit(ctx, rules.WSP302, report, role=role, api=api, what=unpicklable.what)
        return
    if isinstance(value, ast.Name):
        binding = ctx.resolver.definition(value, value_scope)
        if binding is not None and binding.kind == "def" and is_local_definition(binding):
            _emit(ctx, rules.WSP202, binding.node, line_only=True, role=role, api=_located(api, report),
                  what=f"`{binding.name}`", fix_hint={"def": span(binding.node)})
            _captured(ctx, binding, api, report, reached, depth)
        return
    if _is_partial(ctx, value, value_scope):
        _callable(ctx, value, value_scope, report, role, api, reached, False, depth + 1)
        return
    if isinstance(value, ast.Call):
        # `ds.with_transform(fn)` stores fn on the dataset that goes to the workers.
        if isinstance(value.func, ast.Attribute) and value.func.attr in _TRANSFORM_SETTERS:
            for arg in [*value.args[:1], *(k.value for k in value.keywords if k.arg == "transform")]:
                transform, _ = ctx.resolver.value_of(arg, value_scope)
                if isinstance(transform, ast.Call) and not _is_partial(ctx, transform, value_scope):
                    # `Compose([...])`, a factory's closure: what the object keeps is kept on the dataset
                    _stored(ctx, arg, value_scope, "Dataset", _located(api, report), reached, depth + 1)
                else:
                    _callable(ctx, arg, value_scope, arg, "the dataset's transform", _located(api, report), reached,
                              False, depth + 1)
            _object(ctx, value.func.value, value_scope, report, role, api, reached, depth + 1)
            return
        if isinstance(value.func, ast.Attribute) and value.func.attr in PIPELINE_METHODS \
                and _pipeline_root(ctx, value, value_scope):
            # A stage of a webdataset pipeline: what the method was given is pickled with the pipeline.
            for argument in [*value.args, *(k.value for k in value.keywords)]:
                _object(ctx, argument, value_scope, argument, f"an argument of `.{value.func.attr}()`",
                        _located(api, report), reached, depth + 1)
            receiver, receiver_scope = _receiver(ctx, value, value_scope)
            if receiver is not None:
                _object(ctx, receiver, receiver_scope, report, role, api, reached, depth + 1)
            return
        if isinstance(value.func, ast.Attribute) and value.func.attr in _DERIVED_DATASET_METHODS:
            # `ds = ds.map(tokenize)` (no workers): the new dataset keeps the old one's transform and format.
            receiver, receiver_scope = _receiver(ctx, value, value_scope)
            if receiver is not None:
                _object(ctx, receiver, receiver_scope, report, role, api, reached, depth + 1)
            return
        name = ctx.resolver.qualname(value.func, value_scope)
        if name in EAGER_HANDLE_CLASSES:
            # Reported at the constructor: building it (not passing it on) is what to change.
            _emit(ctx, rules.WSP302, value, role=role, api=_located(api, report),
                  what=f"a `{name.rsplit('.', 1)[-1]}` dataset, which holds " + EAGER_HANDLE_CLASSES[name])
            return
        kept = keeper(name)
        if kept is not None:
            # A torchvision dataset, a transform, or a wrapper (`Subset`, `ConcatDataset`, `random_split`):
            # what it keeps travels with it.
            owner = None if kept.transparent else _short_name(name)
            for argument in _kept_arguments(kept, value):
                if owner is None:
                    elements, elements_scope = _items(ctx, argument, value_scope)
                    for element in elements or [argument]:
                        _object(ctx, element, elements_scope if elements else value_scope, report, role, api,
                                reached, depth + 1)
                else:
                    _stored(ctx, argument, value_scope, owner, _located(api, report), reached, depth + 1)
            if isinstance(expr, ast.Name):
                _in_place_transforms(ctx, expr, scope, _located(api, report), reached)
            return
        binding = ctx.resolver.definition(value.func, value_scope)
        if binding is not None and binding.kind == "def" and depth < 3:
            # A factory: what its `return` statements build travels too.
            function_scope = ctx.index.scope_of.get(binding.node)
            for returned in function_returns(binding.node):
                _object(ctx, returned, function_scope, report, role, api, reached, depth + 1)
        if binding is not None and binding.kind == "class":
            if is_local_definition(binding):
                _emit(ctx, rules.WSP203, binding.node, line_only=True, role=role, api=_located(api, report),
                      cls=binding.name, fix_hint={"def": span(binding.node)})
                return
            info = ctx.index.classes.get(binding.node)
            if info is not None and not _has_state_hook(ctx, info):
                # Callables given to the constructor usually end up as attributes.
                for arg in [*value.args, *(k.value for k in value.keywords)]:
                    _stored(ctx, arg, value_scope, info.node.name, _located(api, report), reached, depth + 1)
                _class_instance(ctx, info, report, role, api, reached)
        elif binding is None and name and not name.startswith("builtins.") and depth == 0:
            # A dataset class this module cannot see (imported): by convention it keeps its transforms.
            for keyword in value.keywords:
                if keyword.arg in DATASET_TRANSFORM_KEYWORDS:
                    _stored(ctx, keyword.value, value_scope, _short_name(name), _located(api, report),
                            reached, depth + 1)
        if isinstance(expr, ast.Name):
            _in_place_transforms(ctx, expr, scope, _located(api, report), reached)


def _captured(ctx: Context, function: Binding, api: str, report: ast.AST, reached: set, depth: int) -> None:
    """Report (WSP204) what a local function reads from its enclosing function (``Compose([Lambda(lambda ...)])``),
    directly or through the local functions it calls: once the function is made picklable by binding those
    values (``functools.partial``, as ``--fix`` does), they travel with it."""
    todo, seen = [function.node], set()
    while todo and len(seen) < _MAX_CLOSURES:
        node = todo.pop()
        if node in seen:
            continue
        seen.add(node)
        for free in _free_names(ctx, node):
            if free.kind == "assign" and free.value is not None:
                _stored(ctx, free.value, free.scope, function.name, _located(api, report), reached, depth + 1)
            elif free.kind == "def":
                todo.append(free.node)


#: Local functions whose captured values are looked at for one finding.
_MAX_CLOSURES = 8


#: HF `datasets` methods whose result keeps the receiver's format and transform (`with_transform`'s function).
_DERIVED_DATASET_METHODS = frozenset({"map", "filter", "select", "shuffle", "sort", "rename_column", "rename_columns",
                                      "remove_columns", "select_columns", "cast", "cast_column", "flatten"})


def _receiver(ctx: Context, call: ast.Call, scope: Scope) -> tuple[Optional[ast.AST], Scope]:
    """The object a method is called on; in ``ds = ds.map(...)``, the ``ds`` assigned before."""
    receiver = call.func.value
    if isinstance(receiver, ast.Name):
        binding = ctx.resolver.lookup(receiver.id, scope, receiver.lineno)
        if binding is not None and binding.kind == "assign" and binding.value is call:
            earlier = [b for b in binding.scope.bindings.get(receiver.id, ()) if b.line < binding.line]
            if not earlier or earlier[-1].kind != "assign" or earlier[-1].value is None:
                return None, scope
            return earlier[-1].value, earlier[-1].scope
    return receiver, scope


def _pipeline_root(ctx: Context, call: ast.Call, scope: Scope, factories: int = 1) -> bool:
    """Whether a chain of method calls starts at a pipeline constructor of the registry (``wds.WebDataset``),
    also when the chain's start is returned by a function of this module (*factories*: how many to enter)."""
    for _ in range(MAX_DEPTH * 2):
        receiver, scope = _receiver(ctx, call, scope)
        if receiver is None:
            return False
        receiver, scope = ctx.resolver.value_of(receiver, scope)
        if not isinstance(receiver, ast.Call):
            return False
        if isinstance(receiver.func, ast.Attribute) and receiver.func.attr in PIPELINE_METHODS:
            call = receiver
            continue
        if ctx.resolver.qualname(receiver.func, scope) in PIPELINE_ROOTS:
            return True
        binding = ctx.resolver.definition(receiver.func, scope)
        if binding is None or binding.kind != "def" or factories <= 0:
            return False
        inner = ctx.index.scope_of.get(binding.node)
        for returned in function_returns(binding.node):
            value, value_scope = ctx.resolver.value_of(returned, inner)
            if isinstance(value, ast.Call) and (
                    ctx.resolver.qualname(value.func, value_scope) in PIPELINE_ROOTS
                    or (isinstance(value.func, ast.Attribute) and value.func.attr in PIPELINE_METHODS
                        and _pipeline_root(ctx, value, value_scope, factories - 1))):
                return True
        return False
    return False


#: Depth spent by following a parameter to its callers' arguments: two levels of calls within MAX_DEPTH.
_PARAMETER_STEP = 3


def _value(ctx: Context, expr: ast.AST, scope: Scope) -> tuple[ast.AST, Scope]:
    """``value_of``, and ``a, b = random_split(...)``: each name stands for what the call returns."""
    value, value_scope = ctx.resolver.value_of(expr, scope)
    if isinstance(value, ast.Name):
        binding = ctx.resolver.lookup(value.id, value_scope, getattr(value, "lineno", None))
        stmt = binding.node if binding is not None and binding.kind == "other" else None
        if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], (ast.Tuple, ast.List))
                and isinstance(stmt.value, ast.Call) and keeper(ctx.resolver.qualname(stmt.value.func, binding.scope))):
            return stmt.value, binding.scope
    return value, value_scope


def _parameter_arguments(ctx: Context, value: ast.AST, scope: Scope, depth: int) -> Optional[list]:
    """For a parameter of a function of this module: its callers' arguments (None: not a parameter)."""
    if ctx.flow is None or not isinstance(value, ast.Name) or depth + _PARAMETER_STEP > MAX_DEPTH:
        return None
    binding = ctx.resolver.lookup(value.id, scope, getattr(value, "lineno", None))
    if binding is None or binding.kind != "param":
        return None
    return ctx.flow.arguments(value, scope)


def _emit(ctx: Context, rule: rules.Rule, node: ast.AST, **args) -> None:
    """``ctx.emit``, without the ``at line N`` of an API that is on the finding's own line."""
    api = args.get("api")
    if isinstance(api, str) and api.endswith(f" at line {getattr(node, 'lineno', 0)}"):
        args["api"] = api.rsplit(" at line ", 1)[0]
    ctx.emit(rule, node, **args)


def _located(api: str, report: ast.AST) -> str:
    """*api* with the line it is on, for a finding reported away from it (once: the innermost hop wins)."""
    line = getattr(report, "lineno", None)
    return api if line is None or " at line " in api else f"{api} at line {line}"


def _short_name(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def _kept_arguments(kept: Keeper, call: ast.Call) -> list[ast.expr]:
    if kept.every:
        return [*(a.value if isinstance(a, ast.Starred) else a for a in call.args), *(k.value for k in call.keywords)]
    out = [k.value for k in call.keywords if k.arg in kept.keywords]
    for position in kept.positions:
        if position < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[:position + 1]):
            out.append(call.args[position])
    return out


def _in_place_transforms(ctx: Context, name: ast.Name, scope: Scope, api: str, reached: set) -> None:
    """`ds.set_transform(fn)` and `ds.transform = fn` on the same variable, in the same scope."""
    for call, site in ctx.index.method_calls.get("set_transform", ()):
        func = call.func
        if isinstance(func.value, ast.Name) and func.value.id == name.id and site.scope is scope and call.args:
            _callable(ctx, call.args[0], scope, call.args[0], "the dataset's transform", api, set(), False, 1)
    if scope.kind == "function":
        node = scope.node  # the assignments in its code, nested functions included
        start, end = (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)
        found = [assign for attribute in DATASET_TRANSFORM_KEYWORDS
                 for assign in ctx.index.attribute_assignments.get(attribute, ())
                 if assign.targets[0].value.id == name.id and start <= (assign.lineno, assign.col_offset) <= end]
        for assign in sorted(found, key=lambda assign: (assign.lineno, assign.col_offset)):
            _stored(ctx, assign.value, scope, name.id, api, reached, 1)


def _stored(ctx: Context, expr: ast.expr, scope: Scope, owner: str, api: str, reached: set, depth: int,
            anchor: Optional[ast.stmt] = None, beyond: bool = False, callers: bool = True) -> None:
    """Report (WSP204) the lambdas and local functions inside a value that *owner* keeps as an attribute.

    Follows variables, containers, transforms and wrappers of the registry (``Compose([...])``,
    ``transforms.Lambda(...)``), ``functools.partial``, factory functions of this module (their ``return``), and
    parameters back to their callers.  Other calls: a class of this module keeps its arguments (and is checked
    like any instance that travels); a builtin or a method call may consume them (``sorted(key=...)``,
    ``ds.map(fn)``), so nothing is said; another library's callable is assumed to keep them.

    A lambda or local function is reported where it is written, or where a caller passes it.  One found
    *beyond* the value (a variable's value, a factory's ``return``) is reported at *anchor* when one is given:
    the statement that stores it (``self.fn = make_fn()``).  *callers*: whether a parameter is followed to the
    arguments of every call of its function (not from ``__init__``, whose calls need not reach a worker).
    """
    if depth > MAX_DEPTH:
        return

    def report(node: ast.AST, what: str, hint: Optional[dict] = None) -> None:
        if beyond and anchor is not None:
            _emit(ctx, rules.WSP204, anchor, line_only=True, what=what, owner=owner, api=api)
        else:
            _emit(ctx, rules.WSP204, node, what=what, owner=owner, api=api, fix_hint=hint)

    def follow(value: ast.AST, value_scope: Scope, step: int, further: bool = False,
               new_owner: Optional[str] = None) -> None:
        _stored(ctx, value, value_scope, new_owner or owner, api, reached, depth + step, anchor, beyond or further,
                callers)

    if isinstance(expr, ast.Lambda):
        report(expr, "a lambda", {"lambda": span(expr)})
        return
    if isinstance(expr, ast.Name):
        if not isinstance(expr.ctx, ast.Load):
            return
        binding = ctx.resolver.definition(expr, scope)
        if binding is not None:
            if binding.kind == "def" and is_local_definition(binding):
                report(expr, f"local function `{binding.name}`", {"def": span(binding.node)})
            return
        arguments = _parameter_arguments(ctx, expr, scope, depth) if callers else None
        if arguments is not None:
            # What a caller passes is the construct to change: reported there, not at the anchor.
            for argument, argument_scope in arguments:
                _stored(ctx, argument, argument_scope, owner, api, reached, depth + _PARAMETER_STEP)
            return
        value, value_scope = _value(ctx, expr, scope)
        if value is not expr:
            follow(value, value_scope, 1, further=True)
        return
    if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
        for element in expr.elts:
            follow(element.value if isinstance(element, ast.Starred) else element, scope, 1)
        return
    if isinstance(expr, ast.Dict):
        for element in expr.values:
            follow(element, scope, 1)
        return
    if isinstance(expr, (ast.IfExp, ast.BoolOp)):
        for element in ([expr.body, expr.orelse] if isinstance(expr, ast.IfExp) else expr.values):
            follow(element, scope, 1)
        return
    if not isinstance(expr, ast.Call):
        return
    name = ctx.resolver.qualname(expr.func, scope)
    kept = keeper(name)
    if kept is not None:
        for argument in _kept_arguments(kept, expr):
            follow(argument, scope, 1, new_owner=None if kept.transparent else _short_name(name))
        return
    if not _is_partial(ctx, expr, scope) and (
            (name is None and not isinstance(expr.func, ast.Name)) or (name or "").startswith("builtins.")):
        return  # a method or a builtin (`ds.map(fn)`, `sorted(key=fn)`): it may well consume what it is given
    binding = ctx.resolver.definition(expr.func, scope)
    if binding is not None and binding.kind == "def":
        # A factory of this module: what it returns is what is kept.
        function_scope = ctx.index.scope_of.get(binding.node)
        for returned in function_returns(binding.node):
            follow(returned, function_scope, 2, further=True)
        return
    if binding is not None and binding.kind == "class":
        if is_local_definition(binding):
            _emit(ctx, rules.WSP203, expr, role=f"an attribute of `{owner}`", api=api, cls=binding.name,
                  fix_hint={"def": span(binding.node)})
            return
        info = ctx.index.classes.get(binding.node)
        if info is None or _has_state_hook(ctx, info):
            return
        _class_instance(ctx, info, expr, f"an attribute of `{owner}`", api, reached)
        owner = info.node.name
    for argument in [*expr.args, *(k.value for k in expr.keywords)]:
        follow(argument.value if isinstance(argument, ast.Starred) else argument, scope, 1)


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
    held = []  # (attr, what, statement, class, the `open()` call or None)
    others = []  # attributes that a reopen in `__setstate__` would not make picklable
    for current in _class_chain(ctx, info):
        for attr, value, stmt, method_scope in current.self_assignments.get("__init__", ()):
            if method_scope is None:
                continue
            unpicklable = (_unpicklable(ctx, value, method_scope, torch_worker="`DataLoader`" in via)
                           or _npz_archive(ctx, current, attr, value, method_scope))
            if unpicklable is not None:
                held.append((attr, unpicklable.what, stmt, current, _opened_file(ctx, value, method_scope)))
                continue
            before = len(ctx.findings)
            _stored(ctx, value, method_scope, owner, via.replace(" by ", "", 1) or "workers", set(), 1, anchor=stmt,
                    callers=False)
            if len(ctx.findings) > before:
                others.append(attr)
    others += [attr for attr, _, _, _, call in held if call is None]
    for attr, what, stmt, current, call in held:
        # A file opened with `open()` can be sent by name and position and reopened (fix/reopen_file.py); the
        # fix needs the call and the class it adds `__getstate__` to, and must not hide the other attributes'
        # findings (a `__getstate__` silences them all).
        hint = {"open": span(call), "class": span(current.node), "owner": span(info.node),
                "others": sorted(set(others))} if call else None
        _emit(ctx, rules.WSP301, stmt, line_only=True, attr=attr, what=what, owner=owner, via=via, fix_hint=hint,
              fix_safety=None if call else FixSafety.NONE)


def _opened_file(ctx: Context, value: ast.expr, scope: Scope) -> Optional[ast.Call]:
    """The builtin ``open(...)`` call that ``value`` is, or None."""
    found, found_scope = ctx.resolver.value_of(value, scope)
    if isinstance(found, ast.Call) and ctx.resolver.qualname(found.func, found_scope) in _OPEN_CALLS:
        return found
    return None


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


def _unpicklable(ctx: Context, expr: Optional[ast.AST], scope: Scope,
                 torch_worker: bool = False) -> Optional[Unpicklable]:
    """What makes this value unpicklable; *torch_worker*: it travels to a DataLoader worker (torch's reductions)."""
    value, value_scope = ctx.resolver.value_of(expr, scope) if expr is not None else (None, scope)
    if isinstance(value, ast.GeneratorExp):
        return GENERATOR
    if isinstance(value, ast.Name):
        binding = ctx.resolver.lookup(value.id, value_scope, getattr(value, "lineno", None))
        # `import numpy as np` binds a module; `from x import y` may bind anything
        if binding is not None and binding.kind == "import" and isinstance(binding.node, ast.Import):
            return MODULE_OBJECT
        return None
    if not isinstance(value, ast.Call):
        return None
    name = ctx.resolver.qualname(value.func, value_scope)
    if name in UNPICKLABLE_CALLS:
        return UNPICKLABLE_CALLS[name]
    if torch_worker and name in TORCH_SHARED_STATE:
        return TORCH_SHARED_STATE[name]
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
            _emit(ctx, rules.WSP901, value, what="a lambda", api=_located(api, payload.expr), fix_hint={"lambda": span(value)})
            function_node = value
        elif isinstance(value, ast.Name):
            binding = ctx.resolver.definition(value, value_scope)
            if binding is not None and binding.kind == "def" and is_local_definition(binding):
                _emit(ctx, rules.WSP901, binding.node, line_only=True, what=f"local function `{binding.name}`",
                      api=_located(api, payload.expr), fix_hint={"def": span(binding.node)})
                function_node = binding.node
        if function_node is not None:
            for binding in _free_names(ctx, function_node):
                found = _unpicklable(ctx, binding.value, binding.scope) if binding.value is not None else None
                if found is not None and not found.dill_ok:
                    _emit(ctx, rules.WSP302, payload.expr, role=f"a value captured by {payload.role}", api=api,
                          what=f"`{binding.name}` ({found.what})")
    elif payload.arg.kind in ("args", "kwargs"):
        items, items_scope = _items(ctx, payload.expr, scope)
        for item in items:
            found = _unpicklable(ctx, item, items_scope)
            if found is not None and not found.dill_ok:
                _emit(ctx, rules.WSP302, item, role=payload.role, api=api, what=found.what)


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
        if not _is_torch_dataset(ctx, info):
            continue
        if _has_state_hook(ctx, info):
            continue
        _init_attributes(ctx, info, _ANY_LOADER)


# -- classes that a decorator replaces -----------------------------------------------------------------
def _replaced_classes(ctx: Context, reached: set) -> None:
    """Report (WSP205) ``@torch.no_grad()`` on a class whose instances go to workers (a torch ``Dataset`` always may)."""
    for node, info in ctx.index.classes.items():
        if not node.decorator_list or info.scope.kind != "module":
            continue
        dataset = _is_torch_dataset(ctx, info)
        if node not in reached and not dataset:
            continue
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            name = ctx.resolver.qualname(target, info.scope)
            if name in CLASS_REPLACING_DECORATORS:
                kind = "function" if name.startswith("torch.") else "cache wrapper"
                via = _ANY_LOADER if dataset and node not in reached else ""
                _emit(ctx, rules.WSP205, decorator, decorator=_short(name) + ("()" if decorator is not target else ""),
                      cls=node.name, kind=kind, via=via)


def _short(name: str) -> str:
    return name.replace("torch.autograd.grad_mode.", "torch.").replace("torch.autograd.", "torch.")


def _is_torch_dataset(ctx: Context, info: ClassInfo) -> bool:
    """A subclass of torch's ``Dataset``: directly, through classes of this module, or through classes of the
    project's other modules (``from .extended import ExtendedVisionDataset``)."""
    for current in _class_chain(ctx, info):
        for base in current.node.bases:
            name = ctx.resolver.qualname(base, current.scope) or ""
            if name in _TORCH_DATASET_BASES:
                return True
            # Another module is parsed only for a base named like a dataset (`ExtendedVisionDataset`): reading
            # the project for every imported base would cost more than the whole check of the file.
            if ctx.filename and ctx.project is not None and isinstance(base, ast.Name) \
                    and base.id.endswith("Dataset") \
                    and ctx.project.imported_base(ctx.filename, name, _TORCH_DATASET_BASES) is not None:
                return True
    return False
