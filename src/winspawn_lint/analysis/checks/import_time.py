"""Import-time hazards (WSP1xx): code that runs when a spawned worker re-imports the module.

A spawned child imports the parent's main module as ``__mp_main__``: every
statement outside ``if __name__ == "__main__":`` runs again in every worker.
Starting workers there recurses (WSP101), heavy loading there is repeated
(WSP103), ``set_start_method`` there fails in the children (WSP104).
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from typing import Iterable, Optional

from ... import rules
from ...spawn_apis import EVERYWHERE, FREEZE_SUPPORT, HEAVY_METHODS, SET_START_METHOD, heavy_call
from ..context import Context
from ..guards import NEVER_RUNS, broken_guard, exits_unless_main
from ..index import Site
from ..project import Project, ProjectModule
from ..workers import resolve_callee

_CUDA_TEXT = ("cuda", "gpu")


def _is_heavy(call: ast.Call, ctx: Context, site: Site) -> Optional[str]:
    """A description of the heavy work this call does, or None."""
    name = ctx.resolver.qualname(call.func, site.scope)
    why = heavy_call(name, _constant_keywords(call))
    if why is not None:
        return f"`{_short(name)}(...)`{why}"
    if isinstance(call.func, ast.Attribute):
        method = call.func.attr
        if method in HEAVY_METHODS:
            return f"`{_dotted(call.func) or '.' + method}(...)`"
        if method == "cuda" and not call.keywords and len(call.args) <= 1:
            return "`.cuda()` (moving to the GPU)"
        if method == "to" and call.args and _mentions_cuda(call.args[0]):
            return "`.to(\"cuda\")` (moving to the GPU)"
    return None


def _constant_keywords(call: ast.Call) -> list[tuple[str | None, object]]:
    return [(k.arg, k.value.value if isinstance(k.value, ast.Constant) else None) for k in call.keywords]


def _mentions_cuda(expr: ast.AST) -> bool:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value.split(":")[0] in _CUDA_TEXT
    if isinstance(expr, ast.Call) and expr.args:  # torch.device("cuda")
        return isinstance(expr.func, (ast.Attribute, ast.Name)) and _mentions_cuda(expr.args[0])
    return False


def _short(name: str) -> str:
    for long, short in (("numpy.", "np."), ("pandas.", "pd.")):
        if name.startswith(long):
            return short + name[len(long):]
    return name


def _dotted(expr: ast.AST) -> Optional[str]:
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if isinstance(expr, ast.Name):
        parts.append(expr.id)
        return ".".join(reversed(parts))
    return None


def _is_set_start_method(call: ast.Call, ctx: Context, site: Site) -> bool:
    name = ctx.resolver.qualname(call.func, site.scope)
    if name not in SET_START_METHOD:
        return False
    return not any(k.arg == "force" and not (isinstance(k.value, ast.Constant) and not k.value.value)
                   for k in call.keywords)


@dataclass(frozen=True)
class Effect:
    what: str  # description of the final operation
    chain: tuple[str, ...]  # function names from the outer call inwards


class Effects:
    """Which functions of the module start workers, do heavy work, or set the start method, transitively."""

    KINDS = ("start", "heavy", "set_start")

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.direct: dict[ast.AST, dict[str, str]] = {}
        self.edges: dict[ast.AST, list[ast.AST]] = {}
        start_nodes = {id(e.node) for e in ctx.model.starts}
        for event in ctx.model.starts:
            function = event.site.function
            if function is not None and event.api.reimports_main:
                self.direct.setdefault(function.node, {}).setdefault("start", event.api.label)
                if event.api.training:
                    self.direct[function.node].setdefault("heavy", f"training ({event.api.label})")
        for call, site in ctx.index.calls:
            function = site.function
            if function is None or function.kind == "lambda":
                continue
            if id(call) not in start_nodes:
                heavy = _is_heavy(call, ctx, site)
                if heavy:
                    self.direct.setdefault(function.node, {}).setdefault("heavy", heavy)
            if _is_set_start_method(call, ctx, site) and not site.catches_runtime_error:
                self.direct.setdefault(function.node, {}).setdefault("set_start", "set_start_method(...)")
            callee = resolve_callee(call, site, ctx.index, ctx.resolver)
            if callee is not None and callee is not function.node:
                self.edges.setdefault(function.node, []).append(callee)
        self._memo: dict[tuple[ast.AST, str], Optional[Effect]] = {}

    def of(self, function: ast.AST, kind: str, visiting: Optional[set] = None) -> Optional[Effect]:
        key = (function, kind)
        if key in self._memo:
            return self._memo[key]
        visiting = visiting or set()
        if function in visiting:
            return None
        visiting.add(function)
        result = None
        direct = self.direct.get(function, {}).get(kind)
        name = getattr(function, "name", "?")
        if direct:
            result = Effect(direct, (name,))
        else:
            for callee in self.edges.get(function, ()):
                inner = self.of(callee, kind, visiting)
                if inner is not None:
                    result = Effect(inner.what, (name, *inner.chain))
                    break
        visiting.discard(function)
        self._memo[key] = result
        return result


def _call_label(call: ast.Call) -> str:
    return f"`{_dotted(call.func) or 'call'}()`"


def _chain_text(effect: Effect) -> str:
    # `torch.load(...)` reads plainly at the end of a chain; a description with more than one code span
    # (`.cuda()` (moving to the GPU)) keeps its backticks, or one would be left dangling
    what = effect.what[1:-1] if effect.what.count("`") == 2 and effect.what[0] == effect.what[-1] == "`" \
        else effect.what
    return " (" + " → ".join([*effect.chain, what]) + ")"


_LOOPS = (ast.For, ast.While, ast.AsyncFor)


def check(ctx: Context) -> None:
    index = ctx.index
    effects = Effects(ctx)
    starts = ctx.starts_workers
    start_nodes = {id(e.node) for e in ctx.model.starts}

    # WSP103 in a module-level loop that starts workers at import time (WSP101) is reported once, on the first
    # heavy call, with the count of the others: WSP101's fix moves the whole loop, and them with it.
    start_loops = {id(event.site.top_stmt) for event in ctx.model.starts if event.site.import_time
                   and event.api.reimports_main and isinstance(event.site.top_stmt, _LOOPS)}
    in_loops: dict[int, list[tuple[ast.AST, bool, dict[str, str]]]] = {}

    def heavy(node: ast.AST, site: Site, line_only: bool = False, **args: str) -> None:
        if id(site.top_stmt) in start_loops:
            in_loops.setdefault(id(site.top_stmt), []).append((node, line_only, args))
        else:
            ctx.emit(rules.WSP103, node, line_only=line_only, **args)

    # WSP101: starts at import time.
    reported_lines: set[int] = set()
    for event in ctx.model.starts:
        ctx.worker = (event.api, event.method, False)
        line = getattr(event.node, "lineno", 0)
        if event.site.import_time and event.api.reimports_main and line not in reported_lines:
            reported_lines.add(line)  # `next(iter(loader))` is one start, not two
            ctx.emit(rules.WSP101, event.node, line_only=not isinstance(event.node, ast.expr),
                     what=event.api.label)
            if event.api.training:
                heavy(event.site.stmt, event.site, line_only=True, what=f"training ({event.api.label})")
    ctx.worker = None

    for call, site in index.calls:
        if not site.import_time:
            continue
        callee = resolve_callee(call, site, index, ctx.resolver)
        if callee is not None:
            for kind, rule in (("start", rules.WSP101), ("heavy", rules.WSP103), ("set_start", rules.WSP104)):
                if rule is rules.WSP103 and not starts:
                    continue
                effect = effects.of(callee, kind)
                if effect is not None and rule is rules.WSP103:
                    heavy(call, site, what=_call_label(call), chain=_chain_text(effect))
                elif effect is not None:
                    ctx.emit(rule, call, what=_call_label(call), chain=_chain_text(effect))
        if starts and id(call) not in start_nodes:
            work = _is_heavy(call, ctx, site)
            if work:
                heavy(call, site, what=work)  # the call to move, on its own line in a long statement
        if _is_set_start_method(call, ctx, site) and not site.catches_runtime_error:
            ctx.emit(rules.WSP104, call, what=_dotted(call.func) or "set_start_method")

    for found in in_loops.values():
        found.sort(key=lambda emit: (emit[0].lineno, emit[0].col_offset))
        node, line_only, args = found[0]
        more = len({(n.lineno, n.col_offset) for n, _, _ in found}) - 1
        if more:
            args = {**args, "chain": args.get("chain", "") + f" (as do {more} more heavy call{'s' if more > 1 else ''} "
                    "in this loop)"}
        ctx.emit(rules.WSP103, node, line_only=line_only, **args)

    if starts and ctx.filename:
        _check_sibling_imports(ctx)

    # WSP102: guards that are not.
    for node in index.module_ifs:
        problem = broken_guard(node.test)
        if problem:
            why, effect = problem
            # a body that never runs is a bug under every start method
            ctx.emit(rules.WSP102, node, line_only=True, why=why, effect=effect,
                     breaks=EVERYWHERE if effect == NEVER_RUNS else None)
        elif starts and exits_unless_main(node):
            ctx.emit(rules.WSP102, node, line_only=True, why="exits unless `__name__ == \"__main__\"`",
                     effect="also stops every spawned worker, which imports this module as `__mp_main__`")

    # WSP105: freeze_support() first in the guard.
    if starts:
        for guard in index.main_guards:
            first = guard.body[0] if guard.body else None
            if not _is_freeze_support(first, ctx):
                ctx.emit(rules.WSP105, guard, line_only=True)


def _is_freeze_support(stmt: Optional[ast.stmt], ctx: Context) -> bool:
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    name = ctx.resolver.qualname(stmt.value.func, ctx.index.module_scope) or ""
    return name in FREEZE_SUPPORT or name.endswith(".freeze_support")


# -- sibling modules that do heavy work at import time -----------------------------------------------
def _check_sibling_imports(ctx: Context) -> None:
    project = ctx.project
    if project is None:
        return
    base = os.path.dirname(os.path.abspath(ctx.filename))
    for stmt, site in ctx.index.module_imports:
        if not site.import_time:
            continue
        for module in _imported_modules(stmt):
            path = _sibling_path(project, base, module)
            if path is None:
                continue
            heavy = _sibling_heavy(project.module(path))
            if heavy:
                ctx.emit(rules.WSP103, stmt, line_only=True,
                         what=f"`import {module}`", chain=f" (it runs {heavy} when imported)")


def _imported_modules(stmt: ast.stmt) -> Iterable[str]:
    if isinstance(stmt, ast.Import):
        return [alias.name for alias in stmt.names]
    assert isinstance(stmt, ast.ImportFrom)
    if stmt.level > 1:
        return []
    if stmt.module:
        return [stmt.module]
    return [alias.name for alias in stmt.names]  # from . import sibling


def _sibling_path(project: Project, base: str, module: str) -> Optional[str]:
    first = module.split(".")[0]
    for candidate in (os.path.join(base, first + ".py"), os.path.join(base, first, "__init__.py")):
        if project.is_file(candidate):
            return candidate
    return None


def _sibling_heavy(module: Optional[ProjectModule]) -> Optional[str]:
    """What heavy work a sibling module does at import time (parsed, never imported), once per module."""
    if module is None:
        return None
    if "heavy" not in module.derived:
        module.derived["heavy"] = _import_time_heavy(module)
    return module.derived["heavy"]


def _import_time_heavy(module: ProjectModule) -> Optional[str]:
    for call, site in module.index.calls:
        if site.import_time:
            name = module.resolver.qualname(call.func, site.scope) or ""
            method = call.func.attr if isinstance(call.func, ast.Attribute) else ""
            why = heavy_call(name, _constant_keywords(call))
            if why is not None or method in HEAVY_METHODS:
                return f"`{_short(name) if name else '.' + method}(...)`{why or ''}"
    return None
