"""Pickled-value hazards: what reaches a worker and cannot be pickled there (WSP106, WSP2xx, WSP3xx, WSP901).

Under spawn every callable and object handed to a worker is pickled.  The standard pickler stores functions and
classes *by reference* (module and qualified name), so a lambda, anything defined inside a function, a notebook's
definitions (a spawned worker cannot import the kernel's ``__main__``) and definitions made only under the main
guard (a spawned worker re-imports the script as ``__mp_main__``, where the guard does not run) cannot travel, nor
can objects that hold them or that hold OS resources.  dill (``datasets``, ``multiprocess``) ships lambdas and
closures by value (cloudpickle, for loky and ray, too), so there only the portability note WSP901 and the
resources they cannot re-create remain.

The project-wide taint analysis (:mod:`..taint`) says which sources reach which sinks; this module turns each
flow whose source is in the checked module into its finding: the rule that names the source and how it is held,
at the line a user must change, with a message that names the sink and the calls in between.
"""

from __future__ import annotations

import ast
import os
from typing import Optional

from ... import rules
from ...rules import FixSafety
from ...spawn_apis import (DILL, DROPS_ARGS_AT_START, EAGER_HANDLE_CLASSES, MP_SYNC_PRIMITIVES, PICKLE,
                           SET_START_METHOD, TORCH_SHARED_STATE, Unpicklable)
from ..context import Context
from ..heavy import dotted
from ..index import FUNCTION_NODES, is_super
from ..positions import span
from ..taint import CLASS, FUNC, INST, LAMBDA, RES, STAGE, SYNC, Flow, Obj, Step, Unit

_DATALOADER = "torch.utils.data.DataLoader"
#: (MONAI's and PyTorch Geometric's are torch DataLoaders)
_TORCH_LOADERS = frozenset({_DATALOADER, "monai.data.DataLoader", "torch_geometric.loader.DataLoader"})
#: How a finding names the consumer of a library Dataset class that the project never hands to a loader.
_ANY_LOADER = " by any `DataLoader` with `num_workers>0`"
_STORED = ("attr", "held", "kept", "self")  # steps by which an object holds what it keeps (not a container's)
#: Where a library wrapper keeps what it was given, for naming the chain of attributes in a message.
_KEPT_AS = {"Compose": ".transforms", "RandomApply": ".transforms", "RandomChoice": ".transforms",
            "RandomOrder": ".transforms", "Lambda": ".lambd", "Subset": ".dataset", "ConcatDataset": ".datasets",
            "ChainDataset": ".datasets"}
_TORCH_ONLY = frozenset(u.what for u in TORCH_SHARED_STATE.values())
_RESOURCE_CALLS = frozenset({*TORCH_SHARED_STATE, *EAGER_HANDLE_CLASSES, *MP_SYNC_PRIMITIVES, "numpy.load"})


def check(ctx: Context) -> None:
    engine = ctx.engine
    unit = engine.main
    if ctx.notebook and _forks_everywhere(ctx):
        return  # set_start_method("fork"): every child inherits the kernel, nothing is pickled by reference
    flows = list(engine.module_facts(unit).flows)
    if unit.path is not None and not unit.notebook and _may_escape(ctx):
        for importer in engine.importers(unit):
            flows.extend(f for f in engine.flows_of(importer) if _reported_in(f) == unit.path)
    reached: set = set()
    for flow in sorted(flows, key=lambda f: _flow_order(f, unit)):
        if _reported_in(flow) != unit.path:
            continue
        api = flow.sink.api
        ctx.worker = (api, flow.sink.method, flow.sink.task or api.payload_with_tasks or flow.sink.arg.with_tasks)
        if api.pickler == PICKLE:
            _pickled(ctx, flow, reached)
        else:  # dill and cloudpickle ship functions by value: only what they cannot re-create breaks
            _by_value(ctx, flow)
    ctx.worker = None
    _library_datasets(ctx, reached)
    _replaced_classes(ctx, reached)


def _reported_in(flow: Flow) -> Optional[str]:
    """The module a flow's finding belongs to: where its source is made, except for a resource that an object
    keeps, reported where the travelling object keeps it (its outermost ``self.x = ...``) unless it was made by
    the code that built the object (:func:`_handed_in`)."""
    source = flow.source
    if source.kind in (RES, SYNC):
        holder = _holder(flow.path)
        if holder is not None and not _handed_in(flow, holder):
            return holder.unit
    return source.unit


def _handed_in(flow: Flow, holder: Step) -> bool:
    """Whether the object keeps the resource itself as it was handed in by name, made outside its class: ``ds =
    Numbers(torch.jit.script(m))`` with ``self.transform = transform``, or ``super().__init__(root, None,
    transform)``.  The line to change is then where it is made -- the class's store is right for any other
    transform -- and the finding is reported there, as a lambda's is.  A resource read from another object
    (``self.wsi = slide.wsi``), or held deeper, stays reported at the store."""
    source, stmt = flow.source, holder.stmt
    if source.node is None or source.unit is None or holder.owner is None or any(
            s.how == "attr" and s is not holder for s in flow.path):
        return False
    value = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.Expr)) else None
    if not (isinstance(value, ast.Name) or isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and value.func.attr == "__init__" and is_super(value.func.value)):
        return False
    cls = holder.owner.node
    return source.unit != holder.unit or not isinstance(cls, ast.ClassDef) or not (
        cls.lineno <= getattr(source.node, "lineno", 0) <= (cls.end_lineno or cls.lineno))


def _holder(path: tuple) -> Optional[Step]:
    return next((s for s in path if s.how == "attr" and s.owner is not None and s.owner.kind == INST
                 and s.stmt is not None), None)


def _forks_everywhere(ctx: Context) -> bool:
    """``set_start_method("fork")`` in the notebook: children inherit the kernel, definitions need no pickling."""
    for call, site in ctx.index.calls:
        if ctx.resolver.qualname(call.func, site.scope) in SET_START_METHOD:
            method = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "method"), None)
            value, _ = ctx.resolver.value_of(method, site.scope) if method is not None else (None, None)
            if isinstance(value, ast.Constant) and value.value == "fork":
                return True
    return False


def _flow_order(flow: Flow, unit: Unit) -> tuple:
    # Sinks of this module first, in source order, then those elsewhere: the first flow of a finding names it.
    sink = flow.sink
    return (sink.unit != unit.path, len(sink.hops), sink.unit or "", getattr(sink.call, "lineno", 0),
            getattr(sink.call, "col_offset", 0), len(flow.path), getattr(flow.source.node, "lineno", 0))


def _may_escape(ctx: Context) -> bool:
    """Whether this module makes a source that code importing it could send to a worker: a lambda, a function or
    class defined in a function, a generator, a resource, or a class a decorator replaces.  Only then are the
    modules that import it looked at."""
    index = ctx.index
    if index.lambdas or index.generator_functions:
        return True
    if any(scope.parent is not None and scope.parent.kind != "module" for scope in index.functions.values()):
        return True
    if any(info.scope.kind != "module" or info.node.decorator_list for info in index.classes.values()):
        return True
    unpicklable = ctx.engine.registry.unpicklable
    return any(name in _RESOURCE_CALLS or name in unpicklable
               for name in (ctx.resolver.qualname(call.func, site.scope) for call, site in index.calls))


# -- the standard pickler ------------------------------------------------------------------------------------------
def _pickled(ctx: Context, flow: Flow, reached: set) -> None:
    source, path, sink = flow.source, flow.path, flow.sink
    engine = ctx.engine
    kind = source.kind
    stored = [step for step in path if step.how in _STORED]
    api, role = _api(ctx, flow), _role(flow)
    in_partial = any(step.how == "partial" for step in path)
    remedy = _remedy(ctx, "function")
    if kind in (INST,) and source.data and source.data[0] == "replaced":
        return  # reported at the decorator (WSP205)
    if kind in (FUNC, CLASS, INST):
        definition = engine.definition_kind(source)
        node = source.node
        if definition in ("notebook", "guard") and sink.method == "fork":
            return  # forked children inherit the kernel (or the parent's main module): found by reference
        if definition == "notebook":
            # pickled by reference, found in a forked child's copy of the kernel even when sent with a task
            ctx.worker = (sink.api, sink.method, False)
            how = "an instance of it" if kind == INST else ""
            method = next((s.name for s in path if s.how == "self"), None)
            if method:
                how = f"its method `{method}`"
            elif stored:
                how = f"kept by {_owner_name(stored)}{_chain(path)}"
            what = f"{'class' if isinstance(node, ast.ClassDef) else 'function'} `{node.name}`"
            where = _notebook_where(ctx, flow)
            ctx.emit(rules.WSP206, _name_span(node), what=what, api=sink.api.label,
                     role=_role(flow) + (f" ({how})" if how else ""), where=where, how=_BY_REFERENCE)
            return
        if definition == "guard":
            if not sink.api.reimports_main or ctx.notebook:
                return
            ctx.worker = (sink.api, sink.method, False)  # a spawned worker lacks the name; fork has it
            what = ("an instance of class" if kind == INST else "class" if isinstance(node, ast.ClassDef)
                    else "function") + f" `{node.name}`"
            ctx.emit(rules.WSP106, _name_span(node), what=what, name=node.name, role=role, api=api,
                     line=ctx.line_ref(node.lineno), fix_hint={"guarded_def": span(node)})
            return
        if definition != "local":
            return
        if isinstance(node, ast.ClassDef):
            role_text = f"an attribute of {_owner_name(stored)}" if stored else role
            ctx.emit(rules.WSP203, node, line_only=True, role=role_text, api=api, cls=node.name,
                     fix_hint={"def": span(node)}, remedy=_remedy(ctx, "class"))
            return
        if stored:
            ctx.emit(rules.WSP204, node, line_only=True, what=f"local function `{node.name}`",
                     owner=_owner_name(stored), api=api, chain=_chain(path), fix_hint={"def": span(node)},
                     remedy=_remedy(ctx, "stored"))
            return
        ctx.emit(rules.WSP202, node, line_only=True, role=role, api=api, what=f"`{node.name}`",
                 fix_hint={"def": span(node)}, remedy=_remedy(ctx, "def"))
        return
    if kind == LAMBDA:
        # (a library pipeline keeps a lambda given to a stage, `.map(lambda s: ...)`, as a project pipeline whose
        # method stores it does: the pipeline is the dataset that travels)
        staged = [step for step in path if _is_stage(step)]
        if stored or staged:
            ctx.emit(rules.WSP204, source.node, what="a lambda", owner=_owner_name(stored or staged), api=api,
                     chain=_chain(path), fix_hint={"lambda": span(source.node)}, remedy=_remedy(ctx, "stored"))
        elif in_partial:
            ctx.emit(rules.WSP202, source.node, role=role, api=api, what="a lambda inside `functools.partial`",
                     fix_hint={"lambda": span(source.node)}, remedy=remedy)
        else:
            # (a payload that goes with every task is pickled under fork too)
            when = "under every start method" if ctx.worker and ctx.worker[2] else "under spawn"
            ctx.emit(rules.WSP201, source.node, role=role, api=api, fix_hint={"lambda": span(source.node)},
                     remedy=remedy, when=when)
        return
    if kind == SYNC:
        _sync_primitive(ctx, flow, api, role)
        return
    if kind == RES:
        what: Unpicklable = source.data
        if what.what in _TORCH_ONLY and sink.api.key not in _TORCH_LOADERS:
            return  # torch's shared state fails only in a DataLoader worker
        # The attribute of the object that travels: where the resource is kept, however deep (a dataset keeping a
        # logger that keeps a queue is reported at the dataset's `self._logger = ...`).
        holder = _holder(path)
        if holder is not None and _handed_in(flow, holder):
            if source.unit == ctx.engine.main.path:
                reached.add(id(holder.owner.node))
                ctx.emit(rules.WSP301, source.node, attr=holder.name.partition("#")[0].lstrip("+."), what=what.what,
                         owner=holder.owner.node.name, via=f" by {_api(ctx, flow)}", fix_safety=FixSafety.NONE)
            return
        if holder is not None:
            if holder.unit == ctx.engine.main.path:
                _held_resource(ctx, flow, holder, what, reached)
            return
        if holder is None and not stored:
            # Passed as it is: reported where it is passed, or (a library dataset that opens its handle when
            # built) where it is built.
            eager = "dataset, which holds" in what.what
            report = source.node if eager or sink.unit != ctx.engine.main.path else _passed_node(ctx, flow)
            if report is not None and (source.node is not None or sink.unit == ctx.engine.main.path):
                ctx.emit(rules.WSP302, report, role=role, api=api, what=what.what)


def _held_resource(ctx: Context, flow: Flow, holder: Step, what: Unpicklable, reached: set) -> None:
    """``self.attr = <resource>`` in the ``__init__`` of a class whose instances travel (unpicklable-attribute)."""
    owner = holder.owner
    engine = ctx.engine
    reached.add(id(owner.node))
    call = flow.source.node if _is_open(ctx, flow.source) else None
    found = _method_of_store(ctx, holder.stmt)
    cls = found[0] if found is not None else owner.node
    # What a `__getstate__` that reopens files would also have to drop: the other attributes that hold a source
    # other than a file opened with `open()`.
    others = sorted({attr for attr, held, store in engine.field_stores(owner) if attr != holder.name and any(
        engine_source(engine, o) and not (o.kind == RES and _is_open(ctx, o)) for o in held)})
    hint = {"open": span(call), "class": span(cls), "owner": span(owner.node), "others": others} if call else None
    via = f" by {_api(ctx, flow)}"
    inner = [s for s in flow.path if s.how == "attr" and s is not holder]
    deeper = "" if not inner else f" (in `{_owner_label(inner[-1].owner).strip('`')}." \
        f"{inner[-1].name.partition('#')[0].lstrip('+.')}`)"
    by_len = _stored_by(ctx, found, "__len__")
    by_item = _stored_by(ctx, found, "__getitem__") if not by_len else None
    if by_len:  # (the reopen fix is for a handle `__init__` opens)
        deeper += f" (opened by `{by_len}` when the parent takes `len()` of the dataset, as a DataLoader's " \
            "sampler does)"
        hint = None
    elif by_item:
        deeper += f" (opened by `{by_item}` when the parent reads an item of the dataset)"
        hint = None
    ctx.emit(rules.WSP301, holder.stmt, line_only=True, attr=holder.name.partition("#")[0].lstrip("+."),
             what=what.what + deeper, owner=owner.node.name, via=via, fix_hint=hint if not inner else None,
             fix_safety=None if hint and not inner else FixSafety.NONE)


def _stored_by(ctx: Context, found: Optional[tuple[ast.ClassDef, ast.AST]], dunder: str) -> Optional[str]:
    """For a store (*found*: its class and method, :func:`_method_of_store`) of a class's *dunder* (``__len__``,
    ``__getitem__``) or of a method it calls on ``self`` (and not ``__init__``): how a message names it
    (``__len__()`` or ``_open()``); None otherwise."""
    if found is None:
        return None
    cls, method = found
    info = ctx.index.classes[cls]
    special = info.methods.get(dunder)
    if special is None:
        return None
    if method is special:
        return f"{dunder}()"
    called = {node.func.attr for node in ast.walk(special) if isinstance(node, ast.Call)
              and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
              and node.func.value.id == "self"}
    init = info.methods.get("__init__")
    in_init = init is not None and any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                                       and node.func.attr == method.name for node in ast.walk(init))
    return f"{method.name}()" if method.name in called and method.name != "__init__" and not in_init else None


def engine_source(engine, obj: Obj) -> bool:
    """Whether *obj* is itself a source (what a ``__getstate__`` added for a reopened file must also drop)."""
    if obj.kind in (LAMBDA, RES, SYNC):
        return True
    if obj.kind in (FUNC, CLASS, INST):
        return engine.is_source_definition(obj)
    return False


def _sync_primitive(ctx: Context, flow: Flow, api: str, role: str) -> None:
    """A multiprocessing Lock/Semaphore sent with a task (WSP302), or created inline in ``Process(args=...)``."""
    sink = flow.sink
    name = flow.source.data
    short = f"a `multiprocessing.{name.rsplit('.', 1)[-1]}`"
    report = _passed_node(ctx, flow) or flow.source.node
    if sink.task:
        ctx.emit(rules.WSP302, report, role=role, api=api,
                 what=f"{short} (it can reach a worker only by inheritance: pass it in `initargs=`, or use a "
                 f"`Manager()` lock)")
    elif sink.api.key in DROPS_ARGS_AT_START and _inline(flow):
        ctx.emit(rules.WSP302, flow.source.node, role=role, api=api,
                 what=f"{short} created inline (nothing keeps it alive, so it is destroyed before the spawned "
                 f"child opens it: keep it in a variable)", fix_hint={"inline": span(flow.source.node)})


def _inline(flow: Flow) -> bool:
    """The primitive is written in the payload itself (``args=(Lock(),)``), not kept in a variable."""
    node = flow.source.node
    call = flow.sink.call
    return any(child is node for child in ast.walk(call)) and flow.sink.unit == flow.source.unit


# -- dill and cloudpickle ----------------------------------------------------------------------------------------------
def _by_value(ctx: Context, flow: Flow) -> None:
    source, path, sink = flow.source, flow.path, flow.sink
    api = _api(ctx, flow)
    closure = [s for s in path if s.how == "closure"]
    if sink.api.pickler == DILL and not closure and not any(s.how in _STORED for s in path):
        if _notebook_names_read(ctx, flow):
            return
        if source.kind == LAMBDA and sink.arg.kind == "callable":
            ctx.emit(rules.WSP901, source.node, what="a lambda", api=api, fix_hint={"lambda": span(source.node)})
            return
        if source.kind == FUNC and ctx.engine.definition_kind(source) == "local" and sink.arg.kind == "callable":
            ctx.emit(rules.WSP901, source.node, line_only=True, what=f"local function `{source.node.name}`",
                     api=api, fix_hint={"def": span(source.node)})
            return
    if source.kind == RES and not source.data.dill_ok:
        report = _payload_node(flow)
        if report is None:
            return
        if closure:
            ctx.emit(rules.WSP302, report, role=_role(flow), api=sink.api.label,
                     what=f"`{closure[-1].name}` ({source.data.what})")
        elif sink.arg.kind in ("args", "kwargs"):
            ctx.emit(rules.WSP302, report, role=_role(flow), api=sink.api.label, what=source.data.what)


_BY_REFERENCE = "which pickles it by reference to the kernel's `__main__`, where a spawned worker cannot find it"


def _notebook_names_read(ctx: Context, flow: Flow) -> bool:
    """The notebook-definition finding for a function or lambda of the notebook sent to a worker that pickles with
    dill, when it reads names of the notebook: dill ships the function by value but its globals as a reference to
    ``__main__``, which in a spawned worker is not the kernel (measured: `datasets`' ``map(num_proc=2)`` and
    ``multiprocess.Pool`` raise NameError under spawn, and run under fork;
    tests/fixtures/notebooks/wsp206_*_reads_a_notebook_*).  Whether it reported."""
    source, sink = flow.source, flow.sink
    if not ctx.notebook or source.kind not in (FUNC, LAMBDA) or source.unit != ctx.engine.main.path \
            or sink.arg.kind != "callable" or sink.method == "fork":
        return False
    names = _global_names_read(source.node, ctx.index.module_scope.bindings)
    if not names:
        return False
    ctx.worker = (sink.api, sink.method, False)  # a forked child has the kernel's names
    shown = ", ".join(f"`{name}`" for name in names[:3]) + (" ..." if len(names) > 3 else "")
    node = source.node
    what = "a lambda" if source.kind == LAMBDA else f"function `{node.name}`"
    how = (f"which ships it by value with dill, but not the notebook's {'name' if len(names) == 1 else 'names'} "
           f"it reads ({shown}): a spawned worker looks {'it' if len(names) == 1 else 'them'} up in its own "
           "`__main__` (NameError)")
    ctx.emit(rules.WSP206, node if source.kind == LAMBDA else _name_span(node), what=what, api=sink.api.label,
             role=_role(flow), where=_notebook_where(ctx, flow), how=how)
    return True


def _global_names_read(function: ast.AST, module_names) -> list[str]:
    """The names of *module_names* that the code of *function* reads (its nested functions' and lambdas' too: they
    share its globals), in the order of their first read; a name the function binds anywhere is left out."""
    body = function.body if isinstance(function.body, list) else [function.body]
    nodes = [node for part in body for node in ast.walk(part)]
    declared = {name for node in nodes if isinstance(node, ast.Global) for name in node.names}
    bound = {n.id for n in nodes if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    bound |= {n.arg for n in ast.walk(function.args) if isinstance(n, ast.arg)}
    bound |= {n.arg for n in nodes if isinstance(n, ast.arg)}
    bound |= {n.name for n in nodes if isinstance(n, (*FUNCTION_NODES, ast.ClassDef))}
    bound |= {n.name for n in nodes if isinstance(n, ast.ExceptHandler) and n.name}
    bound |= {(a.asname or a.name).partition(".")[0] for n in nodes if isinstance(n, (ast.Import, ast.ImportFrom))
              for a in n.names}
    loads = sorted((n for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)),
                   key=lambda n: (n.lineno, n.col_offset))
    out: list[str] = []
    for name in loads:
        if name.id in module_names and (name.id not in bound or name.id in declared) and name.id not in out:
            out.append(name.id)
    return out


# -- how a finding names things ------------------------------------------------------------------------------------
def _role(flow: Flow) -> str:
    role = _slot(flow)
    # (a value a function sent to workers reads from the functions around it travels with that function)
    return f"a value captured by {role}" if any(step.how == "closure" for step in flow.path) else role


def _slot(flow: Flow) -> str:
    """The payload slot of the sink the flow reaches: an argument of the worker API, or of a method it calls."""
    sink = flow.sink
    given = [step for step in flow.path if step.how == "callable"]
    if given and not any(step.how in _STORED for step in flow.path):
        name = given[-1].name
        if name == ".transform()":
            return "the dataset's transform"
        return f"an argument of `{name.partition(':')[2] or name}`"
    arg = sink.arg
    if (arg.keyword or arg.position is not None) and not arg.rest:  # (one of `submit(fn, *args)`: "an argument")
        role = arg.describe()
    else:
        role = "an argument"
    if sink.task and isinstance(sink.call, ast.Call) and isinstance(sink.call.func, ast.Attribute):
        written = dotted(sink.call.func) or f".{sink.call.func.attr}"
        role = ("the function" if arg.kind == "callable" else "an argument") + f" of `{written}()`"
    return role


def _api(ctx: Context, flow: Flow) -> str:
    """The worker API, where it is called when that is not the finding's own line, and the calls between."""
    sink = flow.sink
    label = sink.api.label
    here = ctx.engine.main.path
    line = getattr(sink.call, "lineno", 0)
    payload = _payload_node(flow)
    if sink.unit != here:
        label += f" in {_relative(ctx, sink.unit)}:{line}"
    elif line and not (payload is not None and getattr(payload, "lineno", 0) == getattr(flow.source.node, "lineno",
                                                                                        -1)):
        label += f" {'in' if ctx.notebook else 'at'} {ctx.line_ref(line)}"
    hops = [hop for hop in sink.hops if hop is not None]
    if hops:
        first = hops[0]
        where = ctx.line_ref(first.line) if first.unit == here else f"{_relative(ctx, first.unit)}:{first.line}"
        label += f" (through `{first.name}()` at {where})"
    return label


def _relative(ctx: Context, path: Optional[str]) -> str:
    """How a message names another module: from the checked file's folder when it is beside or below it, else
    from the project's root."""
    if path is None:
        return "?"
    here = ctx.engine.main.path
    if here is None:
        return os.path.basename(path)
    relative = os.path.relpath(path, os.path.dirname(here))
    if not relative.startswith(".."):
        return relative
    relative = os.path.relpath(path, ctx.project.root(here)) if ctx.project is not None else relative
    return relative if not relative.startswith("..") else os.path.basename(path)


def _chain(path: tuple) -> str:
    """`` (at `.transform.transforms[2]`)``: where the source sits in the object that keeps it (see
    :func:`_owner_name`); `` (in its `.map()` stage)`` for a pipeline's stage."""
    parts = []
    stage = None
    start = next((i for i, step in enumerate(path) if step.how in ("attr", "held") and step.owner is not None), 0)
    for step in path[start:]:
        if step.how == "attr":
            name = step.name.partition("#")[0].lstrip("+")  # (a store made after construction: ``+.x#id``)
            parts.append(name if name.startswith(".") else f".{name}")
        elif step.how in ("kept", "held"):
            owner = _owner_label(step.owner)
            library = str(step.owner.data if step.owner is not None else "")
            if library != "albumentations.Lambda":  # (which keeps its functions by target: `.image`, `.mask`)
                parts.append(_KEPT_AS.get(owner.strip("`"), ""))
        elif step.how == "item":
            parts.append(step.name if step.name not in ("[]", "[+]") else "[...]")
        elif step.how == "partial":
            parts.append(".func" if step.name == "func" else ".args")
        elif step.how == "closure":
            parts.append(f".<closure {step.name}>")
        elif _is_stage(step):
            stage = step.name.partition(":")[2]
    text = "".join(parts)
    text = text if text != "[...]" else ""
    if stage is not None:
        return f" (in its `{stage}` stage" + (f", at `{text}`)" if text else ")")
    return f" (at `{text}`)" if text else ""


def _is_stage(step: Step) -> bool:
    """Whether *step* is a pipeline's stage holding what it was given (``stage:.map()``)."""
    return step.how == "callable" and step.name.startswith(STAGE)


def _owner_name(stored: list[Step]) -> str:
    """The object that keeps the source: the outermost instance (or library object that is not a mere wrapper,
    such as a ``Subset``, or a pipeline that keeps its stages) that travels to the worker."""
    for step in stored:
        if (step.how in ("attr", "held") or _is_stage(step)) and step.owner is not None:
            return _owner_label(step.owner)
    return _owner_label(stored[-1].owner) if stored else "the object"


def _owner_label(owner: Optional[Obj]) -> str:
    if owner is None:
        return "the object"
    if owner.kind == INST:
        return f"`{owner.node.name}`"
    data = owner.data
    if isinstance(data, str) and data and data != "dataset":
        return f"`{data.rsplit('.', 1)[-1]}`"
    return "the dataset" if data == "dataset" else "the object"


def _remedy(ctx: Context, what: str) -> str:
    """What to do instead: in a notebook, a module-level definition is not enough (the kernel's `__main__` is
    what a worker cannot import)."""
    if ctx.notebook:
        return "define it in a `.py` module next to the notebook and import it"
    return {"function": "use a module-level function", "def": "define it at module level",
            "class": "define the class at module level",
            "stored": "store a module-level function (or an instance of a module-level class) instead"}[what]


def _notebook_where(ctx: Context, flow: Flow) -> str:
    sink = flow.sink
    line = getattr(sink.site.stmt, "lineno", 0)
    if sink.unit == ctx.engine.main.path:
        return ctx.line_ref(line)
    return f"{_relative(ctx, sink.unit)}:{line}"


def _payload_node(flow: Flow) -> Optional[ast.AST]:
    """The sink's argument expression, when the sink is in the checked module."""
    sink = flow.sink
    if not isinstance(sink.call, ast.Call):
        return None
    arg = sink.arg
    if arg.keyword:
        for keyword in sink.call.keywords:
            if keyword.arg == arg.keyword:
                return keyword.value
    if arg.position is not None and arg.position < len(sink.call.args):
        return sink.call.args[arg.position]
    return None


def _passed_node(ctx: Context, flow: Flow) -> Optional[ast.AST]:
    """Where a value passed as it is sits in the sink's argument: the item of a list or tuple written out that holds
    it (``args=[size, lengths, output_file]``: the open file, not the list, is what the user changes), else the
    argument (:func:`_payload_node`)."""
    payload = _payload_node(flow)
    path = flow.path
    if not isinstance(payload, (ast.List, ast.Tuple)) or len(path) != 1 or path[0].how != "item" or \
            path[0].owner is None or path[0].owner.node is not payload:
        return payload
    engine = ctx.engine
    scope = engine.scope_of_call(flow.sink.call, engine.main)
    if scope is None:
        return payload
    holding = [item for item in payload.elts if not isinstance(item, ast.Starred)
               and flow.source in engine.eval(item, engine.main, scope)]
    return holding[0] if len(holding) == 1 else payload


def _is_open(ctx: Context, obj: Obj) -> bool:
    node = obj.node
    if not isinstance(node, ast.Call) or obj.unit != ctx.engine.main.path:
        return False
    name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
    return name == "open" and ctx.resolver.qualname(node.func, ctx.index.module_scope) in ("builtins.open", "io.open")


def _class_of_store(ctx: Context, stmt: Optional[ast.stmt]) -> Optional[ast.ClassDef]:
    found = _method_of_store(ctx, stmt)
    return found[0] if found is not None else None


def _method_of_store(ctx: Context, stmt: Optional[ast.stmt]) -> Optional[tuple[ast.ClassDef, ast.AST]]:
    """The class of this module and its method whose code holds *stmt*, or None."""
    if stmt is None:
        return None
    for node, info in ctx.index.classes.items():
        for method in info.methods.values():
            if method.lineno <= stmt.lineno <= (method.end_lineno or method.lineno) and any(
                    child is stmt for child in ast.walk(method)):
                return node, method
    return None


def _name_span(node: ast.AST) -> ast.AST:
    """The ``def name``/``class name`` part of a definition (decorators and body left out)."""
    keyword = "class " if isinstance(node, ast.ClassDef) else "async def " if isinstance(node, ast.AsyncFunctionDef) \
        else "def "
    name_span = ast.Name(id=node.name)
    name_span.lineno = name_span.end_lineno = node.lineno
    name_span.col_offset = node.col_offset
    name_span.end_col_offset = node.col_offset + len(keyword) + len(node.name)
    return name_span


# -- a library's datasets, and classes a decorator replaces ----------------------------------------------------------
def _library_datasets(ctx: Context, reached: set) -> None:
    """A torch ``Dataset`` subclass that the project never instantiates (library code) goes to a DataLoader
    elsewhere: what its ``__init__`` keeps is checked as if it travelled."""
    engine = ctx.engine
    unit = engine.main
    candidates = [(node, info) for node, info in ctx.index.classes.items()
                  if id(node) not in reached and info.scope.kind == "module" and engine.is_torch_dataset(info, unit)]
    instantiated: Optional[set] = None
    for node, info in candidates:
        obj = Obj(INST, unit.path, node, None, ())
        if engine.has_state_hook(obj):
            continue
        sink = _any_loader_sink(ctx)
        found = [(Step("attr", attr, obj, store.stmt, store.unit), source, path)
                 for attr, held, store in engine.field_stores(obj) for source, path in engine.sources(held, sink)]
        if not found:
            continue
        # (whether the project instantiates the class is asked last: it evaluates every call of the module and of
        # those importing it, and most classes hold nothing that pickling would miss)
        if instantiated is None:
            instantiated = _instantiated(ctx)
        if id(node) in instantiated:
            continue
        for step, source, path in found:
            _library_source(ctx, source, (step, *path), obj)


def _any_loader_sink(ctx: Context):
    from ...spawn_apis import Arg
    from ..taint import SinkUse

    api = ctx.registry.by_key.get(_DATALOADER)
    site = next(iter(ctx.index.calls), (None, None))[1]
    return SinkUse(api, ctx.engine.main.path, None, site, Arg("dataset", 0), frozenset(), frozenset())


def _library_source(ctx: Context, source: Obj, path: tuple, owner: Obj) -> None:
    if source.unit != ctx.engine.main.path:
        return
    stored = [s for s in path if s.how in _STORED]
    if source.kind == RES:
        what: Unpicklable = source.data
        holder = stored[-1] if stored else None
        if holder is None or holder.stmt is None or holder.owner is not owner and holder.owner != owner:
            return
        call = source.node if _is_open(ctx, source) else None
        cls = _class_of_store(ctx, holder.stmt) or owner.node
        hint = {"open": span(call), "class": span(cls), "owner": span(owner.node), "others": []} if call else None
        ctx.emit(rules.WSP301, holder.stmt, line_only=True, attr=holder.name, what=what.what,
                 owner=owner.node.name, via=_ANY_LOADER, fix_hint=hint, fix_safety=None if call else FixSafety.NONE)
    elif source.kind == LAMBDA:
        ctx.emit(rules.WSP204, source.node, what="a lambda", owner=_owner_name(stored),
                 api="any `DataLoader` with `num_workers>0`", chain=_chain(path),
                 fix_hint={"lambda": span(source.node)}, remedy=_remedy(ctx, "stored"))
    elif source.kind == FUNC and ctx.engine.definition_kind(source) == "local":
        ctx.emit(rules.WSP204, source.node, line_only=True, what=f"local function `{source.node.name}`",
                 owner=_owner_name(stored), api="any `DataLoader` with `num_workers>0`",
                 chain=_chain(path), fix_hint={"def": span(source.node)}, remedy=_remedy(ctx, "stored"))


def _instantiated(ctx: Context) -> set:
    """Classes of this module that the module or a module importing it instantiates."""
    engine = ctx.engine
    out = set()
    units = [engine.main]
    if engine.main.path is not None:
        units += engine.importers(engine.main)
    for unit in units:
        for call, site in unit.index.calls:
            for obj in engine.eval(call.func, unit, site.scope) if isinstance(call.func, (ast.Name, ast.Attribute)) \
                    else ():
                if obj.kind == CLASS and obj.unit == engine.main.path:
                    out.add(id(obj.node))
    return out


def _replaced_classes(ctx: Context, reached: set) -> None:
    """A decorator replaces a class whose instances go to workers (a torch ``Dataset`` always may)."""
    engine = ctx.engine
    unit = engine.main
    replaced = [(node, info, decorator) for node, info in ctx.index.classes.items()
                if node.decorator_list and info.scope.kind == "module"
                and (decorator := engine._replacing_decorator(node, unit, info.scope)) is not None]
    if not replaced:
        return
    travelling = {id(f.source.node) for f in engine.module_facts(unit).flows if f.source.kind == INST and f.source.data
                  and f.source.data[0] == "replaced"}
    if unit.path is not None:
        for importer in engine.importers(unit):
            travelling |= {id(f.source.node) for f in engine.flows_of(importer) if f.source.kind == INST
                           and f.source.data and f.source.data[0] == "replaced" and f.source.unit == unit.path}
    for node, info, decorator in replaced:
        dataset = engine.is_torch_dataset(info, unit)
        if id(node) not in travelling and not dataset:
            continue
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = ctx.resolver.qualname(target, info.scope) or dotted(target) or "decorator"
        kind = "function" if name.startswith("torch.") else "cache wrapper" if name.startswith("functools.") \
            else "function"
        via = _ANY_LOADER if dataset and id(node) not in travelling else ""
        ctx.emit(rules.WSP205, decorator, decorator=_short(name) + ("()" if decorator is not target else ""),
                 cls=node.name, kind=kind, via=via)


def _short(name: str) -> str:
    return name.replace("torch.autograd.grad_mode.", "torch.").replace("torch.autograd.", "torch.")
