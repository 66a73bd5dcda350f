"""Notebook definitions (WSP206): a function or class defined in a notebook reaches a worker that pickles with
the standard pickler.

In a Jupyter kernel the notebook's code runs in ``__main__``, a module with
neither ``__file__`` nor ``__spec__``.  The standard pickler stores a
function or class by reference (``__main__.f``); a spawned or forkserver
worker starts a fresh interpreter, cannot rebuild that ``__main__``, and
fails with ``AttributeError: Can't get attribute 'f' on <module '__main__'>``
(a ``Pool`` then hangs, a ``DataLoader`` reports its worker exited).  Under
fork the child inherits the kernel's memory and everything works.  A
function imported from a ``.py`` module pickles by reference to that module,
which the worker imports: that is the fix.  dill (``datasets``) and
cloudpickle (joblib's loky) ship ``__main__`` definitions by value, so their
workers are not concerned; joblib with ``backend="multiprocessing"`` is.

The worker model (:mod:`..workers`) says what reaches workers; this check
only asks, for each value, whether it names a notebook-level definition.
"""

from __future__ import annotations

import ast
from typing import Iterator, Optional

from ... import rules
from ...spawn_apis import CONTEXT_FACTORIES, PICKLE, SET_START_METHOD
from ..context import Context
from ..index import Binding, Scope
from ..names import MAX_DEPTH, is_local_definition
from ..workers import Payload, function_returns, instance_class
from .pickling import _items


def check(ctx: Context) -> None:
    if not ctx.notebook or rules.WSP206.code not in ctx.enabled or _forks_everywhere(ctx):
        return
    for payload in ctx.model.payloads:
        if payload.api.pickler != PICKLE or _explicit_fork(ctx, payload):
            continue
        for binding, how in _definitions(ctx, payload):
            _emit(ctx, binding, how, payload.api.label, payload.role, payload.site.stmt)
    _joblib_multiprocessing(ctx)


def _emit(ctx: Context, binding: Binding, how: str, api: str, role: str, stmt: ast.stmt) -> None:
    # `where` is the worker call's module line; the notebook front end says it as "cell N, line L".
    ctx.emit(rules.WSP206, _name_span(binding.node), what=_kind(binding), api=api,
             role=role + (f" ({how})" if how else ""), where=getattr(stmt, "lineno", 0))


_JOBLIB_PARALLEL = frozenset({"joblib.Parallel", "joblib.parallel.Parallel"})
_JOBLIB_DELAYED = frozenset({"joblib.delayed", "joblib.parallel.delayed"})


def _joblib_multiprocessing(ctx: Context) -> None:
    """``Parallel(n_jobs=2, backend="multiprocessing")(delayed(f)(x) for x in xs)``: joblib's multiprocessing
    backend pickles ``f`` with the standard pickler (measured: the cell hangs under spawn); its default
    backend, loky, ships it with cloudpickle and is not concerned."""
    for call, site in ctx.index.calls:
        parallel, parallel_scope = ctx.resolver.value_of(call.func, site.scope)
        if not (isinstance(parallel, ast.Call)
                and ctx.resolver.qualname(parallel.func, parallel_scope) in _JOBLIB_PARALLEL
                and _keyword_is(parallel, "backend", "multiprocessing") and _has_workers(parallel)):
            continue
        for node in [n for arg in call.args for n in ast.walk(arg)]:
            # `delayed(f)(args)`: f is the task's function, the args travel with it
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Call)
                    and ctx.resolver.qualname(node.func.func, site.scope) in _JOBLIB_DELAYED and node.func.args):
                continue
            found = [*_callable(ctx, node.func.args[0], site.scope, 0),
                     *(item for arg in node.args for item in _object(ctx, arg, site.scope, 0))]
            for binding, how in found:
                _emit(ctx, binding, how, '`joblib.Parallel(backend="multiprocessing")`', "a task", site.stmt)


def _keyword_is(call: ast.Call, name: str, value: object) -> bool:
    return any(k.arg == name and isinstance(k.value, ast.Constant) and k.value.value == value for k in call.keywords)


def _has_workers(parallel: ast.Call) -> bool:
    """``n_jobs`` given and not 1 (joblib runs the tasks in the kernel when it is 1 or absent)."""
    n_jobs = parallel.args[0] if parallel.args else next(
        (k.value for k in parallel.keywords if k.arg == "n_jobs"), None)
    return n_jobs is not None and not (isinstance(n_jobs, ast.Constant) and n_jobs.value in (1, None))


def _definitions(ctx: Context, payload: Payload) -> Iterator[tuple[Binding, str]]:
    """(notebook-level def/class, how it travels if not itself) for everything this payload pickles by reference."""
    scope = payload.site.scope
    if payload.arg.kind == "callable":
        yield from _callable(ctx, payload.expr, scope, 0)
    elif payload.arg.kind in ("args", "kwargs") and not payload.arg.rest:
        items, items_scope = _items(ctx, payload.expr, scope)
        for item in items:
            yield from _object(ctx, item, items_scope, 0)
    else:
        yield from _object(ctx, payload.expr, scope, 0)


def _kind(binding: Binding) -> str:
    return f"{'class' if binding.kind == 'class' else 'function'} `{binding.name}`"


def _notebook_level(binding: Optional[Binding]) -> bool:
    return binding is not None and binding.kind in ("def", "class") and not is_local_definition(binding) \
        and binding.scope.kind == "module"


def _callable(ctx: Context, expr: ast.expr, scope: Scope, depth: int) -> Iterator[tuple[Binding, str]]:
    if depth > MAX_DEPTH:
        return
    value, value_scope = ctx.resolver.value_of(expr, scope)
    if isinstance(value, ast.Name):
        binding = ctx.resolver.definition(value, value_scope)
        if _notebook_level(binding):
            yield binding, ""
        return
    if isinstance(value, ast.Call) and ctx.resolver.qualname(value.func, value_scope) == "functools.partial":
        if value.args:
            yield from _callable(ctx, value.args[0], value_scope, depth + 1)
        for extra in [*value.args[1:], *(k.value for k in value.keywords)]:
            yield from _object(ctx, extra, value_scope, depth + 1)
        return
    if isinstance(value, ast.Attribute):  # a bound method pickles its instance, and so its class
        info = instance_class(value.value, value_scope, ctx.index, ctx.resolver)
        if info is not None and info.scope.kind == "module":
            binding = _class_binding(ctx, info.node)
            if binding is not None:
                yield binding, f"its method `{value.attr}`"
        return
    yield from _object(ctx, expr, scope, depth + 1)


def _object(ctx: Context, expr: ast.expr, scope: Scope, depth: int) -> Iterator[tuple[Binding, str]]:
    if depth > MAX_DEPTH:
        return
    value, value_scope = ctx.resolver.value_of(expr, scope)
    if isinstance(value, ast.Name):
        binding = ctx.resolver.definition(value, value_scope)
        if _notebook_level(binding):
            yield binding, ""
        return
    if not isinstance(value, ast.Call):
        return
    if ctx.resolver.qualname(value.func, value_scope) == "functools.partial":
        yield from _callable(ctx, value, value_scope, depth + 1)
        return
    binding = ctx.resolver.definition(value.func, value_scope)
    if _notebook_level(binding) and binding.kind == "class":
        yield binding, "an instance of it"
    elif _notebook_level(binding) and binding.kind == "def" and depth < 3:
        # A factory: what its `return` statements build travels.
        function_scope = ctx.index.scope_of.get(binding.node)
        for returned in function_returns(binding.node):
            yield from _object(ctx, returned, function_scope, depth + 1)


def _class_binding(ctx: Context, node: ast.ClassDef) -> Optional[Binding]:
    for binding in ctx.index.module_scope.bindings.get(node.name, ()):
        if binding.node is node:
            return binding
    return None


def _name_span(node: ast.AST) -> ast.AST:
    """The ``def name``/``class name`` part of a definition (decorators and body left out)."""
    keyword = "class " if isinstance(node, ast.ClassDef) else "async def " if isinstance(node, ast.AsyncFunctionDef) \
        else "def "
    span = ast.Name(id=node.name)
    span.lineno = span.end_lineno = node.lineno
    span.col_offset = node.col_offset
    span.end_col_offset = node.col_offset + len(keyword) + len(node.name)
    return span


def _forks_everywhere(ctx: Context) -> bool:
    """``set_start_method("fork")`` in the notebook: children inherit the kernel, definitions need no pickling."""
    for call, site in ctx.index.calls:
        if ctx.resolver.qualname(call.func, site.scope) in SET_START_METHOD:
            method = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "method"), None)
            if method is not None and _is_fork(ctx, method, site.scope):
                return True
    return False


def _explicit_fork(ctx: Context, payload: Payload) -> bool:
    """``DataLoader(..., multiprocessing_context="fork")``: on the call that sends the value, or on the object
    whose method does (``loader`` built with it)."""
    calls = []
    for call in (node for node in ast.walk(payload.site.stmt) if isinstance(node, ast.Call)):
        if any(node is payload.expr for arg in [*call.args, *(k.value for k in call.keywords)] for node in ast.walk(arg)):
            calls.append(call)
            found = ctx.finder.api_object(call.func.value, payload.site.scope) \
                if isinstance(call.func, ast.Attribute) else None
            if found is not None:
                calls.append(found[1])
    return any(keyword.arg in _CONTEXT_KEYWORDS and _is_fork(ctx, keyword.value, payload.site.scope)
               for call in calls for keyword in call.keywords)


#: where a worker API takes its multiprocessing context: DataLoader, ProcessPoolExecutor
_CONTEXT_KEYWORDS = frozenset({"multiprocessing_context", "mp_context"})


def _is_fork(ctx: Context, expr: ast.expr, scope: Scope) -> bool:
    """``"fork"`` or ``get_context("fork")`` (through a variable too)."""
    value, value_scope = ctx.resolver.value_of(expr, scope)
    if isinstance(value, ast.Constant):
        return value.value == "fork"
    if isinstance(value, ast.Call) and ctx.resolver.qualname(value.func, value_scope) in CONTEXT_FACTORIES:
        method = value.args[0] if value.args else next((k.value for k in value.keywords if k.arg == "method"), None)
        return isinstance(method, ast.Constant) and method.value == "fork"
    return False
