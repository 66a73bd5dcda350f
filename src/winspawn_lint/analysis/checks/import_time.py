"""Import-time hazards (WSP1xx): code that runs when a spawned worker re-imports the module.

A spawned child imports the parent's main module as ``__mp_main__``: every
statement outside ``if __name__ == "__main__":`` runs again in every worker.
Starting workers there recurses (WSP101), heavy loading there is repeated
(WSP103), ``set_start_method`` there fails in the children (WSP104).
"""

from __future__ import annotations

import ast
import os
from typing import Callable, Optional

from ... import rules
from ...records import Value
from ...rules import FixSafety
from ...spawn_apis import EVERYWHERE, FREEZE_SUPPORT, SET_START_METHOD
from ..context import Context
from ..guards import NEVER_RUNS, broken_guard, exits_unless_main
from ..heavy import dotted, heavy_work
from ..index import ModuleIndex, Site, branch_paths, exclusive_branches
from ..workers import resolve_callee


def _is_set_start_method(call: ast.Call, ctx: Context, site: Site) -> bool:
    name = ctx.resolver.qualname(call.func, site.scope)
    if name not in SET_START_METHOD:
        return False
    return not any(k.arg == "force" and not (isinstance(k.value, ast.Constant) and not k.value.value)
                   for k in call.keywords)


class Effect(Value):
    __slots__ = ("what", "chain")

    def __init__(self, what: str, chain: tuple[str, ...]) -> None:
        self.what = what  # description of the final operation
        self.chain = chain  # function names from the outer call inwards


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
                heavy = heavy_work(call, ctx.resolver, site.scope, ctx.index, function.node)
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
    """How a message names a call: ``loader.start()``, ``Trainer(...).fit()``."""
    func = call.func
    name = dotted(func)
    if name is None and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):
        inner = dotted(func.value.func)
        name = f"{inner}(...).{func.attr}" if inner else None
    return f"`{name or 'call'}()`"


def _chain_text(effect: Effect) -> str:
    return " (" + " → ".join([*effect.chain, _plain(effect.what)]) + ")"


def _plain(what: str) -> str:
    """*what* at the end of a chain: `torch.load(...)` reads plainly there; a description with more than one code
    span (`.cuda()` (moving to the GPU)) keeps its backticks, or one would be left dangling."""
    return what[1:-1] if what.count("`") == 2 and what[0] == what[-1] == "`" else what


_OWN_STARTS = "in a module that starts worker processes"
_LOOPS = (ast.For, ast.While, ast.AsyncFor)
#: module-level statements whose body runs after what starts workers in their header or earlier in the body
_BLOCKS = (ast.With, ast.AsyncWith, *_LOOPS)


def check(ctx: Context) -> None:
    index = ctx.index
    effects = Effects(ctx)
    engine = ctx.engine
    starts = ctx.starts_workers or bool(engine.module_facts(engine.main).starts)
    where = _OWN_STARTS
    if not starts and _does_heavy_work_at_import(ctx, effects):
        # The reverse direction: a script that starts spawn workers imports this module when it is imported, so
        # every worker it spawns imports this module again.
        spawning = engine.spawning_importers(engine.main)
        if spawning:
            starts = True
            where = _imported_by(ctx, spawning)
    # In a module the scripts import, wrapping the heavy statements in `main()` would take away what the scripts
    # use (`weights.WEIGHTS`): no fix is offered there.
    safety = FixSafety.NONE if where != _OWN_STARTS else None
    start_nodes = {id(e.node) for e in ctx.model.starts}

    # WSP103 in a module-level loop that starts workers at import time (WSP101) is reported once, on the first
    # heavy call, with the count of the others: WSP101's fix moves the whole loop, and them with it.
    start_loops = {id(event.site.top_stmt) for event in ctx.model.starts if event.site.import_time
                   and event.api.reimports_main and isinstance(event.site.top_stmt, _LOOPS)}
    in_loops: dict[int, list[tuple[ast.AST, bool, dict[str, str]]]] = {}

    # Where a spawned worker's import stops: at the first start it reaches (WSP101), which fails there; heavy work
    # after it in the same module-level loop or `with` never runs in a worker (`for batch in loader: model.cuda()`),
    # and WSP101's fix moves it with the start.  (A later statement is WSP103 still: it stays at import time once
    # the start is guarded.)
    stops: list[tuple[int, ast.stmt]] = []

    def never_reached(node: ast.AST, site: Site) -> bool:
        line = getattr(node, "lineno", 0)
        return any(line > start_line and top is site.top_stmt and isinstance(top, _BLOCKS)
                   for start_line, top in stops)

    # Where the module's own run starts workers, when each start is at import time: heavy work in a branch that
    # never runs with any of them (`if mode == "plot":` beside `if mode == "train":`) is not repeated by workers,
    # which take the same branch as the parent (they get its `sys.argv`).
    start_sites = _import_time_start_sites(ctx) if where == _OWN_STARTS else None

    def heavy(node: ast.AST, site: Site, line_only: bool = False, **args: str) -> None:
        if never_reached(node, site):
            return
        if start_sites and all(_never_both(site, other, index) for other in start_sites):
            return
        if id(site.top_stmt) in start_loops:
            in_loops.setdefault(id(site.top_stmt), []).append((node, line_only, args))
        else:
            ctx.emit(rules.WSP103, node, line_only=line_only, where=where, fix_safety=safety, **args)

    # WSP101: starts at import time.
    reported_lines: set[int] = set()
    for event in ctx.model.starts:
        ctx.worker = (event.api, event.method, False)
        line = getattr(event.node, "lineno", 0)
        if event.site.import_time and event.api.reimports_main and line not in reported_lines:
            reported_lines.add(line)  # `next(iter(loader))` is one start, not two
            if event.site.top_stmt is not None:
                stops.append((line, event.site.top_stmt))
            # (a training API's start is not WSP103 as well: a worker's re-import fails at the training's first
            # start, so the training is not repeated, and WSP101's fix is the one to make)
            ctx.emit(rules.WSP101, event.node, line_only=not isinstance(event.node, ast.expr),
                     what=event.api.label)
    ctx.worker = None
    _project_starts(ctx, reported_lines)

    heavy_calls: set[int] = set()  # (ids of the calls reported WSP103)
    # (calls whose arguments turn the callee's starts off, `process_map(f, xs, max_workers=1)`: the taint engine
    # binds them, where the module's own effects know the callee's body only)
    off = {id(call) for call in engine.module_facts(engine.main).off}
    for call, site in index.calls:
        if not site.import_time:
            continue
        callee = resolve_callee(call, site, index, ctx.resolver)
        if callee is not None:
            for kind, rule in (("start", rules.WSP101), ("heavy", rules.WSP103), ("set_start", rules.WSP104)):
                if rule is rules.WSP103 and (not starts or id(call) in heavy_calls or call.lineno in reported_lines):
                    continue  # (a call that starts workers at import time: WSP101 says what to move)
                if rule is rules.WSP101 and id(call) in off:
                    continue
                effect = effects.of(callee, kind)
                if effect is not None and rule is rules.WSP103:
                    heavy(call, site, what=_call_label(call), chain=_chain_text(effect))
                elif effect is not None:
                    ctx.emit(rule, call, what=_call_label(call), chain=_chain_text(effect), where=where)
                if effect is not None:
                    heavy_calls.add(id(call))
        if starts and id(call) not in start_nodes:
            work = heavy_work(call, ctx.resolver, site.scope, index, index.tree)
            if work:
                heavy(call, site, what=work)  # the call to move, on its own line in a long statement
                heavy_calls.add(id(call))
        if _is_set_start_method(call, ctx, site) and not site.catches_runtime_error:
            ctx.emit(rules.WSP104, call, what=dotted(call.func) or "set_start_method")
    if starts:
        _project_heavy_calls(ctx, heavy_calls | start_nodes, reported_lines, heavy)

    for found in in_loops.values():
        found.sort(key=lambda emit: (emit[0].lineno, emit[0].col_offset))
        node, line_only, args = found[0]
        more = len({(n.lineno, n.col_offset) for n, _, _ in found}) - 1
        if more:
            args = {**args, "chain": args.get("chain", "") + f" (as do {more} more heavy call{'s' if more > 1 else ''} "
                    "in this loop)"}
        ctx.emit(rules.WSP103, node, line_only=line_only, where=where, fix_safety=safety, **args)

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


def _does_heavy_work_at_import(ctx: Context, effects: "Effects") -> bool:
    """Whether importing this module does heavy work (a heavy call at import time, or a call of a function of
    it that does some): what a spawning script that imports it would make every worker repeat."""
    for call, site in ctx.index.calls:
        if not site.import_time:
            continue
        if heavy_work(call, ctx.resolver, site.scope, ctx.index, ctx.index.tree):
            return True
        callee = resolve_callee(call, site, ctx.index, ctx.resolver)
        if callee is not None and effects.of(callee, "heavy") is not None:
            return True
    return bool(ctx.engine.module_facts(ctx.engine.main).heavy)


def _imported_by(ctx: Context, spawning: list) -> str:
    """How a WSP103 message names the scripts that import this module and start spawn workers."""
    here = os.path.dirname(os.path.abspath(ctx.filename)) if ctx.filename else ""
    names = []
    for script, between in spawning[:2]:
        name = os.path.relpath(script.path, here) if here else script.path
        if name.startswith(".."):
            name = os.path.relpath(script.path, ctx.project.root(script.path))
        names.append(f"`{name}`" + (f" (through `{os.path.basename(between[-1])}`)" if between else ""))
    more = f" and {len(spawning) - 2} more" if len(spawning) > 2 else ""
    return f"in a module that {' and '.join(names)}{more} import{'s' if len(spawning) == 1 else ''} when " \
           f"{'it starts' if len(spawning) == 1 else 'they start'} worker processes"


def _import_time_start_sites(ctx: Context) -> Optional[list[Site]]:
    """The module-level sites through which running the module starts workers (its own starts, and its calls of
    other modules' functions that start some); None when a start is reached otherwise (in a function of its own,
    under the main guard), which a heavy statement's branch cannot rule out."""
    out = []
    for event in ctx.model.starts:
        if event.api.reimports_main:
            if not event.site.import_time or event.site.top_stmt is None:
                return None
            out.append(event.site)
    for start in ctx.engine.module_facts(ctx.engine.main).starts:
        site = start.hops[0].site if start.hops else start.site
        if site is None or not site.import_time or site.top_stmt is None:
            return None
        out.append(site)
    return out


def _never_both(first: Site, second: Site, index: "ModuleIndex") -> bool:
    """Whether two module-level sites never both run: they are in different branches of one ``if`` (``elif``
    included), or in the bodies of two ``if`` statements that compare one name with different constants
    (``if fig_key == "data":`` / ``if fig_key == "roc":``) that the module binds once and never stores into."""
    paths = branch_paths(index.module_scope)
    one, other = paths.get(first.stmt), paths.get(second.stmt)
    if one is None or other is None:
        return False
    if exclusive_branches(one, other):
        return True
    tests = []
    for path in (one, other):
        if not path or path[0][1] != "body" or not isinstance(path[0][0], ast.If):
            return False
        tests.append(_constant_test(path[0][0].test))
    (name, value), (other_name, other_value) = tests[0] or (None, None), tests[1] or (None, None)
    if name is None or name != other_name or value == other_value or first.top_stmt is second.top_stmt:
        return False
    root = name.split(".", 1)[0]
    if len(index.module_scope.bindings.get(root, ())) != 1:
        return False
    return root == name or not any(dotted(target) == name for stmt in paths for target in _targets(stmt))


def _constant_test(test: ast.expr) -> Optional[tuple[str, object]]:
    """``name == constant`` (or ``name.attr == constant``): (the dotted name, the constant)."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
        left, right = test.left, test.comparators[0]
        if isinstance(left, ast.Constant):
            left, right = right, left
        name = dotted(left)
        if name is not None and isinstance(right, ast.Constant) and isinstance(right.value, (str, int)):
            return name, right.value
    return None


def _targets(stmt: ast.AST) -> list[ast.expr]:
    if isinstance(stmt, ast.Assign):
        return stmt.targets
    if isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
        return [stmt.target]
    return []


def _project_starts(ctx: Context, reported_lines: set) -> None:
    """Starts at import time that the module's own worker model does not see: a module-level call of a function of
    another module that starts workers (``engine.train(loader)``, ``nn_process.create()``), or a module-level
    iteration of a loader a function of another module built."""
    engine = ctx.engine
    for start in engine.module_facts(engine.main).starts:
        hop = start.hops[0] if start.hops else None
        node, site = (hop.call, hop.site) if hop is not None else (start.node, start.site)
        if site is None or not site.import_time:
            continue
        line = getattr(node, "lineno", 0)
        if line in reported_lines:
            continue  # (the worker model of this module saw it: reported above)
        reported_lines.add(line)
        ctx.worker = (start.api, start.method, False)
        chain = " (" + " → ".join([*(f"{h.name}()" for h in start.hops), start.api.label.strip("`")]) + ")" \
            if start.hops else ""
        what = _call_label(node) if isinstance(node, ast.Call) else start.api.label
        ctx.emit(rules.WSP101, node, line_only=not isinstance(node, ast.expr), what=what, chain=chain)
    ctx.worker = None


def _project_heavy_calls(ctx: Context, reported: set, start_lines: set, heavy: Callable[..., None]) -> None:
    """Heavy work at import time in module-level calls of another module's functions or classes
    (``trainer = Trainer(config)`` whose ``__init__`` loads a checkpoint), which this module's own effects
    cannot see; each goes to *heavy* (``heavy(node, site, **args)``), which groups those in a loop that starts
    workers as the module's own are."""
    engine = ctx.engine
    for use in engine.module_facts(engine.main).heavy:
        hop = use.hops[0]
        call = hop.call
        if id(call) in reported or getattr(call, "lineno", 0) in start_lines or not isinstance(call, ast.Call):
            continue  # (reported already, as heavy work or as the start it is)
        reported.add(id(call))
        chain = " (" + " → ".join([*(f"{h.name}()" for h in use.hops[1:]), _plain(use.what)]) + ")"
        heavy(call, hop.site, what=_call_label(call), chain=chain)


def _is_freeze_support(stmt: Optional[ast.stmt], ctx: Context) -> bool:
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    name = ctx.resolver.qualname(stmt.value.func, ctx.index.module_scope) or ""
    return name in FREEZE_SUPPORT or name.endswith(".freeze_support")
