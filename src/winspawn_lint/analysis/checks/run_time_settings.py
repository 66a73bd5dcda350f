"""A run-time global across modules (``rules.WSP107``): a settings object made empty at import and filled by the
script when it runs, read by worker code in another module (or in the script itself: ``CONFIG = {}`` at its top).

The shape (lcnn, WaveRNN)::

    # config.py                      # data.py                          # train.py
    M = AttrDict()                   from config import M               from config import M
                                     class Frames(Dataset):             def main():
                                         def __getitem__(self, i):          M.update(load(args.config))
                                             return ... M.scale             DataLoader(Frames(), num_workers=2)
                                                                        if __name__ == "__main__":
                                                                            main()

A forked worker inherits the filled ``M``.  A spawned one imports config.py afresh and gets the empty object the
import made: ``M.scale`` raises there.  Reported on the read, in the module that reads it, when every part is
seen: the object is made at import by a call without arguments of a class whose instances do not have the
attribute until they are filled (a project class that neither defines it nor sets it by name, whose
``__getattr__``, if any, can raise; or a library attribute dict of :data:`EMPTY_SETTINGS`), or is an empty dict
read by key (``CONFIG["scale"]``); nothing fills it when a module is imported (nor a function of its module or of
the reading one, which a decorator may call then, nor the worker code itself); a script that imports the reading
module fills it at run time (under its guard, or in a function only the guard calls); and the reading function
runs in the workers of an API that pickles it by reference (a method of a dataset a loader is given, a collate
function...).  Anything unsure is silent.
"""

from __future__ import annotations

import ast
from typing import Iterator, Optional

from ... import rules
from ...rules import FixSafety
from ...spawn_apis import PICKLE, SpawnAPI
from ..context import Context
from ..heavy import dotted
from ..index import FUNCTION_NODES, Binding, ClassInfo, is_super
from ..taint import BOUND, CLASS, EXT, EXTREF, FUNC, INST, Obj, Unit
from .reimport import (WORKER_METHODS, ParentOnly, elsewhere, relative_path, sent_objects, statements,
                       worker_functions)

#: Library classes whose instance made without arguments has no attributes until it is filled, and raises
#: ``AttributeError`` (or a subclass of it) when one is read.  (``addict.Dict`` is not one: it makes the key.)
EMPTY_SETTINGS = frozenset({
    "box.Box", "easydict.EasyDict", "types.SimpleNamespace", "argparse.Namespace", "yacs.config.CfgNode",
    "ml_collections.ConfigDict", "ml_collections.config_dict.ConfigDict",
})
#: Those of :data:`EMPTY_SETTINGS` that are dicts: reading a missing item raises ``KeyError`` as well.
_ITEM_SETTINGS = EMPTY_SETTINGS - {"types.SimpleNamespace", "argparse.Namespace"}
_DICTS = frozenset({"builtins.dict", "dict"})
#: Methods that read a settings object without filling it.
_READING_METHODS = frozenset({"get", "keys", "items", "values", "copy", "dump", "dumps", "to_dict", "clone",
                              "is_frozen", "is_configured", "__contains__", "__getitem__"})
#: Bases a project settings class may have whose instances hold no attribute of their own.
_PLAIN_BASES = frozenset({"builtins.object", "builtins.dict", "object", "dict"})


class _Settings:
    """A module-level object made empty at import: where (the unit, its name there), what makes it (``AttrDict()``,
    ``{}``), and which reads of it fail until it is filled: of an attribute (``M.scale``), of an item
    (``CONFIG["scale"]``)."""

    __slots__ = ("unit", "name", "maker", "info", "info_unit", "attributes", "items")

    def __init__(self, unit: Unit, name: str, maker: str, attributes: bool, items: bool,
                 info: Optional[ClassInfo] = None, info_unit: Optional[Unit] = None) -> None:
        self.unit, self.name, self.maker, self.info, self.info_unit = unit, name, maker, info, info_unit
        self.attributes, self.items = attributes, items


def check(ctx: Context) -> None:
    if rules.WSP107.code not in ctx.enabled:
        return
    engine = ctx.engine
    main = engine.main
    if main.path is None or main.notebook:
        return
    # The cheap parts first (this module's own worker model): the project's importers are read only for a module
    # whose worker code reads a settings object.
    own = _functions_sent_here(ctx)
    entries = set(own) | set(_worker_methods(ctx))
    if not entries:
        return
    places = ParentOnly(ctx.index, ctx.resolver)  # (for its call graph of this module's functions)
    parent_only: dict[int, ParentOnly] = {id(main): places}  # (each module's, made once per check)
    reads = list(_settings_reads(ctx, places.closure(entries), parent_only))
    if not reads:
        return
    importers = [unit for unit in engine.importers(main) if not unit.notebook]
    sent = dict(own)
    for entry, how in _functions_sent_from(ctx, importers).items():
        sent.setdefault(entry, how)
    reached: dict[ast.AST, _Sent] = {}
    for entry in sorted(sent, key=lambda f: (f.lineno, f.col_offset)):
        for function in places.closure([entry]):
            reached.setdefault(function, sent[entry])
    scripts = [unit for unit in (main, *importers) if unit.index.main_guards]
    for function, read, settings in reads:
        how = reached.get(function)
        filled = _filled_at_run_time(ctx, settings, scripts, how, parent_only) if how is not None else None
        if how is None or filled is None:
            continue
        where, path, line = filled
        ctx.worker = (how.api, how.method, False)
        # (no fix: the value is best passed as an argument, which is the author's choice of signature)
        made_in = "this module" if settings.unit is main else relative_path(ctx, settings.unit.path)
        ctx.emit(rules.WSP107, read, fix_safety=FixSafety.NONE, name=_spelled(read), worker=how.label,
                 where=where, line=elsewhere(ctx, path, line), imported="the script",
                 seen=f"the empty `{settings.maker}` that {made_in} makes at import")
    ctx.worker = None


# -- which functions of this module run in workers

class _Sent:
    """How a function of this module gets to a worker: its label, the worker API, the start method the call names,
    and who sends it: the path of the importer whose call does, or the name of this module's function that does
    (scripts that import that name are the likeliest to fill what it reads)."""

    __slots__ = ("label", "api", "method", "importer", "holder")

    def __init__(self, label: str, api: SpawnAPI, method: Optional[str], importer: Optional[str] = None,
                 holder: Optional[str] = None) -> None:
        self.label, self.api, self.method, self.importer, self.holder = label, api, method, importer, holder


def _functions_sent_here(ctx: Context) -> dict[ast.AST, _Sent]:
    """The functions of this module that its own worker payloads send (a function, a bound method, the worker
    methods of an instance)."""
    out: dict[ast.AST, _Sent] = {}
    for payload in ctx.model.payloads:
        if payload.api.pickler == PICKLE and payload.api.reimports_main:
            holder = payload.site.scope.function_scope()
            name = getattr(holder.node, "name", None) if holder is not None else None
            for function, label in worker_functions(ctx, payload):
                out.setdefault(function, _Sent(label, payload.api, payload.method, holder=name))
    return out


def _worker_methods(ctx: Context) -> Iterator[ast.AST]:
    """The methods of this module's classes that a worker calls on an instance it is sent."""
    for info in ctx.index.classes.values():
        for name in WORKER_METHODS:
            if name in info.methods:
                yield info.methods[name]


def _functions_sent_from(ctx: Context, units: list[Unit]) -> dict[ast.AST, _Sent]:
    """The functions of this module that the sinks of *units* (modules importing it) send to workers: a
    function, a bound method, the worker methods of an instance of a class of this module."""
    engine = ctx.engine
    here = engine.main.path
    out: dict[ast.AST, _Sent] = {}
    for unit in units:
        for sink in engine.root_sinks(unit):
            api = sink.api
            if api.pickler != PICKLE or not api.reimports_main or not engine.active(api, sink.count, sink.via):
                continue
            for obj in sent_objects(sink.value, 0):
                if obj.unit != here:
                    continue
                if obj.kind in (FUNC, BOUND) and obj.node in ctx.index.functions:
                    out.setdefault(obj.node, _Sent(f"`{obj.node.name}`", api, sink.method, unit.path))
                elif obj.kind == INST and obj.node in ctx.index.classes:
                    info = ctx.index.classes[obj.node]
                    for name in WORKER_METHODS:
                        if name in info.methods:
                            out.setdefault(info.methods[name],
                                           _Sent(f"`{info.node.name}.{name}`", api, sink.method, unit.path))
    return out


# -- what they read

def _settings_reads(ctx: Context, functions: set[ast.AST], parent_only: dict[int, ParentOnly]
                    ) -> Iterator[tuple[ast.AST, "ast.Attribute | ast.Subscript", _Settings]]:
    """The first read of a missing attribute or item of each settings object in each of *functions* (``M.scale``,
    ``CONFIG["scale"]``), where ``M`` is a global bound once, to a settings object made empty at import, that none
    of *functions* (the code that may run in workers) fills itself."""
    found: dict[str, Optional[_Settings]] = {}
    module = ctx.index.module_scope
    reads: list[tuple[ast.AST, "ast.Attribute | ast.Subscript", _Settings]] = []
    for function in sorted(functions, key=lambda f: (f.lineno, f.col_offset)):
        scope = ctx.index.scope_of.get(function)
        if scope is None:
            continue
        reported: set[str] = set()
        for node in _own_reads(function):
            name = node.value.id
            if name in reported or name in scope.bindings and name not in scope.globals_:
                continue
            if name not in found:
                bindings = module.bindings.get(name, [])
                found[name] = _settings(ctx, bindings[0], parent_only) if len(bindings) == 1 else None
            settings = found[name]
            if settings is not None and _missing(ctx, settings, node):
                reported.add(name)
                reads.append((function, node, settings))
    # (a per-process cache the worker fills, `if key not in CACHE: CACHE[key] = ...`, is the worker's own)
    filled = {name for name in {read.value.id for _, read, _ in reads}
              if any(_fills_in(function, name) for function in functions)}
    return (read for read in reads if read[1].value.id not in filled)


def _own_reads(function: ast.AST) -> Iterator["ast.Attribute | ast.Subscript"]:
    """``name.attr`` and ``name["key"]`` loads in *function*'s own body (not its nested functions), in source
    order, except attributes called (``M.get(...)``: a method, not a setting)."""
    called: set[int] = set()
    nodes: list["ast.Attribute | ast.Subscript"] = []
    for node in _own_nodes(function):
        if isinstance(node, ast.Call):
            called.add(id(node.func))
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and isinstance(node.ctx, ast.Load):
            nodes.append(node)
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.ctx, ast.Load) \
                and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            nodes.append(node)
    return (node for node in nodes if id(node) not in called)


def _own_nodes(function: ast.AST) -> Iterator[ast.AST]:
    """The nodes of *function*'s own body, in source order, not those of the functions, classes and lambdas in it."""
    stack = list(reversed(function.body))
    while stack:
        node = stack.pop()
        if isinstance(node, (*FUNCTION_NODES, ast.ClassDef, ast.Lambda)):
            continue
        yield node
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _fills_in(function: ast.AST, name: str) -> bool:
    """Whether *function*'s own body fills the global *name*."""
    return any(_fill(node, {name}) is not None for node in _own_nodes(function))


def _fill(node: ast.AST, names: set[str]) -> Optional[str]:
    """How *node* fills the object *names* name (``M``, ``config.M``), for a message: a call of one of its methods
    that does not only read (``M.update(...)``), or a store (or deletion) of an attribute or item of it."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        receiver = dotted(node.func.value)
        if receiver in names and node.func.attr not in _READING_METHODS:
            return f"`{receiver}.{node.func.attr}()`"
    elif isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
        receiver = dotted(node.value)
        if receiver in names:
            return f"`{receiver}.{node.attr} = ...`" if isinstance(node, ast.Attribute) else f"`{receiver}[...] = ...`"
    return None


def _spelled(read: "ast.Attribute | ast.Subscript") -> str:
    """How a message names a read: ``M.scale``, ``CONFIG["scale"]``."""
    if isinstance(read, ast.Attribute):
        return f"{read.value.id}.{read.attr}"
    return f'{read.value.id}["{read.slice.value}"]'


def _settings(ctx: Context, binding: Binding, parent_only: dict[int, ParentOnly]) -> Optional[_Settings]:
    """The settings object a global names: ``from config import M`` (or ``M = AttrDict()`` in this module)."""
    engine = ctx.engine
    main = engine.main
    if binding.kind == "import":
        target = engine.project_target(binding, main)
        if target is None or target[1] is None or target[0] is main or _used_at_import_time(main, binding.name):
            return None
        unit, name = target
    elif binding.kind == "assign":
        unit, name = main, binding.name
    else:
        return None
    bindings = unit.index.module_scope.bindings.get(name, [])
    if len(bindings) != 1 or bindings[0].kind != "assign":
        return None
    value, stmt = bindings[0].value, bindings[0].node
    if stmt not in unit.index.tree.body or _used_at_import_time(unit, name, stmt):
        return None
    # (a function of its module, or of this one, that fills it may run at import: a registry's decorator; not one
    # that only the main guard calls, which is what fills it at run time)
    if _filled_by_a_function(unit, name, parent_only) or unit is not main and _filled_by_a_function(
            main, binding.name, parent_only):
        return None
    if isinstance(value, ast.Dict) and not value.keys:
        return _Settings(unit, name, "{}", attributes=False, items=True)
    if not (isinstance(value, ast.Call) and not value.args and not value.keywords):
        return None
    objs = engine.eval(value, unit, unit.index.module_scope)
    if len(objs) != 1:
        return None
    obj = next(iter(objs))
    if obj.kind in (EXT, EXTREF) and obj.data in EMPTY_SETTINGS | _DICTS:
        maker = obj.data.rsplit(".", 1)[-1] + "()"
        return _Settings(unit, name, maker, attributes=obj.data not in _DICTS,
                         items=obj.data in _ITEM_SETTINGS | _DICTS)
    if obj.kind == INST:
        info, info_unit = engine.class_info(obj)
        if info is not None and _holds_nothing_yet(ctx, info, info_unit):
            return _Settings(unit, name, info.node.name + "()", True, _a_plain_dict(ctx, info, info_unit),
                             info, info_unit)
    return None


def _filled_by_a_function(unit: Unit, name: str, parent_only: dict[int, ParentOnly]) -> bool:
    """Whether a function of *unit* fills its global *name*, other than those only its main guard calls."""
    fillers = [function for function in unit.index.functions if _fills_in(function, name)]
    if not fillers:
        return False
    places = _parent_only(unit, parent_only)
    run_time = places.called_by_guard - places.called_at_import
    return any(function not in run_time for function in fillers)


def _parent_only(unit: Unit, kept: dict[int, ParentOnly]) -> ParentOnly:
    """*unit*'s :class:`ParentOnly`, made the first time a check asks for it."""
    found = kept.get(id(unit))
    if found is None:
        found = kept[id(unit)] = ParentOnly(unit.index, unit.resolver)
    return found


def _holds_nothing_yet(ctx: Context, info: ClassInfo, unit: Unit) -> bool:
    """Whether an instance of a project class made without arguments holds no attribute set by name: its bases are
    project classes (or ``object``/``dict``), nothing (a decorator, a metaclass, ``__getattribute__``,
    ``__slots__``) changes how its attributes are found, ``__getattr__`` (if any) can raise, and ``__init__``
    fills nothing unconditionally (``setattr``, ``self.update(...)`` directly in its body)."""
    engine = ctx.engine
    chain = engine.class_chain(info, unit)
    project = {id(current.node) for current, _ in chain}
    for current, current_unit in chain:
        for base in current.node.bases:
            objs = engine.eval(base, current_unit, current.scope)
            if not objs or not all(_plain_base(o, project) for o in objs):
                return False
        if current.node.keywords or current.node.decorator_list or "__getattribute__" in current.methods \
                or "__slots__" in current.body_scope.bindings:
            return False
        getter = current.methods.get("__getattr__")
        if getter is not None and not any(isinstance(n, ast.Raise) for n in ast.walk(getter)):
            return False
        init = current.methods.get("__init__")
        if init is not None and any(_fills(stmt) for stmt in init.body):
            return False
    return True


def _a_plain_dict(ctx: Context, info: ClassInfo, unit: Unit) -> bool:
    """Whether a missing item of an instance raises ``KeyError``: a ``dict`` subclass that does not define how items
    are found."""
    engine = ctx.engine
    chain = engine.class_chain(info, unit)
    if any("__getitem__" in current.methods or "__missing__" in current.methods for current, _ in chain):
        return False
    return any(o.kind in (EXT, EXTREF) and o.data in _DICTS
               for current, current_unit in chain for base in current.node.bases
               for o in engine.eval(base, current_unit, current.scope))


def _plain_base(base: Obj, project: set[int]) -> bool:
    """A base of a settings class whose instances hold nothing of their own: one of the class's project bases, or
    ``object``/``dict``."""
    return base.kind == CLASS and id(base.node) in project or base.kind in (EXT, EXTREF) and base.data in _PLAIN_BASES


def _fills(stmt: ast.stmt) -> bool:
    """A statement of ``__init__``'s own body that may fill the instance by a name it computes."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    func = stmt.value.func
    if isinstance(func, ast.Name):
        return func.id == "setattr"
    # `self.update(...)`, `self.__dict__.update(...)`; `super().__init__()` without arguments fills nothing
    if isinstance(func, ast.Attribute) and is_super(func.value):
        return bool(stmt.value.args or stmt.value.keywords)
    return isinstance(func, ast.Attribute)


def _missing(ctx: Context, settings: _Settings, read: "ast.Attribute | ast.Subscript") -> bool:
    """Whether the attribute or item *read* reads is not there on the object as the import made it."""
    if isinstance(read, ast.Subscript):
        return settings.items  # (made empty, and nothing at import fills it)
    attr = read.attr
    if not settings.attributes:
        return False
    if settings.info is None:
        return not attr.startswith("_")
    for current, _ in ctx.engine.class_chain(settings.info, settings.info_unit):
        if attr in current.body_scope.bindings or attr in current.methods:
            return False
        if any(stored == attr for stores in current.self_assignments.values() for stored, _, _, _ in stores):
            return False
    return not attr.startswith("__")


def _used_at_import_time(unit: Unit, name: str, made: Optional[ast.stmt] = None) -> bool:
    """Whether a statement that runs when *unit* is imported (but *made*) names *name*: it may fill it there."""
    guarded = unit.guarded()
    for stmt in statements(unit.index.tree.body):
        if stmt is made or stmt in guarded or isinstance(stmt, (*FUNCTION_NODES, ast.ClassDef)):
            continue
        for node in _expressions(stmt):
            if isinstance(node, ast.Name) and node.id == name:
                return True
    return False


def _expressions(stmt: ast.stmt) -> Iterator[ast.AST]:
    """The nodes of *stmt* itself, not of the statements nested in it."""
    stack = [child for child in ast.iter_child_nodes(stmt) if not isinstance(child, ast.stmt)]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(child for child in ast.iter_child_nodes(node)
                     if not isinstance(child, (ast.stmt, ast.Lambda, ast.ExceptHandler)))


# -- who fills them

def _filled_at_run_time(ctx: Context, settings: _Settings, scripts: list[Unit], sent: _Sent,
                        parent_only: dict[int, ParentOnly]) -> Optional[tuple[str, Optional[str], int]]:
    """Where a script fills *settings* when it runs, in the parent only (a method call or a store on it under its
    guard, or in a function only the guard calls), and no script fills it at import: (how the message says where,
    the script's path, the line); None otherwise.  Named: the first by path and line of the scripts that send the
    function (or import the function of this module that does), else of all."""
    found = None
    for script in scripts:
        sends = script.path == sent.importer or sent.holder is not None and any(
            b.kind == "import" for b in script.index.module_scope.bindings.get(sent.holder, ()))
        names = _names_for(ctx, settings, script)
        if not names:
            continue
        # (the script that makes it: the statement that does is not one that fills it)
        made = settings.unit.index.module_scope.bindings[settings.name][0].node if script is settings.unit else None
        if any(_used_at_import_time(script, name, made) for name in names if "." not in name):
            return None
        places = _parent_only(script, parent_only)
        for stmt in (*places.guarded, *places.owner):
            if not (stmt in places.guarded or places.run_time_statement(stmt)):
                continue
            how = _filling(stmt, names)
            if how is None:
                continue
            owner = places.owner.get(stmt)
            place = f"in `{owner.name}()`" if owner is not None else 'under `if __name__ == "__main__":`'
            candidate = (not sends, script.path or "", stmt.lineno, f"by {how} {place}")
            if found is None or candidate < found:
                found = candidate
    return (found[3], found[1], found[2]) if found is not None else None


def _names_for(ctx: Context, settings: _Settings, script: Unit) -> set[str]:
    """How *script* names the settings object: a global bound to it (``M``), or ``config.M`` through the module."""
    engine = ctx.engine
    names: set[str] = set()
    if script is settings.unit:
        names.add(settings.name)
    for name, bindings in script.index.module_scope.bindings.items():
        if len(bindings) != 1 or bindings[0].kind != "import":
            continue
        target = engine.project_target(bindings[0], script)
        if target is None or target[0] is not settings.unit:
            continue
        if target[1] == settings.name:
            names.add(name)
        elif target[1] is None:
            names.add(f"{name}.{settings.name}")
    return names


def _filling(stmt: ast.stmt, names: set[str]) -> Optional[str]:
    """How a statement of a script fills the object *names* name: a call of a method as a statement of its own, or
    an assignment to an attribute or item (:func:`_fill`)."""
    if isinstance(stmt, ast.Expr):
        return _fill(stmt.value, names)
    if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
            how = _fill(target, names)
            if how is not None:
                return how
    return None
