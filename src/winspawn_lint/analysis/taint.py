"""What reaches worker processes, across the project: one taint analysis every pickling check consumes.

The analysis follows values the way pickle does.  An expression's value is a set of abstract objects
(:class:`Obj`), each made at one place of the project: a lambda, a function, a class, an instance of a class of
the project (with the arguments its constructor got), an object of a library (with what it keeps of its
arguments), a container, a ``functools.partial``, an unpicklable resource, a constant.  Objects hold objects
(an instance's attributes, a container's items, a partial's function and arguments): pickling one pickles what
it holds, so a hazard is a *source* object reachable from a *sink*.

* **Sources**: lambdas; functions and classes defined inside functions; a notebook's top-level definitions (its
  kernel's ``__main__`` cannot be imported by a spawned worker); definitions made only under the main guard;
  unpicklable resources (open files, locks, lmdb/h5py handles, connections, generators); classes a decorator
  replaced.  They are data in :mod:`..spawn_apis` where they are library calls.
* **Sinks**: the payload slots of every worker API of the registry (a ``DataLoader``'s dataset and
  ``collate_fn``, ``Pool.map``'s function and iterable, a ``Process``'s target and arguments...), found where the
  API is called, on the objects it returns (``pool.map``), and in subclasses (``super().__init__``).
* **Summaries**: per function, computed once and reused by every caller in the project: what it returns, which
  sinks its parameters (or values made inside) reach and with which worker count, where it starts workers, and
  what it stores on the objects it is given (``self.x = ...``).  A parameter is a symbol (:data:`PARAM`) in a
  summary; a call substitutes the caller's arguments, so a lambda given to a helper in another module that
  passes it on to ``DataLoader(num_workers=4)`` reaches that sink, and a worker count that arrives through
  ``**kwargs`` is resolved where the call gives it.

A check of one module looks at the flows (:class:`Flow`) whose source is in that module; their sinks may be in
the module, in a function of another module it calls, or in a module that imports it (the project reader
finds those).  Everything is bounded -- the size of a value, the depth of nested objects, the number of
evaluation steps of a check (:data:`BUDGET`) -- and what is past a bound, or cannot be resolved, is unknown:
unknown values carry no source, so the checks stay silent rather than guess.
"""

from __future__ import annotations

import ast
import math
import operator
import os
from collections import deque
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Optional, Sequence

from ..io.compact_tree import node_class
from ..records import Record, Value
from ..spawn_apis import (ABSENT, BACKED_READERS, CLASS_REPLACING_DECORATORS, CONTEXT_FACTORIES, CONTEXT_KEYWORDS,
                          DATASET_TRANSFORM_KEYWORDS, DERIVED_RESOURCES, EAGER_HANDLE_CLASSES, GENERATOR,
                          ITERATING_CALLS, LOADER_HOOK_KEYWORDS, LOADER_HOOKS, MODULE_OBJECT, MP_SYNC_PRIMITIVES,
                          PICKLES_CLOSED, PIPELINE_METHODS, PIPELINE_ROOTS, PREPARING_METHODS, PROGRESS_BAR,
                          SETUP_HOOKS, THREAD_ONLY, TORCH_SHARED_STATE, UNPICKLABLE_CALLS, UNPICKLABLE_GLOBALS,
                          UNPICKLABLE_METHODS, Arg, Registry, SpawnAPI, Unpicklable, keeper, same_constant)
from .guards import is_main_guard, never_runs
from .heavy import heavy_by_default, heavy_loading
from .index import (FUNCTION_NODES, Binding, ClassInfo, Scope, Site, branch_paths, exclusive_branches, exits_before,
                    handler_alternatives, is_super, passes_true, tried_first)
from .scopes import COMPREHENSIONS

if TYPE_CHECKING:
    from .names import Resolver
    from .project import Project, ProjectModule

#: Objects in one value; a larger value is cut (its sources may then be missed, never invented).
MAX_OBJECTS = 48
#: Objects nested in one another (an attribute of an item of a partial's argument ...).
MAX_NESTING = 10
#: Evaluation steps of one check (all units it looks at); past it every further value is unknown.
BUDGET = 60_000
#: Evaluations nested in one another (an expression inside an expression, a call's summary inside another's):
#: deeper is unknown, so a pathological file cannot exhaust the interpreter's stack.
MAX_EVAL_DEPTH = 60
#: Summaries computed inside one another (a callee's inside its caller's): a chain of calls deeper than this
#: is not followed.
MAX_CALL_DEPTH = 10
#: ``if``/``try`` statements nested in one another that are looked into for stores made on every path through
#: them; deeper nesting is taken not to store (so what was stored before it may remain).
MAX_BRANCH_DEPTH = 8
#: Calls of a function followed per function when a sink waits for its arguments.
MAX_CALLERS = 24
#: Importers (and their importers, ``IMPORTER_DEPTH`` levels) whose code is looked at for a module's sources.  A
#: worker count that waits for its callers makes the flow whole only in the script: from a dataset's base class
#: through the dataset, its factory and the loader object that keeps it, that is five imports (DeblurGAN's
#: ``base_dataset.py`` to ``test.py``; three found neither it nor ganimation_replicate's).
MAX_IMPORTERS = 48
IMPORTER_DEPTH = 5
#: Sinks, starts and stores one summary takes from the functions it calls (of each kind).
MAX_SUMMARY_ITEMS = 256
#: Modules one engine reads (the checked file's, or one that imports it, on its own): this bounds its work, and its
#: memory, as an engine keeps the trees it reads alive.  (96 cut off a script of lerobot that reads 128 before the
#: flow it starts a worker with.)
MAX_UNITS = 192
#: Bindings whose substitutions one engine keeps (:meth:`Engine.substitute`): a binding is used while its call is
#: applied, and the table is started again past this many.
MAX_SUBSTITUTED = 256
#: Values one engine keeps to hand out again instead of an identical one (:meth:`Engine._share`); past it the table
#: starts again, so what it keeps alive that nothing else holds stays small.
MAX_SHARED = 16_384

# Kinds of object.
LAMBDA, FUNC, CLASS, INST, EXT, EXTREF, EXTMOD, RES, SYNC, SEQ, DICT, PARTIAL, BOUND, WORKER, CONST = (
    "lambda", "func", "class", "inst", "ext", "extref", "extmod", "res", "sync", "seq", "dict", "partial", "bound",
    "worker", "const")
#: symbols of a summary: a parameter, an attribute of one, a keyword looked up in a ``**kwargs`` parameter, an
#: instance of the class a parameter holds (``cls(rows)`` in a classmethod, ``type(self)(rows)``), built with the
#: arguments of its call once a caller gives the class
PARAM, FIELD, KWGET, NEW, MODULE = "param", "field", "kwget", "new", "module"
#: a known library method called on a parameter (``ds.with_transform(f)`` of a parameter ``ds``): applied to what
#: a caller gives
MCALL = "mcall"
_SYMBOLS = (PARAM, FIELD, KWGET, NEW, MCALL)
#: the bindings of a name that another branch of an ``if`` may make instead (``if mode == "LR": from .lr import
#: LRDataset as D`` / ``else: from .hr import HRDataset as D``; ``def f(): ...`` / ``else: f = self.g``)
_BRANCH_BINDINGS = frozenset({"assign", "other", "import", "def", "class"})
#: the library names of :data:`THREAD_ONLY`'s objects, and the modules whose like-named classes are the process side
_THREAD_ONLY_NAMES = frozenset(name for name, made in UNPICKLABLE_CALLS.items() if made in THREAD_ONLY)
_PROCESS_MODULES = ("multiprocessing.", "torch.multiprocessing.", "multiprocess.")
#: the kinds of object a statement can store an attribute on (a parameter: on what its caller gives)
_MUTABLE = (INST, EXT, PARAM)
#: a parameter or, when the caller gives nothing usable, a default: ``fn or (lambda x: x)``, ``fn if fn is not None
#: else identity`` (parts "given" and "default"; what a caller gives decides which; data "given": a parameter a
#: `**kwargs` passed on may hold, whose default applies where the callers' dict lacks the key)
DEFAULTED = "defaulted"
#: kinds of object that are never None, and never false (no ``__bool__`` or ``__len__`` of their own)
_NOT_NONE = frozenset({LAMBDA, FUNC, CLASS, INST, EXT, RES, SYNC, SEQ, DICT, PARTIAL, BOUND, WORKER})
_TRUE = frozenset({LAMBDA, FUNC, CLASS, RES, SYNC, PARTIAL, BOUND, WORKER})
#: the attribute name of a FIELD that stands for an item of its base (``param[k]``): no identifier is spelled so
ITEM = "[]"
#: the kinds of object a walk from a sink looks at (:func:`_walked`)
_WALKED = frozenset({LAMBDA, FUNC, CLASS, INST, EXT, EXTMOD, MODULE, RES, SYNC, SEQ, DICT, PARTIAL, BOUND, DEFAULTED})

_OPEN_CALLS = frozenset({"builtins.open", "io.open"})
_COPIES = frozenset({"copy.copy", "copy.deepcopy"})
_STATE_HOOKS = frozenset({"__getstate__", "__reduce__", "__reduce_ex__"})
_TORCH_DATASET_BASES = frozenset({
    "torch.utils.data.Dataset", "torch.utils.data.IterableDataset", "torch.utils.data.dataset.Dataset",
    "torch.utils.data.dataset.IterableDataset", "torchvision.datasets.VisionDataset",
    "torchvision.datasets.vision.VisionDataset",
})
#: Methods that return their receiver (``torch.Generator().manual_seed(0)`` is the generator).
_RETURNS_SELF = frozenset({"manual_seed", "set_", "seed"})
#: HF `datasets` methods whose result keeps the receiver's format and transform.
_DERIVED_DATASET_METHODS = frozenset({"map", "filter", "select", "shuffle", "sort", "rename_column",
                                      "rename_columns", "remove_columns", "select_columns", "cast", "cast_column",
                                      "flatten", "with_format", "set_format", "flatten_indices", "shard", "take",
                                      "skip", "add_column", "class_encode_column", "train_test_split"})
_TRANSFORM_SETTERS = frozenset({"with_transform", "set_transform"})
#: MXNet Gluon datasets, and their methods that return a dataset keeping the receiver and the function given
#: (``ds.transform(fn)``, ``ds.transform_first(fn)``: a ``_LazyTransformDataset``, which a `gluon.data.DataLoader`
#: with workers pickles: measured with mxnet 1.9.1); GluonCV's datasets are Gluon's
_GLUON_DATASETS = ("mxnet.gluon.data.", "gluoncv.data.")
_GLUON_TRANSFORMS = frozenset({"transform", "transform_first"})
_GLUON_LAZY = "mxnet.gluon.data.dataset._LazyTransformDataset"
#: how a pipeline's part for a stage begins (``stage:.map()``: what the method that added it was given)
STAGE = "stage:"
#: the types of a constant whose truth an expression's test is known by (`if DEBUG`, `if 0`, `if None`)
_FOLDED_TESTS = frozenset({"bool", "int", "NoneType", "str"})
#: the methods that give back what they are given (:data:`PREPARING_METHODS`), whatever the class
_PREPARING_NAMES = frozenset().union(*PREPARING_METHODS.values())
_DEFERRED_METHODS = _RETURNS_SELF | _TRANSFORM_SETTERS | _DERIVED_DATASET_METHODS | PIPELINE_METHODS | frozenset(
    method for _, method in UNPICKLABLE_METHODS)
_ITERATING_BUILTINS = frozenset({"builtins.iter", "builtins.list", "builtins.next", "builtins.tuple",
                                 "builtins.enumerate", "builtins.sorted", "builtins.zip", "builtins.set",
                                 "builtins.sum", "builtins.any", "builtins.all"})
#: calls whose items :meth:`Engine._loop_items` knows, for an iterable of a worker API's arguments (``_passes``)
_ITEMS_MADE_BY = frozenset({"builtins.zip", "builtins.enumerate", "itertools.repeat"})
# (`from itertools import izip as zip` in a `try:` is Python 2 compatibility: under Python 3 it is the builtin)
_ITER_WRAPPERS = frozenset({"builtins.enumerate", "builtins.zip", "builtins.iter", "builtins.reversed", "tqdm",
                            "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "itertools.izip", "six.moves.zip",
                            "itertools.islice", "itertools.chain"})
#: The attribute names of :data:`UNPICKLABLE_GLOBALS` (a first test, before the dotted name is built).
_GLOBAL_ATTRS = frozenset(name.rsplit(".", 1)[1] for name in UNPICKLABLE_GLOBALS)
#: Progress bars that iterate what they wrap when they are iterated.
_PROGRESS_WRAPPERS = frozenset({"tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "rich.progress.track"})
_START_METHODS = frozenset({"spawn", "forkserver", "fork"})
#: library classes whose instances ``/`` joins into another instance of the class
_PATHS = frozenset({"pathlib.Path"})
_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b}


# ============================================================================ values


class Obj(Record):
    """An abstract object: made at *node* of the module at *unit* (a path; None for a library's or a constant).

    *data* says more by kind (a constant's value, a library name, a parameter's name, an API key, what makes a
    resource unpicklable); *parts* are the objects it holds, by name (``(".transform", value)``, ``("[]", ...)``).
    """

    # (`__hash`: the hash, found when first asked: an object is hashed again each time a set holding it is made,
    # half a million times in a check of pytorch-image-models; `__symbolic`: how deep in what it holds the
    # nearest symbol is, see _symbol_depth: whether it waits for a caller's arguments, see depends_on_parameters)
    __slots__ = ("kind", "unit", "node", "data", "parts", "__hash", "__symbolic")

    def __init__(self, kind: str, unit: Optional[str], node: Any = None, data: Any = None, parts: tuple = ()) -> None:
        self.kind = kind
        self.unit = unit
        self.node = node
        self.data = data
        self.parts = parts
        self.__hash = self.__symbolic = None

    def _key(self) -> tuple:
        return (self.kind, self.unit, id(self.node) if self.node is not None else None, self.data, self.parts)

    def __eq__(self, other: object) -> bool:
        return self is other or isinstance(other, Obj) and self._key() == other._key()

    def __hash__(self) -> int:
        found = self.__hash
        if found is None:
            found = self.__hash = hash(self._key())
        return found

    def holds_symbols(self) -> bool:
        """Whether something it holds (down to :data:`MAX_NESTING` levels) is a symbol."""
        return self.symbol_depth() <= MAX_NESTING

    def symbol_depth(self, recursion: int = 0) -> int:
        """How many levels below its parts the nearest symbol is (:func:`_symbol_depth`), found when first asked."""
        found = self.__symbolic
        if found is None:
            found = self.__symbolic = _symbol_depth(self, recursion)
        return found

    def part(self, name: str) -> "SVal":
        for key, value in self.parts:
            if key == name:
                return value
        return EMPTY

    def has_part(self, name: str) -> bool:
        """Whether it holds something under *name* (known or not: an unknown value is an empty set)."""
        return any(key == name for key, _ in self.parts)


SVal = frozenset  # frozenset[Obj]
EMPTY: frozenset = frozenset()


def _const(value: Any) -> Obj:
    return Obj(CONST, None, None, ("const", type(value).__name__, value) if _hashable(value) else ("const", "?", None))


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def const_value(obj: Obj) -> Any:
    return obj.data[2] if obj.kind == CONST else None


ABSENT_OBJ = Obj(CONST, None, None, ("absent", "", None))


def _cut(objects: Iterable[Obj]) -> frozenset:
    out = frozenset(objects)
    if len(out) > MAX_OBJECTS:
        out = frozenset(sorted(out, key=_order)[:MAX_OBJECTS])
    return out


def _field_of(obj: Obj, name: str) -> Obj:
    """The symbol of what *obj*, itself a symbol, holds under *name* (an attribute, ``[]`` an item, ``[0]`` the item
    at a place), found once a caller gives it."""
    return Obj(FIELD, obj.unit, None, name, (("base", frozenset({obj})),))


def _order(obj: Obj) -> tuple:
    node = obj.node
    return (obj.kind, obj.unit or "", getattr(node, "lineno", 0), getattr(node, "col_offset", 0), repr(obj.data))


# ============================================================================ units


class Unit(Record):
    """A module of the project as the analysis sees it (the checked text, or a file read by the project reader).
    Given a *reader* instead of a module, the module is read when first used (:meth:`Engine.unit`).  Given both,
    the module was read without being recorded: its content becomes a dependency when first used, and until
    then only how it binds the names asked (:meth:`import_bindings`)."""

    __slots__ = ("path", "_module", "notebook", "_guarded", "_reader")
    _fields = ("path", "notebook")

    def __init__(self, path: Optional[str], module: Optional[ProjectModule], notebook: bool = False,
                 _guarded: Optional[set] = None, reader: Optional["Project"] = None) -> None:
        self.path = path
        self._module = module
        self.notebook = notebook
        self._guarded = _guarded
        self._reader = reader

    @property
    def module(self) -> ProjectModule:
        """The module, whose content is a dependency of what is found from now on."""
        if self._reader is not None:
            if self._module is None:
                module = self._reader.module(self.path) if self.path is not None else None
                if module is None:  # (a snapshot's file does not change while it runs: it parsed when it was found)
                    raise RuntimeError(f"{self.path} no longer reads as the module it was")
                self._module = module
            else:
                self._reader.record(self.path)  # (read quietly until now: see import_bindings)
            self._reader = None
        assert self._module is not None, "a unit is given its module or a reader"
        return self._module

    def _quiet(self) -> Optional[ProjectModule]:
        """The module, when it was read quietly and nothing but bindings of names has been used of it."""
        return self._module if self._reader is not None else None

    def import_bindings(self, name: str) -> Optional[list[Binding]]:
        """The module-level bindings of *name* when each is an import (a name passed on: a package's
        ``__init__.py``), or when there is none; None when another statement binds it.  Of a module read quietly,
        only these bindings (or, with none, its star imports) are recorded as used (``Project.binding_used``): an
        edit elsewhere in it is not the asker's concern.  Whatever else is used of it (:attr:`module`,
        :attr:`index`, :attr:`resolver`) records all of it."""
        quiet = self._quiet()
        bindings = (quiet or self.module).index.module_scope.bindings.get(name, [])
        if any(binding.kind != "import" for binding in bindings):
            return None
        if quiet is not None:
            self._reader.binding_used(quiet, name)
        return bindings

    def star_imports(self) -> list[str]:
        """The modules it star-imports, asked for a name it does not bind (:meth:`import_bindings` said so, and
        recorded them)."""
        return (self._quiet() or self.module).index.module_scope.star_imports

    def names_resolver(self) -> "Resolver":
        """Its resolver, asked only of names whose bindings :meth:`import_bindings` gave (what a library name an
        import binds stands for)."""
        return (self._quiet() or self.module).resolver

    @property
    def index(self):
        return self.module.index

    @property
    def resolver(self):
        return self.module.resolver

    @property
    def key(self) -> Optional[str]:
        return self.path

    def guarded(self) -> set:
        """The module-level statements that run only under ``if __name__ == "__main__":``."""
        if self._guarded is None:
            found: set = set()
            for guard in self.index.main_guards:
                stack = list(guard.body)
                while stack:
                    stmt = stack.pop()
                    found.add(stmt)
                    if not isinstance(stmt, (*FUNCTION_NODES, ast.ClassDef)):
                        for name in ("body", "orelse", "finalbody", "handlers"):
                            for child in getattr(stmt, name, ()) or ():
                                stack.extend([child] if isinstance(child, ast.stmt) else getattr(child, "body", ()))
            self._guarded = found
        return self._guarded


class Hop(Record):
    """A call a value went through on its way to a sink: `name()` at *line* of the module at *unit*."""

    __slots__ = ("name", "unit", "line", "call", "site")

    def __init__(self, name: str, unit: Optional[str], line: int, call: Optional[ast.AST] = None,
                 site: Optional[Site] = None) -> None:
        self.name = name
        self.unit = unit
        self.line = line
        self.call = call
        self.site = site


class SinkUse(Record):
    """A worker API call that pickles *value* (its *arg*), in summaries symbolic in the function's parameters."""

    __slots__ = ("api", "unit", "call", "site", "arg", "value", "count", "task", "method", "hops", "via", "guards")

    def __init__(self, api: SpawnAPI, unit: Optional[str], call: ast.AST, site: Site, arg: Arg, value: frozenset,
                 count: frozenset, task: bool = False, method: Optional[str] = None, hops: tuple = (),
                 via: Optional[tuple[frozenset, str]] = None, guards: tuple = ()) -> None:
        self.api = api
        self.unit = unit
        self.call = call  # the call that sends it (the worker API's call, or the method call of a task)
        self.site = site
        self.arg = arg
        self.value = value
        self.count = count  # the worker count's value (ABSENT_OBJ when not given); EMPTY: unknown
        self.task = task
        self.method = method  # an explicit start method (get_context("spawn"))
        self.hops = hops
        #: how to read a count that travels as a constructor's keyword (Trainer(args=TrainingArguments(...)))
        self.via = via
        #: the tests around it still waiting for arguments, as a start's (:attr:`StartUse.guards`)
        self.guards = guards


class StartUse(Record):
    """A place that starts worker processes (in a summary: possibly only when a parameter is a worker object)."""

    __slots__ = ("api", "unit", "node", "site", "count", "method", "hops", "iterated", "via", "worker", "guards")

    def __init__(self, api: SpawnAPI, unit: Optional[str], node: ast.AST, site: Site, count: frozenset,
                 method: Optional[str] = None, hops: tuple = (), iterated: Optional[frozenset] = None,
                 via: Optional[tuple[frozenset, str]] = None, worker: Optional[Obj] = None,
                 guards: tuple = ()) -> None:
        self.api = api
        self.unit = unit
        self.node = node
        self.site = site
        self.count = count
        self.method = method
        self.hops = hops
        #: the iterated value when the start is an iteration of something that may be a worker object
        self.iterated = iterated
        self.via = via
        #: the worker object started, when the start is a method or an iteration of one (a ``DataLoader`` made
        #: at its constructor call, ``worker.node``)
        self.worker = worker
        #: the tests of the ``if`` statements around it that compare what a caller gives with a constant, as
        #: (value, operator, constant, whether it holds there): ``if max_workers > 1:`` (:meth:`Engine._guards_of`)
        self.guards = guards


class Store(Record):
    """``target.attr = value`` (``self.x = ...``): what a function stores on an object it was given; with *item*,
    ``target.attr[key] = value``, what it puts into the container held there (*item* names the part: ``"['k']"``
    for a constant key, ``"[]"`` for any other)."""

    __slots__ = ("target", "attr", "value", "stmt", "unit", "method", "item", "guards")

    def __init__(self, target: frozenset, attr: str, value: frozenset, stmt: ast.stmt, unit: Optional[str], method: str,
                 item: Optional[str] = None, guards: tuple = ()) -> None:
        self.target = target
        self.attr = attr
        self.value = value
        self.stmt = stmt
        self.unit = unit
        self.method = method  # the method whose code stores it (`__init__`, or a helper it calls)
        self.item = item
        #: the type tests around it that a caller's arguments decide (:meth:`Engine._type_guards`)
        self.guards = guards


class Summary(Record):
    __slots__ = ("returns", "sinks", "starts", "stores", "heavy", "off", "deferred", "_waits")

    def __init__(self, returns: frozenset = EMPTY, sinks: Optional[list] = None, starts: Optional[list] = None,
                 stores: Optional[list] = None, heavy: Optional[list] = None, off: Optional[Sequence] = None,
                 deferred: Optional[Sequence] = None, _waits: Optional[bool] = None) -> None:
        self.returns = returns
        self.sinks = sinks if sinks is not None else []
        self.starts = starts if starts is not None else []
        self.stores = stores if stores is not None else []
        self.heavy = heavy if heavy is not None else []  # HeavyUses: each call of the body that loads something heavy
        #: the calls of the body whose callee starts workers only behind a test that their arguments make false
        #: (``process_map(f, xs, max_workers=1)`` of a helper that starts a pool ``if max_workers > 1``)
        self.off = off if off is not None else ()  # (most summaries have none: a list is made for the first)
        #: the calls of a function a parameter holds (``get_loader_fn(cfg)`` of a factory a caller gives), as
        #: (the parameter's symbol, the call, its site, the unit's path): what the function does is the callers'
        self.deferred = deferred if deferred is not None else ()
        self._waits = _waits

    def waits_for_arguments(self) -> bool:
        """Whether a sink, start or store of the (finished) summary is in the function's parameters: only then
        does a call's binding of its arguments change what the call takes from it."""
        if self._waits is None:
            values = [v for sink in self.sinks for v in (sink.value, sink.count, sink.via[0] if sink.via else EMPTY)]
            values += [v for start in self.starts
                       for v in (start.count, start.iterated or EMPTY, start.via[0] if start.via else EMPTY,
                                 *(guard[0] for guard in start.guards))]
            values += [v for store in self.stores
                       for v in (store.target, store.value, *(guard[0] for guard in store.guards))]
            self._waits = bool(self.deferred) or any(depends_on_parameters(value) for value in values)
        return self._waits


class HeavyUse(Record):
    """Heavy loading (``analysis.heavy``) a call leads to: *what* it is, and the project calls on the way."""

    __slots__ = ("what", "hops", "when")

    def __init__(self, what: str, hops: tuple = (), when: tuple = ()) -> None:
        self.what = what
        self.hops = hops
        #: (parameter, default) of the function whose summary holds it: it loads only where a call leaves each of
        #: them to its default, or gives that constant (``def __init__(self, pretrained=True)``)
        self.when = when


class Step(Record):
    """One step from a sink's value to a source: how the source is held."""

    __slots__ = ("how", "name", "owner", "stmt", "unit")

    def __init__(self, how: str, name: str = "", owner: Optional[Obj] = None, stmt: Optional[ast.stmt] = None,
                 unit: Optional[str] = None) -> None:
        self.how = how  # "attr", "item", "partial", "closure", "kept", "self"
        self.name = name
        self.owner = owner  # the object that holds it
        self.stmt = stmt  # the statement that stored it (``self.x = ...``)
        self.unit = unit


class Flow(Record):
    """A source reaching a sink: the source object, how it is held, and the sink."""

    __slots__ = ("source", "path", "sink")

    def __init__(self, source: Obj, path: tuple, sink: SinkUse) -> None:
        self.source = source
        self.path = path  # Steps, outermost first
        self.sink = sink


class ModuleFacts(Record):
    """What an analysis of one module on its own finds (:meth:`Engine.module_facts`)."""

    __slots__ = ("flows", "starts", "heavy", "off")

    def __init__(self, flows: list[Flow], starts: list[StartUse], heavy: list[HeavyUse], off: tuple = ()) -> None:
        self.flows = flows
        #: the worker starts running the module's body leads to (:meth:`Engine.import_time_starts`)
        self.starts = starts
        #: the heavy calls its body makes at import time (:meth:`Engine.import_time_heavy_calls`)
        self.heavy = heavy
        #: the calls of its body that start no worker as their arguments make the callee's tests come out
        #: (:attr:`Summary.off`)
        self.off = off


# ============================================================================ the engine


class Engine:
    """The taint analysis of one check: the checked unit, the project's other modules, their summaries."""

    def __init__(self, project: "Project", registry: Registry, assume_workers: bool, main: Unit,
                 main_names_api: bool = False, main_text: Optional[str] = None) -> None:
        self.project = project
        self.registry = registry
        self.assume_workers = assume_workers
        self.main = main
        #: the checked text names a worker API (it may not be the file's: an editor's buffer, the fixer's rewrite)
        self.main_names_api = main_names_api
        #: the checked text when it may not be the file's (its imports may not be the file's either)
        self.main_text = main_text
        self.units: dict[str, Unit] = {}
        if main.path is not None:
            self.units[main.path] = main
        self.steps = 0
        self._depth = 0
        self._call_depth = 0
        #: the calls of a scope that give a name as an argument, and those of a function made on `name.attr`
        #: (:meth:`_argument_calls`, :meth:`_attribute_receiver_calls`), by the scope's (function's) node id
        self._calls_by_argument: dict[int, dict] = {}
        self._calls_by_receiver: dict[int, dict] = {}
        self._values: dict[int, frozenset] = {}  # by the id of a node, alive while the engine is
        #: values by the ids of the objects they hold, in their order (:meth:`_share`)
        self._shared: dict[int | tuple, frozenset] = {}
        #: values :meth:`substitute` returns as they are, by their id: (the value, what it returned)
        self._unchanged: dict[int, tuple[frozenset, frozenset]] = {}
        #: by the id of a binding: (the binding, its substitutions by the id of the value and the depth), see
        #: :meth:`substitute`
        self._substituted: dict[int, tuple[dict, dict]] = {}
        #: the uses of a method's first parameter that the engine made (:meth:`_self_name`), kept alive with it
        self._self_names: dict[tuple[Scope, int], ast.Name] = {}
        self._dunder_calls: dict[tuple[int, str], ast.Call] = {}  # (kept: see _dunder_call)
        self._partial_calls: dict[tuple[int, int], ast.Call] = {}  # (kept: see _partial_call)
        self._api_subclasses: dict[int, Optional[SpawnAPI]] = {}  # by the id of a class node
        self._tops: dict[int, frozenset[int]] = {}  # by the id of a function node: see _top_level
        self._globals: dict[tuple, frozenset] = {}
        self._fields: dict[Obj, list] = {}
        #: the instances whose attributes are being worked out -> what the stores so far gave, and the branch paths
        #: of their statements (:meth:`field_stores`)
        self._fielding: dict[Obj, tuple[list, dict]] = {}
        self._resolving: set[tuple] = set()
        self._evaluating: set[int] = set()
        self._summaries: dict[int, Summary] = {}
        self._summarizing: set[int] = set()
        #: the (call, instance) pairs of ``self.m()`` being worked out (:meth:`_dispatch`)
        self._dispatching: set[tuple[int, Obj]] = set()
        #: the instances whose iteration's starts are being worked out (:meth:`_instance_starts`)
        self._iterating: set[Obj] = set()
        self._captures: dict[int, tuple] = {}  # by the id of a local def: see _captured_parameters
        self._class_fields: dict[int, list] = {}
        self._chains: dict[int, list[tuple[ClassInfo, Unit]]] = {}  # id of a class -> class_chain
        self._unit_of_node: dict[int, Unit] = {}
        self._callers: Optional[dict[int, list]] = None
        self._own_facts: Optional[ModuleFacts] = None
        #: statements that stored on an object after it was made (``ds.transform = f``), by id
        #: a store made on an object after it was built, by its part's key (``+.attr#key``): (the statement, its
        #: module, and if it always runs before the use -- then it replaces what the attribute held -- the
        #: statement that always stores: the store itself, or the ``if`` or ``try`` whose every path stores)
        self._stores_by_key: dict[str, tuple[ast.stmt, Optional[str], Optional[ast.stmt]]] = {}
        self._object_methods = frozenset(method for api in registry.apis
                                         for method in (*api.start_methods, *api.method_payload))
        #: methods that start a subclass's instance and send it whole (``Process.start``)
        self._sending_methods = frozenset(method for api in registry.apis if api.sends_subclass
                                          for method in api.start_methods)
        self._object_words = tuple({name.rsplit(".", 1)[-1] for api in registry.apis if api.kind == "object"
                                    for name in api.names})

    # ------------------------------------------------------------------ units

    def unit(self, path: Optional[str], parses: bool = False) -> Optional[Unit]:
        """The unit of the module at *path* (None: past :data:`MAX_UNITS`, or no module there).  *parses*: the
        reader parsed it in this run (an importer :meth:`Project.importers_of` found), and a snapshot's file does
        not change while the run lasts: its module is read only when the unit is used (most importers' units are
        asked only for their kept facts, and reading each again was two fifths of the bytes a cold check of
        diffusers parsed)."""
        if path is None:
            return None
        found = self.units.get(path)  # (the paths of objects are the absolute ones the units are kept by)
        if found is not None:
            return found
        key = os.path.abspath(path)
        if self.main.path is not None and key == os.path.abspath(self.main.path):
            return self.main
        found = self.units.get(key)
        if found is None:
            if len(self.units) >= MAX_UNITS:
                return None  # (past the bound, another module is unknown: the engine keeps each one it reads alive)
            if parses and self.project.snapshot:
                found = self.units[key] = Unit(key, None, notebook=key.lower().endswith(".ipynb"), reader=self.project)
                return found
            if parses:  # (an importer: what it does is asked)
                module = self.project.module(key)
                if module is None:
                    return None
                found = self.units[key] = Unit(key, module, notebook=key.lower().endswith(".ipynb"))
                return found
            # (read quietly: a module asked only how it binds a name, a package's __init__.py passing names on, is
            # a dependency in those bindings only; see Unit.import_bindings)
            module = self.project.module(key, record=False)
            if module is None:
                self.project.record(key)  # (what was there, or that nothing was, is what the answer depends on)
                return None
            self.project.module_used(module)
            found = self.units[key] = Unit(key, module, notebook=key.lower().endswith(".ipynb"), reader=self.project)
        return found

    def _self_name(self, method: Scope, line: int) -> ast.Name:
        """A use of *method*'s first parameter (``self``) at *line*: one node per method and line, which the engine
        keeps, because :meth:`eval` keeps its answers by the node's id (a node freed after its use could leave its
        id, and its answer, to another)."""
        key = (method, line)
        node = self._self_names.get(key)
        if node is None:
            node = self._self_names[key] = ast.Name(id=_first_param(method.node), ctx=ast.Load(), lineno=line)
        return node

    def _iter_call(self, iterable: ast.expr) -> ast.Call:
        """``iterable.__iter__()``, the call a ``for`` loop makes (:meth:`_dunder_call`)."""
        return self._dunder_call(iterable, "__iter__")

    def _enter_call(self, manager: ast.expr) -> ast.Call:
        """``manager.__enter__()``, the call a ``with`` statement makes (:meth:`_dunder_call`)."""
        return self._dunder_call(manager, "__enter__")

    def _dunder_call(self, receiver: ast.expr, method: str) -> ast.Call:
        """``receiver.method()``, a call the language makes: one node per receiver and method, kept (as
        :meth:`_self_name`'s)."""
        key = (id(receiver), method)
        node = self._dunder_calls.get(key)
        if node is None:
            node = self._dunder_calls[key] = ast.copy_location(ast.Call(
                func=ast.copy_location(ast.Attribute(value=receiver, attr=method, ctx=ast.Load()), receiver),
                args=[], keywords=[]), receiver)
        return node

    def _tick(self) -> bool:
        self.steps += 1
        return self.steps <= BUDGET

    # ------------------------------------------------------------------ evaluation

    def eval(self, expr: Optional[ast.AST], unit: Unit, scope: Scope) -> frozenset:
        """The objects *expr* (in *scope* of *unit*) may evaluate to; EMPTY when unknown."""
        if expr is None or not self._tick():
            return EMPTY
        key = id(expr)
        cached = self._values.get(key)
        if cached is not None:
            return cached
        if key in self._evaluating or self._depth > MAX_EVAL_DEPTH:
            return EMPTY  # a value defined through itself, or nested past the bound: unknown
        self._evaluating.add(key)
        self._depth += 1
        try:
            value = self._share(_cut(self._eval(expr, unit, scope)))
        finally:
            self._evaluating.discard(key)
            self._depth -= 1
        self._values[key] = value
        return value

    def _eval(self, expr: ast.AST, unit: Unit, scope: Scope) -> Iterable[Obj]:
        kind = node_class(expr)
        if kind is ast.Constant:
            return {_const(expr.value)}
        if kind is ast.Name:
            return self._name(expr, unit, scope)
        if kind is ast.Lambda:
            return {Obj(LAMBDA, unit.path, expr)}
        if kind is ast.Attribute:
            return self._attribute(expr, unit, scope)
        if kind is ast.Call:
            return self._call(expr, unit, scope)
        if kind in (ast.List, ast.Tuple, ast.Set):
            items = []
            for index, element in enumerate(expr.elts):
                if isinstance(element, ast.Starred):
                    items.append(("[]", self._items(self.eval(element.value, unit, scope))))
                else:
                    items.append((f"[{index}]" if kind is not ast.Set else "[]", self.eval(element, unit, scope)))
            return {Obj(SEQ, unit.path, expr, None, _merge_parts(items))}
        if kind is ast.Dict:
            items = []
            for key_node, value in zip(expr.keys, expr.values):
                if key_node is None:
                    for obj in self.eval(value, unit, scope):
                        if obj.kind == DICT:
                            items.extend(obj.parts)
                        else:
                            items.append(("**", frozenset({obj})))
                elif isinstance(key_node, ast.Constant) and isinstance(key_node.value, str):
                    items.append((f"['{key_node.value}']", self.eval(value, unit, scope)))
                else:
                    items.append(("[]", self.eval(value, unit, scope)))
            return {Obj(DICT, unit.path, expr, None, _merge_parts(items))}
        if kind in (ast.ListComp, ast.SetComp):
            inner = unit.index.scope_of.get(expr, scope)
            return {Obj(SEQ, unit.path, expr, None, (("[]", self.eval(expr.elt, unit, inner)),))}
        if kind is ast.DictComp:
            inner = unit.index.scope_of.get(expr, scope)
            return {Obj(DICT, unit.path, expr, None, (("[]", self.eval(expr.value, unit, inner)),))}
        if kind is ast.GeneratorExp:
            return {Obj(RES, unit.path, expr, GENERATOR)}
        if kind is ast.IfExp:
            defaulted = self._defaulted(expr, unit, scope)
            if defaulted is not None:
                return defaulted
            test = self.eval(expr.test, unit, scope)
            if len(test) == 1:  # (`X if DEBUG else None` with `DEBUG = False`: one branch runs)
                (only,) = test
                if only.kind == CONST and only.data[0] == "const" and only.data[1] in _FOLDED_TESTS:
                    return self.eval(expr.body if const_value(only) else expr.orelse, unit, scope)
            return self.eval(expr.body, unit, scope) | self.eval(expr.orelse, unit, scope)
        if kind is ast.BoolOp:
            defaulted = self._defaulted(expr, unit, scope)
            if defaulted is not None:
                return defaulted
            out: set = set()
            for value in expr.values:
                out |= self.eval(value, unit, scope)
            return out
        if kind is ast.NamedExpr:
            return self.eval(expr.value, unit, scope)
        if kind is ast.Starred:
            return self.eval(expr.value, unit, scope)
        if kind is ast.Subscript:
            return self._subscript(expr, unit, scope)
        if kind is ast.UnaryOp and isinstance(expr.op, ast.USub):
            values = self.eval(expr.operand, unit, scope)
            return {_const(-const_value(o)) for o in values if _number(const_value(o))}
        if kind is ast.BinOp and isinstance(expr.op, ast.Div):  # (`Path(root) / "train"`: a path again)
            return {o for o in self.eval(expr.left, unit, scope) if o.kind == EXT and o.data in _PATHS}
        if kind is ast.BinOp and type(expr.op) in _BINOPS:
            left, right = self.eval(expr.left, unit, scope), self.eval(expr.right, unit, scope)
            if isinstance(expr.op, ast.Add) and any(o.kind == SEQ for o in left | right):
                return {self._concatenated(expr, left | right, unit)}
            out = set()
            for a in left:
                for b in right:
                    if _number(const_value(a)) and _number(const_value(b)):
                        try:
                            out.add(_const(_BINOPS[type(expr.op)](const_value(a), const_value(b))))
                        except ArithmeticError:
                            pass
            return out
        return EMPTY

    def _concatenated(self, expr: ast.BinOp, operands: frozenset, unit: Unit) -> Obj:
        """``[torch.from_numpy] + list(transforms)``: a list holding the items of both sides (a parameter's
        items while a caller has not given it)."""
        return Obj(SEQ, unit.path, expr, None, (("[]", self._elements(operands)),))

    def _elements(self, value: frozenset) -> frozenset:
        """What iterating *value* gives: the items of a container, and of a parameter the symbol of its items."""
        out = set(self._items(value))
        for obj in value:
            if obj.kind in _SYMBOLS:
                out |= self.attribute(obj, ITEM)
        return frozenset(out)

    def _items(self, value: frozenset) -> frozenset:
        out: set = set()
        for obj in value:
            for name, part in obj.parts:
                if obj.kind in (SEQ, DICT) and name.startswith("["):
                    out |= part
        return frozenset(out)

    def _subscript(self, expr: ast.Subscript, unit: Unit, scope: Scope) -> frozenset:
        index = expr.slice
        if unit.path is not None and isinstance(index, ast.Name) and index.id == "__name__" and \
                unit.resolver.qualname(expr.value, scope) == "sys.modules" and \
                unit.resolver.lookup("__name__", scope, getattr(index, "lineno", None)) is None:
            return frozenset({Obj(MODULE, unit.path, None, "project")})  # (the module itself)
        base = self.eval(expr.value, unit, scope)
        out: set = set()
        # (of a resource kept in an attribute, `self.h5["images"]`, the resource itself is what is reported)
        kept = isinstance(expr.value, ast.Attribute)
        for obj in base:
            derived = DERIVED_RESOURCES.get(obj.data) if obj.kind == RES and not kept else None
            if derived is not None and derived[1] and _names_a_key(index):
                out.add(Obj(RES, unit.path, expr, derived[2]))  # (`hf["images"]`: a dataset of the open file)
                continue
            if obj.kind == EXT and _is_hf_dataset(obj) and isinstance(index, ast.Constant) \
                    and isinstance(index.value, str):
                out.add(obj)  # a split of a `DatasetDict` (`ds["train"]`): the same kind of dataset
                continue
            if obj.kind in _SYMBOLS:  # an item of what a caller gives (`self.loaders[split]`, `make()[0]`)
                out.add(_field_of(obj, ITEM))
                continue
            if obj.kind not in (SEQ, DICT):
                continue
            if isinstance(index, ast.Constant) and isinstance(index.value, int) and obj.part(f"[{index.value}]"):
                out |= obj.part(f"[{index.value}]")
            elif isinstance(index, ast.Constant) and isinstance(index.value, str) and obj.part(f"['{index.value}']"):
                out |= obj.part(f"['{index.value}']")
            else:
                out |= self._items(frozenset({obj}))
        return frozenset(out)

    # -- names

    def _name(self, expr: ast.Name, unit: Unit, scope: Scope) -> frozenset:
        target = _comprehension_targets(unit).get(id(expr)) if unit.index.iterations else None
        if target is not None:  # (a comprehension's own variable: the index binds none)
            generator, position = target
            return self._loop_target(generator.iter, position, unit, scope)
        resolver = unit.resolver
        binding = _before_own_value(resolver.lookup(expr.id, scope, getattr(expr, "lineno", None)), expr)
        if binding is None:
            if unit.index.module_scope.star_imports:
                found = self._star_imported(expr.id, unit)
                if found:
                    return found
            name = resolver.qualname(expr, scope)  # a builtin
            return frozenset({Obj(EXTREF, None, None, name)}) if name else EMPTY
        out = set(self._binding(binding, unit))
        alternatives = self._alternatives(binding, expr, unit)
        for other in alternatives:
            out |= self._binding(other, unit)
        if alternatives and any(o.kind == EXTREF and o.data in _THREAD_ONLY_NAMES for o in out):
            out = _without_thread_alternative(out)
        # (what the scope stores on the name's object, or adds to its container, is looked for only when the value
        # holds an object it would change: `self` in a method is a parameter, and its every use once looked at
        # every `self.x = ...` of the method)
        # (a parameter too, but not a method's `self`: a caller's object gets what the function stores on it --
        # `env.render = lambda: ...` before `Process(args=(env,))`, or a helper's `patch(env)`)
        changes = self._mutations(expr, binding, unit) \
            if any(obj.kind in (INST, EXT) for obj in out) or _plain_parameter(binding) else []
        if changes:
            out = {self._mutated(obj, changes) if obj.kind in _MUTABLE else obj for obj in out}
        if any(obj.kind == INST for obj in out) and _all_receiver_calls(unit, binding.scope, expr.id):
            out = {self._mutated(obj, self._method_stores(obj, expr, binding, unit)) if obj.kind == INST else obj
                   for obj in out}
        if any(obj.kind == INST for obj in out):
            read = self._item_read_before(expr, binding, unit)
            if read is not None:
                out = {self._mutated(obj, self._opened_by_item(obj, read, unit)) if obj.kind == INST else obj
                       for obj in out}
        if not any(obj.kind in (SEQ, DICT) for obj in out):
            return frozenset(out)
        items, stores = self._item_mutations(expr, binding, unit)
        if items:
            out = {self._with_parts(obj, [("[+]", items)]) if obj.kind in (SEQ, DICT) else obj for obj in out}
        if any(obj.kind == DICT for obj in out):
            keys = self._key_mutations(expr, binding, unit, stores)
            if keys:
                out = {self._with_parts(obj, keys) if obj.kind == DICT else obj for obj in out}
        return frozenset(out)

    def _key_mutations(self, expr: ast.Name, binding: Binding, unit: Unit,
                       stores: list[tuple[ast.stmt, ast.expr, frozenset]]) -> list[tuple[str, frozenset]]:
        """The keys the name's scope sets on its dict before this use (``d["k"] = v``: *stores*, as
        :meth:`_item_mutations` found them; ``d.update(other)``, ``d.update(k=v)``), as parts; one set in a branch
        may also be absent, and a key that cannot be told makes the dict incomplete (``**``)."""
        line = getattr(expr, "lineno", None)
        scope = binding.scope
        if line is None or binding.kind not in ("assign", "other", "param"):
            return []
        out: list[tuple[str, frozenset]] = []

        def add(key: Optional[str], value: frozenset, stmt: ast.AST) -> None:
            if key is None:
                out.append(("**", EMPTY))
            else:
                always = _same_block(unit, binding.node, stmt, scope.node)
                out.append((f"['{key}']", value if always else value | {ABSENT_OBJ}))

        for stmt, index, value in stores:
            key = index.value if isinstance(index, ast.Constant) and isinstance(index.value, str) else None
            add(key, value, stmt)
        for call, site in _receiver_calls(unit, "update", scope, expr.id):
            if not binding.line <= call.lineno < line:
                continue
            stmt = site.stmt if site.stmt is not None else call
            for arg in call.args:
                for other in self.eval(arg, unit, scope) or {None}:
                    if other is None or other.kind != DICT or other.has_part("**"):
                        add(None, EMPTY, stmt)
                        continue
                    for name, part in other.parts:
                        if name.startswith("['"):
                            add(name[2:-2], part, stmt)
            for keyword in call.keywords:
                add(keyword.arg, self.eval(keyword.value, unit, scope), stmt)
        return out

    def _item_mutations(self, expr: ast.Name, binding: Binding, unit: Unit
                        ) -> tuple[frozenset, list[tuple[ast.stmt, frozenset]]]:
        """What the name's scope adds to its list or dict before this use: ``xs.append(x)``, ``xs.extend(ys)``,
        ``xs.insert(i, x)``, ``d[k] = v``; and the ``d[k] = v`` statements with their values (for
        :meth:`_key_mutations`: each value is evaluated once)."""
        line = getattr(expr, "lineno", None)
        scope = binding.scope
        if line is None or binding.kind not in ("assign", "other", "param"):
            return EMPTY, []
        out: set = set()
        stores: list[tuple[ast.stmt, ast.expr, frozenset]] = []
        for method in ("append", "extend", "insert"):
            for call, _ in _receiver_calls(unit, method, scope, expr.id):
                if not (binding.line <= call.lineno < line and call.args):
                    continue
                value = self.eval(call.args[-1], unit, scope)
                out |= self._items(value) if method == "extend" else value
        for stmt, _, value, index in _scope_item_stores(unit, scope, expr.id):
            if binding.line <= stmt.lineno < line:
                stores.append((stmt, index, self.eval(value, unit, scope)))
                out |= stores[-1][2]
        return frozenset(out), stores

    def _mutations(self, expr: ast.Name, binding: Binding, unit: Unit) -> list[tuple[str, frozenset]]:
        """What statements of the name's scope store on its object before this use: ``ds.transform = f``,
        ``setattr(ds, "transform", f)``, ``ds.set_transform(f)`` (parts to add to the object)."""
        line = getattr(expr, "lineno", None)
        scope = binding.scope
        if line is None or binding.kind not in ("assign", "with", "other", "param"):
            return []
        out = []
        stores = [(stmt, attr, value) for stmt, _, attr, value in _scope_stores(unit, scope, expr.id)
                  if binding.line <= stmt.lineno < line]
        twins: dict[str, set] = {}  # attribute -> the statements that store it
        for stmt, attr, _ in stores:
            twins.setdefault(attr, set()).add(stmt)
        for stmt, attr, value in stores:
            key = f"{unit.path}:{stmt.lineno}:{stmt.col_offset}"
            if _same_block(unit, binding.node, stmt, scope.node):
                always: Optional[ast.stmt] = stmt
            else:  # (then whether it always runs depends on where the use is: its key says so)
                always = _storing_statement(unit, binding.node, stmt, expr, scope.node, twins[attr])
                key += "|always" if always is not None else ""
            self._stores_by_key[key] = (stmt, unit.path, always)
            out.append((f"+.{attr}#{key}", self.eval(value, unit, scope)))
        for call, _ in _receiver_calls(unit, "set_transform", scope, expr.id):
            if binding.line <= call.lineno < line and call.args:
                out.append((".transform()", self.eval(call.args[0], unit, scope)))
        for call, site in self._argument_calls(unit, scope, expr.id):
            if binding.line <= call.lineno < line:
                out += self._helper_stores(call, expr.id, site, unit)
        return out

    def _argument_calls(self, unit: Unit, scope: Scope, name: str) -> list[tuple[ast.Call, Site]]:
        """The calls made in *scope*'s own code that give the name itself as an argument (``patch(env)``,
        ``patch(obj=env)``), in the module's order (grouped once per scope asked, by this engine: a module-wide
        index kept with the module held megabytes over a run of diffusers)."""
        grouped = self._calls_by_argument.get(id(scope.node))
        if grouped is None:
            grouped = self._calls_by_argument[id(scope.node)] = {}
            for call, site in _calls_of(unit, scope.node if scope.is_function else unit.index.tree):
                if site.scope is not scope:
                    continue
                for value in [*call.args, *(keyword.value for keyword in call.keywords if keyword.arg)]:
                    if isinstance(value, ast.Name):
                        calls = grouped.setdefault(value.id, [])
                        if not calls or calls[-1][0] is not call:
                            calls.append((call, site))
        return grouped.get(name, [])

    def _attribute_receiver_calls(self, unit: Unit, function: ast.AST, name: str, attr: str
                                  ) -> list[tuple[ast.Call, Site]]:
        """The method calls ``name.attr.anything(...)`` that *function*'s own code makes (a module's body for its
        tree), in the module's order (grouped once per function asked, by this engine)."""
        grouped = self._calls_by_receiver.get(id(function))
        if grouped is None:
            grouped = self._calls_by_receiver[id(function)] = {}
            for call, site in _calls_of(unit, function):
                receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
                if isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name):
                    grouped.setdefault((receiver.value.id, receiver.attr), []).append((call, site))
        return grouped.get((name, attr), [])

    def _helper_stores(self, call: ast.Call, name: str, site: Site, unit: Unit) -> list[tuple[str, frozenset]]:
        """What a project function given the name's object stores on it (``patch_render(env)``, whose
        ``env.render = render`` is then on the object), as :meth:`_mutations`' parts, each said to be stored where
        the function stores it (a possibility: it may store in a branch)."""
        out = []
        for callee in self.eval(call.func, unit, site.scope):
            owner = self._unit_for(callee) if callee.kind in (FUNC, BOUND) else None
            if owner is None or not isinstance(callee.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            method = callee.kind == BOUND and not _decorated(callee.node, "staticmethod")
            params = _parameters_given(callee.node, call, name, skip_self=method)
            stores = [store for store in self.summary(callee.node, owner).stores if store.item is None and any(
                t.kind == PARAM and t.node is callee.node and t.data in params for t in store.target)] if params else []
            if not stores:
                continue
            arguments = self._bind_method(callee, owner, call, unit, site.scope) if method else \
                self.bind(callee.node, owner, call, unit, site.scope)
            out += [self._store_part(store, call, unit, self.substitute(store.value, arguments)) for store in stores]
        return out

    def _with_parts(self, obj: Obj, parts: list[tuple[str, frozenset]]) -> Obj:
        return Obj(obj.kind, obj.unit, obj.node, obj.data, _merge_parts([*obj.parts, *parts]))

    def _method_stores(self, obj: Obj, expr: ast.Name, binding: Binding, unit: Unit) -> list[tuple[str, frozenset]]:
        """What the methods called on the name's instance before this use store on it: ``trainer.setup()``, whose
        ``self.network = Net()`` is then on the trainer (parts to add, each said to be stored where the method
        stores it)."""
        line = getattr(expr, "lineno", None)
        if line is None:
            return []
        out = []
        for call, site in _all_receiver_calls(unit, binding.scope, expr.id):
            if binding.line <= call.lineno < line:
                out += self._receiver_stores(obj, call, unit, site.scope)
        return out

    def _receiver_stores(self, obj: Obj, call: ast.Call, unit: Unit, scope: Scope) -> list[tuple[str, frozenset]]:
        """What ``x.method(...)`` stores on *obj*, the instance ``x`` holds, when the method is the project's."""
        out = []
        for method in self.attribute(obj, call.func.attr, unit):
            owner = self._unit_for(method) if method.kind == BOUND else None
            if owner is not None:
                out += self._stores_of_call(method, owner, call, unit, scope)
        return out

    def _set_up_after(self, stored: frozenset, stmt: ast.stmt, name: str, attr: str, function: ast.AST, unit: Unit,
                      before: Optional[int] = None) -> frozenset:
        """An instance stored as ``name.attr`` with what the methods the function then calls on it (before line
        *before*, if given) store on it: ``self.service = Service(path); self.service.connect()``, whose
        ``self.conn = sqlite3.connect(...)`` is then on the service (ARElight's `SQLite3Service`)."""
        changes = []
        for call, site in self._attribute_receiver_calls(unit, function, name, attr):
            if stmt.lineno < call.lineno and (before is None or call.lineno < before):
                for obj in (o for o in stored if o.kind == INST):
                    changes += self._receiver_stores(obj, call, unit, site.scope)
        if not changes:
            return stored
        return frozenset(self._mutated(o, changes) if o.kind == INST else o for o in stored)

    def _stores_of_call(self, method: Obj, owner: Unit, call: ast.Call, unit: Unit, scope: Scope
                        ) -> list[tuple[str, frozenset]]:
        """What a call of the project method *method* (a BOUND) stores on its receiver, as parts to add to it
        (each said to be stored where the method stores it): ``trainer.setup()``, ``Pipe().map(f)`` whose
        ``self.stages.append(f)`` puts *f* in a list of its own.  The method's own stores and those of the
        ``super()`` methods of its name: what the other methods it calls store, they may undo (SOFA's
        ``get_wav_lengths()`` opens its h5py file through one helper and closes it through another)."""
        mine = [store for store in self._self_stores(method.node, owner) if store.method == method.node.name]
        if not mine:
            return []
        arguments = self._bind_method(method, owner, call, unit, scope)
        out = []
        for store in mine:
            value = self.substitute(store.value, arguments)
            if store.item is not None:
                value = frozenset({Obj(DICT, store.unit, store.stmt, None, ((store.item, value),))})
            out.append(self._store_part(store, call, unit, value))
        return out

    def _store_part(self, store: Store, call: ast.Call, unit: Unit, value: frozenset) -> tuple[str, frozenset]:
        """A store a function or method that *call* runs makes on an object, as a part to add to it (a
        possibility: the callee may store in a branch), said to be stored where the callee stores it."""
        key = f"{unit.path}:{call.lineno}:{call.col_offset}>{store.unit}:{store.stmt.lineno}"
        self._stores_by_key[key] = (store.stmt, store.unit, None)
        return f"+.{store.attr}#{key}", value

    def _mutated(self, obj: Obj, changes: list[tuple[str, frozenset]]) -> Obj:
        """*obj* after the stores *changes* (in statement order): a store that always runs replaces what earlier
        stores after construction put in that attribute (``config.num_workers = 0`` after the factory's
        ``C.num_workers = 4``), but not its twins in the other branches of the ``if`` that always stores; one in
        a branch adds a possibility."""
        parts = list(obj.parts)
        for name, value in changes:
            attr, _, key = name[2:].partition("#") if name.startswith("+.") else ("", "", "")
            _, path, always = self._stores_by_key.get(key, (None, None, None)) if attr else (None, None, None)
            if always is not None:
                parts = [part for part in parts if not part[0].startswith(f"+.{attr}#")
                         or self._stored_inside(part[0].partition("#")[2], always, path)]
            parts.append((name, value))
        # (merging copies each part: a substitution mutates the objects of each store it binds anew)
        return Obj(obj.kind, obj.unit, obj.node, obj.data,
                   tuple((name, self._share(value)) for name, value in _merge_parts(parts)))

    def _stored_inside(self, key: str, statement: ast.stmt, path: Optional[str]) -> bool:
        """Whether the store with this key is inside *statement* (of the module *path*)."""
        stmt, stmt_path, _ = self._stores_by_key.get(key, (None, None, None))
        return stmt is not None and stmt_path == path and stmt is not statement and _inside(stmt, statement)

    def _alternatives(self, chosen: Binding, expr: ast.Name, unit: Unit) -> list:
        """Bindings made in other branches of an ``if`` than *chosen* (``ds = A()`` / ``else: ds = B()``), and the
        one before an ``if`` that may not run *chosen* (``def __init__(self, transform): if self.train: ... else:
        transform = None``: the parameter still reaches a use after the ``if`` when the other branch runs)."""
        if chosen.kind not in _BRANCH_BINDINGS:
            return []
        line = getattr(expr, "lineno", None)
        bindings = chosen.scope.bindings.get(chosen.name, ())
        others = [b for b in bindings if b is not chosen and b.kind in _BRANCH_BINDINGS and b.kind != "other"
                  and (b.value is not None or b.kind != "assign") and (line is None or b.line <= line)]
        parameter = any(b.kind == "param" for b in bindings)
        if not others and not parameter:
            return []  # (most names: the scope's branch paths, kept on it once found, are not needed)
        paths = branch_paths(chosen.scope)
        mine = paths.get(chosen.node)
        if mine is None:
            return []
        # (a value assigned in a `try` and again in its handler: either may be the one the use sees; an import's
        # fallback is not, see `tried_first`)
        found = [b for b in others if b.node in paths and (exclusive_branches(mine, paths[b.node]) or (
            chosen.kind == b.kind == "assign" and handler_alternatives(mine, paths[b.node])))]
        if found or line is None:
            return found
        # The outermost `if` around *chosen* that the use is not inside: when no other branch of it binds the name,
        # what the name held before it reaches the use too, when the branch does not run (a parameter: what a
        # caller gives; `num_workers = args.workers` before `if os.name == "nt": num_workers = 0`).
        branch = next((stmt for stmt, _ in mine if isinstance(stmt, ast.If)
                       and not stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno)), None)
        if branch is None:
            return []
        before = [b for b in bindings if b.line < branch.lineno]
        return before[-1:] if before and (before[-1].kind == "param" or before[-1].kind == "assign"
                                          and before[-1].value is not None) else []

    def _binding(self, binding: Binding, unit: Unit) -> frozenset:
        kind = binding.kind
        if kind == "assign":
            return self.eval(binding.value, unit, binding.scope)
        if kind == "with":
            return self._entered(binding.value, unit, binding.scope)
        if kind == "param":
            function = binding.scope.node
            return frozenset({Obj(PARAM, unit.path, function, binding.name)})
        if kind == "def":
            return frozenset({self._definition(binding, unit)})
        if kind == "class":
            return self._class_value(binding, unit)
        if kind == "import":
            return self._imported(binding, unit)
        if kind == "other" and isinstance(binding.node, ast.AugAssign):
            return self._augmented(binding, unit)
        if kind == "other" or kind == "for":
            return self._unpacked(binding, unit)
        return EMPTY

    def _entered(self, manager: ast.expr, unit: Unit, scope: Scope) -> frozenset:
        """What ``with manager as name:`` binds, ``manager.__enter__()``: for an instance of a project class with
        its own ``__enter__``, what that returns, with what it stored on the instance (``self.fh = open(path)``
        and ``return self``); a library's context manager is taken to give itself (a file, an h5py file, a pool)."""
        value = self.eval(manager, unit, scope)
        if not any(obj.kind == INST for obj in value):
            return value
        out: set = set()
        for obj in value:
            entered = [bound for bound in self.attribute(obj, "__enter__", unit) if bound.kind == BOUND] \
                if obj.kind == INST else []
            if not entered:
                out.add(obj)
            for bound in entered:
                out |= self.apply(bound, self._enter_call(manager), unit, scope)
        return _cut(out)

    def _augmented(self, binding: Binding, unit: Unit) -> frozenset:
        """``xs += [x]``: the list the name held before, holding the items added (a number or anything else that
        ``+=`` makes anew is unknown)."""
        node = binding.node
        if not isinstance(node.op, ast.Add) or not isinstance(node.target, ast.Name) or not self._tick():
            return EMPTY
        bindings = binding.scope.bindings.get(binding.name, [])
        position = next((i for i, b in enumerate(bindings) if b is binding), 0)
        before = self._binding(bindings[position - 1], unit) if position > 0 else EMPTY
        if not any(obj.kind == SEQ for obj in before):
            return EMPTY
        # (with what was appended to it in between: `ts = []; ts.append(Lambda(...)); ts += [ToTensor()]`)
        appended, _ = self._item_mutations(node.target, bindings[position - 1], unit)
        added = self._items(self.eval(node.value, unit, binding.scope)) | appended
        return frozenset(self._with_parts(obj, [("[]", added)]) for obj in before if obj.kind == SEQ)

    def _definition(self, binding: Binding, unit: Unit) -> Obj:
        """A def's function; a local one holds the parameters of the functions around it that its body reads
        (``closure:NAME``), which a call of those functions binds: what it captures travels with it once it is
        made picklable (``Pool(n, worker_step)`` where ``worker_step`` calls the ``func`` its maker was given)."""
        captured = self._captured_parameters(binding.node, unit) if binding.scope.is_function else ()
        return Obj(FUNC, unit.path, binding.node, None, captured)

    def _captured_parameters(self, function: ast.AST, unit: Unit) -> tuple:
        key = id(function)
        found = self._captures.get(key)
        if found is None:
            own = unit.index.scope_of.get(function)
            out = {name: frozenset({Obj(PARAM, unit.path, bound.scope.node, name)})
                   for name, bound in (_enclosing_bindings([function], own, unit) if own is not None else ())
                   if bound.kind == "param" and bound.scope.node is not function
                   and not _is_receiver(bound.scope, name)}
            found = self._captures[key] = tuple((f"closure:{name}", value) for name, value in sorted(out.items()))
        return found

    def _class_value(self, binding: Binding, unit: Unit) -> frozenset:
        node = binding.node
        replaced = self._replacing_decorator(node, unit, binding.scope)
        if replaced is not None:
            # the name holds what the decorator returned; its instances still pickle as the class's
            return frozenset({Obj(CLASS, unit.path, node, ("replaced", replaced))})
        return frozenset({Obj(CLASS, unit.path, node)})

    def _replacing_decorator(self, node: ast.ClassDef, unit: Unit, scope: Scope) -> Optional[ast.AST]:
        """The decorator that replaces class *node* with a function or wrapper, if one does."""
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            name = unit.resolver.qualname(target, scope)
            if name in CLASS_REPLACING_DECORATORS:
                return decorator
            for obj in self.eval(decorator, unit, scope):
                if obj.kind != FUNC:
                    continue
                owner = self._unit_for(obj)
                if owner is None:
                    continue
                returned = self.summary(obj.node, owner).returns
                if returned and all(r.kind in (FUNC, LAMBDA) for r in returned) and \
                        not any(r.kind == PARAM for r in returned):
                    return decorator
        return None

    def _imported(self, binding: Binding, unit: Unit) -> frozenset:
        """What an import binding names: a value of a project module, or a library's name."""
        qualname = binding.qualname or ""
        found = self.project_target(binding, unit)
        if found is not None:
            target_unit, name = found
            if name is None:
                return frozenset({Obj(MODULE, target_unit.path, None, "project")})
            return self._global(target_unit, name)
        name = unit.names_resolver().name_qualname(binding.name, binding.scope, binding.line)
        # `import numpy as np` binds a module; `from x import y` may bind anything
        kind = EXTMOD if isinstance(binding.node, ast.Import) else EXTREF
        return frozenset({Obj(kind, None, None, name or qualname.lstrip("."))})

    def project_target(self, binding: Binding, unit: Unit) -> Optional[tuple[Unit, Optional[str]]]:
        """For an import binding: (the project module, the name in it, or None for the module itself)."""
        if unit.path is None:
            return None
        search = self.project.imports
        node = binding.node
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                if bound != binding.name:
                    continue
                dotted = alias.name if alias.asname else alias.name.split(".")[0]
                path = search.module_file(unit.path, dotted)
                target = self.unit(path) if path else None
                return (target, None) if target is not None else None
            return None
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name) != binding.name:
                    continue
                # `from pkg import mod` may name a module of the package, or a name its __init__ defines; a folder
                # without __init__.py (a namespace package) has only its modules
                if not (node.module or node.level):
                    return None
                path = search.module_file(unit.path, node.module or "", node.level)
                sub = search.module_file(unit.path, f"{node.module}.{alias.name}" if node.module else alias.name,
                                         node.level)
                if path is None:
                    target = self.unit(sub) if sub is not None else None
                    return (target, None) if target is not None else None
                owner = self.unit(path)
                # (a package's `__init__` importing its own submodule, `from pkg import wrappers`, binds the name
                # by this very statement: the submodule is what it gets; one that star-imports a module binding the
                # name, `from .train import *` in `engine/__init__.py`, rebinds it after the submodule's import:
                # `from engine import train` gets train.py's function `train`)
                if owner is not None and owner is not unit and (
                        _binds(owner, alias.name) or self._star_source(alias.name, owner) is not None):
                    return owner, alias.name
                if sub is not None:
                    target = self.unit(sub)
                    return (target, None) if target is not None else None
                return (owner, alias.name) if owner is not None else None
        return None

    def _global(self, unit: Unit, name: str) -> frozenset:
        """A module-level name of a project module (its last binding at import time); names re-exported in a
        circle, or through more modules than MAX_EVAL_DEPTH, are unknown."""
        key = (unit.path, name)
        found = self._globals.get(key)
        if found is not None:
            return found
        if key in self._resolving or self._depth > MAX_EVAL_DEPTH or not self._tick():
            return EMPTY
        self._resolving.add(key)
        self._depth += 1
        try:
            bindings = unit.import_bindings(name)
            if bindings is None:  # (bound by another statement: what the module's code makes of it)
                bindings = unit.index.module_scope.bindings[name]
            if not bindings:
                value = self._star_imported(name, unit) if unit.star_imports() else EMPTY
            else:
                value = self._binding(tried_first(bindings[-1]), unit)
        finally:
            self._resolving.discard(key)
            self._depth -= 1
        self._globals[key] = value
        return value

    def _star_imported(self, name: str, unit: Unit) -> frozenset:
        target = self._star_source(name, unit)
        if target is not None:
            return self._global(target, name)
        resolver = unit.names_resolver()
        qualname = resolver.name_qualname(name, resolver.index.module_scope)
        return frozenset({Obj(EXTREF, None, None, qualname)}) if qualname else EMPTY

    def _star_source(self, name: str, unit: Unit, depth: int = 0) -> Optional[Unit]:
        """The project module whose star import gives *unit* the name (the last that binds it, or that gives it
        by a star import of its own: crowd-count's ``from crowdcount.models import *``, whose ``__init__``
        star-imports each model's module), if one does."""
        for module in reversed(unit.star_imports()):
            level = len(module) - len(module.lstrip("."))
            path = self.project.imports.module_file(unit.path, module.lstrip("."), level) if unit.path else None
            target = self.unit(path) if path else None
            if target is None or target is unit:
                continue
            if _binds(target, name) or depth < MAX_STAR_CHAIN and target.star_imports() \
                    and self._star_source(name, target, depth + 1) is not None:
                return target
        return None

    def _unpacked(self, binding: Binding, unit: Unit) -> frozenset:
        """``a, b = value``: the item of *value* at the name's position (``(train, val), tokenizer = value``: the
        item of the item); ``for a, b in values:``, that of each of *values*' items."""
        stmt = binding.node
        if isinstance(stmt, (ast.For, ast.AsyncFor)):
            position = _target_position(stmt.target, binding.name)
            return self._loop_target(stmt.iter, position, unit, binding.scope) if position is not None else EMPTY
        if not isinstance(stmt, (ast.Assign, ast.AnnAssign)) or stmt.value is None:
            return EMPTY
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        for target in targets:
            position = _target_position(target, binding.name) if isinstance(target, (ast.Tuple, ast.List)) else None
            if position is not None:
                value = self.eval(stmt.value, unit, binding.scope)
                for index in position:
                    value = self._element(value, index)
                return value
        return EMPTY

    def _element(self, value: frozenset, index: int) -> frozenset:
        """The item at *index* of each object of *value* that is unpacked (``a, b = value``)."""
        out: set = set()
        for obj in value:
            if obj.kind == SEQ and obj.part(f"[{index}]"):
                out |= obj.part(f"[{index}]")
            elif obj.kind == SEQ:  # (an item of no known place: any of them, or of what was added to it)
                out |= obj.part("[]") | obj.part("[+]")
            elif obj.kind == EXT and (obj.data or "").endswith("random_split"):
                out.add(obj)  # each split keeps the dataset
            elif obj.kind in _SYMBOLS:  # (the item at that place of what a caller gives, or a method returns)
                out.add(_field_of(obj, f"[{index}]"))
        return frozenset(out)

    def _loop_target(self, iterable: ast.expr, position: tuple[int, ...], unit: Unit, scope: Scope) -> frozenset:
        """What ``for target in iterable`` binds to the name at *position* of its target (:func:`_target_position`)."""
        value = self._loop_items(iterable, unit, scope, len(position))
        for index in position:
            value = self._element(value, index)
        return value

    def _loop_items(self, iterable: ast.expr, unit: Unit, scope: Scope, depth: int) -> frozenset:
        """What each pass of ``for x in iterable:`` binds to ``x``: an item of a list, tuple or dict (its
        ``.values()``), the ``(key, item)`` pairs of ``d.items()`` and ``enumerate(xs)``, the tuples of
        ``zip(xs, ys)``, the object ``itertools.repeat(x)`` repeats, a generator expression's element; *depth*
        bounds how far pairs are built (the target's nesting)."""
        call = iterable if isinstance(iterable, ast.Call) and not iterable.keywords \
            and not any(isinstance(a, ast.Starred) for a in iterable.args) else None
        if call is not None and depth > 0:
            func = call.func
            if isinstance(func, ast.Attribute) and not call.args and func.attr in ("values", "items"):
                dicts = frozenset(o for o in self.eval(func.value, unit, scope) if o.kind == DICT)
                items = self._items(dicts)
                if func.attr == "values" or not items:
                    return items
                return frozenset({Obj(SEQ, unit.path, call, None, (("[1]", items),))})
            name = unit.resolver.qualname(func, scope)
            if name == "builtins.enumerate" and len(call.args) == 1:
                items = self._loop_items(call.args[0], unit, scope, depth - 1)
                return frozenset({Obj(SEQ, unit.path, call, None, (("[1]", items),))}) if items else EMPTY
            if name == "builtins.zip" and call.args:
                parts = [(f"[{i}]", self._loop_items(a, unit, scope, depth - 1)) for i, a in enumerate(call.args)]
                if any(part for _, part in parts):
                    return frozenset({Obj(SEQ, unit.path, call, None, tuple(p for p in parts if p[1]))})
                return EMPTY
            if name == "itertools.repeat" and len(call.args) in (1, 2):
                return self.eval(call.args[0], unit, scope)
        if isinstance(iterable, ast.GeneratorExp):
            return self.eval(iterable.elt, unit, unit.index.scope_of.get(iterable, scope))
        value = self.eval(iterable, unit, scope)
        # (an item of what a caller gives, as `_subscript` takes one: `for worker in self.workers: worker.start()`)
        symbolic = frozenset(_field_of(o, ITEM) for o in value
                             if o.kind in (PARAM, FIELD))
        return self._items(value) | symbolic

    # -- attributes

    def _attribute(self, expr: ast.Attribute, unit: Unit, scope: Scope) -> frozenset:
        base = self.eval(expr.value, unit, scope)
        if base and isinstance(expr.value, ast.Name) and all(o.kind == PARAM for o in base):
            stored = self._stored_before(expr, expr.value.id, unit, scope)
            if stored is not None:
                return stored
        out: set = set()
        for obj in base:
            if expr.attr in _GLOBAL_ATTRS and obj.kind in (EXTREF, EXTMOD) and \
                    f"{obj.data}.{expr.attr}" in UNPICKLABLE_GLOBALS:
                out.add(Obj(RES, unit.path, expr, UNPICKLABLE_GLOBALS[f"{obj.data}.{expr.attr}"]))
                continue
            out |= self.attribute(obj, expr.attr, unit)
        if not out:
            name = unit.resolver.qualname(expr, scope)
            if name and not any(o.kind in (INST, PARAM, FIELD, MODULE, CLASS) for o in base):
                out.add(Obj(EXTREF, None, None, name))
        return frozenset(out)

    def attribute(self, obj: Obj, attr: str, unit: Optional[Unit] = None) -> frozenset:
        kind = obj.kind
        if kind == MODULE:
            target = self.unit(obj.unit)
            if target is None:
                return EMPTY
            if attr in target.index.module_scope.bindings:
                return self._global(target, attr)
            if target.index.module_scope.star_imports:  # `from .transforms import *` in a package's __init__
                found = self._star_imported(attr, target)
                if found:
                    return found
            sub = self.project.imports.module_file(target.path, attr, 1) if target.path and \
                os.path.basename(target.path) == "__init__.py" else None
            sub_unit = self.unit(sub) if sub else None
            return frozenset({Obj(MODULE, sub_unit.path, None, "project")}) if sub_unit else EMPTY
        if kind in (EXTREF, EXTMOD):
            return frozenset({Obj(EXTREF, None, None, f"{obj.data}.{attr}")}) if obj.data else EMPTY
        if kind in (INST, CLASS):
            owner = self._unit_for(obj)
            if owner is None:
                return EMPTY
            info = owner.index.classes.get(obj.node)
            if info is None:
                return EMPTY
            for current, current_unit in self.class_chain(info, owner):
                method = current.methods.get(attr)
                if method is not None and kind == CLASS and not _decorated(method, "classmethod"):
                    # (a function read from the class: `Base.__init__(self, fn)` passes `self` itself)
                    return frozenset({Obj(FUNC, current_unit.path, method)})
                if method is not None:
                    return frozenset({Obj(BOUND, current_unit.path, method, attr, (("self", frozenset({obj})),))})
            if kind == INST:
                return self.fields(obj).get(attr, EMPTY)
            return self._registry(info, owner, attr)
        if attr.startswith("[") and attr[1:-1].isdigit():  # (the item at a place: `a, b = value` of a symbol)
            return self._element(frozenset({obj}), int(attr[1:-1]))
        if attr == ITEM:  # (the symbol of an item: what a container holds)
            return self._items(frozenset({obj})) if kind in (SEQ, DICT) else \
                frozenset({_field_of(obj, ITEM)}) if kind in _SYMBOLS \
                else EMPTY
        if kind in (PARAM, FIELD):
            method = self._own_method(obj, attr) if kind == PARAM else None
            # `self._open()` in a method: the class's own method, with this `self`; but a stub that subclasses
            # fill in (`raise NotImplementedError`) is the instance's class's to say (:meth:`_dispatched`)
            if method is not None and not _is_stub(method[0]):
                node, owner = method
                return frozenset({Obj(BOUND, owner.path, node, attr, (("self", frozenset({obj})),))})
            return frozenset({_field_of(obj, attr)})
        if kind == WORKER:  # (`DataLoader(loader.dataset, num_workers=loader.num_workers)`: what it was given)
            api = self.registry.by_key.get(obj.data)
            if api is not None and api.count is not None and attr == api.count.keyword:
                return self._worker_count(api, obj)  # (its default, when the call gives none)
            return obj.part(f"kw:{attr}")
        if kind == EXT:
            out = set(obj.part(f".{attr}"))
            for name, value in obj.parts:
                if name.startswith(f"+.{attr}#"):
                    out |= value
            return frozenset(out)
        return EMPTY

    def _own_method(self, param: Obj, attr: str) -> Optional[tuple[ast.AST, Unit]]:
        """For the first parameter of a method of a project class: the method *attr* of that class (or of a
        base of it), or None."""
        found = self._class_of_self(param)
        return self._method(found[0], found[1], attr) if found is not None else None

    def _class_of_self(self, param: Obj) -> Optional[tuple[ClassInfo, Unit]]:
        """The project class (and its unit) whose method *param* is the first parameter of, or None."""
        function = param.node
        owner = self._unit_for(param)
        if owner is None or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or \
                _is_static(function) or param.data != _first_param(function):
            return None
        scope = owner.index.scope_of.get(function)
        cls = scope.parent if scope is not None else None
        if cls is None or cls.kind != "class":
            return None
        info = owner.index.classes.get(cls.node)
        return (info, owner) if info is not None else None

    def _registry(self, info: ClassInfo, unit: Unit, attr: str) -> frozenset:
        """``Base.registry``, a dict that every class deriving from ``Base`` adds itself to when it is defined
        (``cls.registry[name] = cls`` in its metaclass's ``__init__``/``__new__`` or in ``__init_subclass__``:
        ProHMR's datasets): a dict holding those classes of the project, so ``Base.registry[cfg.TYPE](...)`` is an
        instance of any of them.  The classes are looked for in *unit* and the modules that import it (a subclass
        imports its base), bounded as those are; EMPTY when no such store fills *attr*."""
        if not any(self._adds_class(hook, attr) for hook in self._definition_hooks(info, unit)):
            return EMPTY
        found = []
        for candidate in [unit, *self.importers(unit)]:
            for node, other in candidate.index.classes.items():
                if node is not info.node and any(current.node is info.node
                                                 for current, _ in self.class_chain(other, candidate)):
                    found.append(Obj(CLASS, candidate.path, node))
        return frozenset({Obj(DICT, unit.path, info.node, None, (("[+]", _cut(found)),))}) if found else EMPTY

    def _definition_hooks(self, info: ClassInfo, unit: Unit) -> Iterator[ast.AST]:
        """The functions that run when a subclass of the class is defined: ``__init_subclass__`` of the class's
        chain, and ``__init__``/``__new__`` of its project metaclass."""
        for current, current_unit in self.class_chain(info, unit):
            if "__init_subclass__" in current.methods:
                yield current.methods["__init_subclass__"]
            for keyword in current.node.keywords:
                if keyword.arg != "metaclass":
                    continue
                for meta in self.eval(keyword.value, current_unit, current.scope):
                    meta_info = self.class_info(meta)[0] if meta.kind == CLASS else None
                    if meta_info is not None:
                        yield from (meta_info.methods[name] for name in ("__init__", "__new__")
                                    if name in meta_info.methods)

    @staticmethod
    def _adds_class(hook: ast.AST, attr: str) -> bool:
        """Whether *hook* stores its first parameter (the class being defined) as an item of ``<class>.<attr>``."""
        params = getattr(hook, "args", None)
        first = params.args[0].arg if params is not None and params.args else None
        for node in ast.walk(hook):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id == first:
                for target in node.targets:
                    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Attribute) \
                            and target.value.attr == attr:
                        return True
        return False

    def class_info(self, obj: Obj) -> tuple[Optional[ClassInfo], Optional[Unit]]:
        """The project class a class or instance object is of (None if the engine does not read it), and its unit."""
        owner = self._unit_for(obj)
        return (owner.index.classes.get(obj.node) if owner is not None else None), owner

    def _unit_for(self, obj: Obj) -> Optional[Unit]:
        return self.unit(obj.unit) if obj.unit is not None else (self.main if self.main.path is None else None)

    # -- calls

    def _call(self, call: ast.Call, unit: Unit, scope: Scope) -> frozenset:
        func = call.func
        if isinstance(func, ast.Attribute):
            method = func.attr
            receivers = self.eval(func.value, unit, scope)
            out = self._method_call(call, method, receivers, unit, scope)
            if out is not None:
                return out
        if isinstance(func, ast.Call) and len(func.args) == 1 and not func.keywords and \
                not isinstance(func.args[0], ast.Starred) and \
                unit.resolver.qualname(func.func, scope) == "builtins.type":  # `type(self)(...)`
            return self._new(call, self.eval(func.args[0], unit, scope), _TYPE_OF, unit, scope)
        if len(call.args) in (2, 3) and not call.keywords and isinstance(call.args[1], ast.Constant) and \
                isinstance(call.args[1].value, str) and not isinstance(call.args[0], ast.Starred) and \
                unit.resolver.qualname(func, scope) == "builtins.getattr":
            # `getattr(obj, "name")` (`getattr(sys.modules[__name__], "train_" + "ava")` is not: a name made at
            # run time), or the default when the object has no such attribute
            found = frozenset().union(*(self.attribute(obj, call.args[1].value, unit)
                                        for obj in self.eval(call.args[0], unit, scope)))
            return found | self.eval(call.args[2], unit, scope) if len(call.args) == 3 else found
        callees = self.eval(func, unit, scope)
        out: set = set()
        for callee in callees:
            if callee.kind == PARAM:
                how = _CLS if _decorated(callee.node, "classmethod") and callee.data == _first_param(callee.node) \
                    else None
                out |= self._new(call, frozenset({callee}), how, unit, scope)
            else:
                out |= self.apply(callee, call, unit, scope)
        if not callees and any(k.arg in DATASET_TRANSFORM_KEYWORDS for k in call.keywords):
            # A callee that cannot be told (``datasets.__dict__[name](root, transform=t)``): by convention what
            # is given a transform is a dataset, and keeps it.
            parts = [(_kept_as(k.arg), self.eval(k.value, unit, scope))
                     for k in call.keywords if k.arg in DATASET_TRANSFORM_KEYWORDS]
            out.add(Obj(EXT, unit.path, call, "dataset", _merge_parts(parts)))
        return frozenset(out)

    def _method_call(self, call: ast.Call, method: str, receivers: frozenset, unit: Unit,
                     scope: Scope) -> Optional[frozenset]:
        """Methods of library objects the analysis knows (None: an ordinary call of the attribute)."""
        out: set = set()
        known = False
        kept = isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Attribute)
        for obj in receivers:
            derived = DERIVED_RESOURCES.get(obj.data) if obj.kind == RES and not kept else None
            if derived is not None and method in derived[0]:
                out.add(Obj(RES, unit.path, call, derived[2]))  # (`env.begin()`, `hf.get("images")`)
                known = True
            elif obj.kind == EXT and (obj.data, method) in UNPICKLABLE_METHODS:
                out.add(Obj(RES, unit.path, call, UNPICKLABLE_METHODS[obj.data, method]))
                known = True
            elif obj.kind in (EXT, RES) and method in _RETURNS_SELF:
                out.add(obj)
                known = True
            elif method in _GLUON_TRANSFORMS and obj.kind in (EXT, INST) and self._gluon_dataset(obj):
                given = [*call.args[:1], *(k.value for k in call.keywords if k.arg == "fn")]
                fn = frozenset().union(*(self.eval(a, unit, scope) for a in given)) if given else EMPTY
                out.add(Obj(EXT, unit.path, call, _GLUON_LAZY,
                            _merge_parts([("._data", frozenset({obj})), ("._fn", fn)])))
                known = True
            elif obj.kind == EXT and method in _TRANSFORM_SETTERS:
                args = [*call.args[:1], *(k.value for k in call.keywords if k.arg == "transform")]
                added = frozenset().union(*(self.eval(a, unit, scope) for a in args)) if args else EMPTY
                out.add(Obj(EXT, obj.unit, call, obj.data, _merge_parts([*obj.parts, (".transform()", added)])))
                known = True
            elif obj.kind == EXT and method in PIPELINE_METHODS and obj.data in PIPELINE_ROOTS:
                values = [self.eval(a, unit, scope) for a in [*call.args, *(k.value for k in call.keywords)]]
                stage = frozenset().union(*values) if values else EMPTY
                out.add(Obj(EXT, obj.unit, call, obj.data, _merge_parts([*obj.parts, (f"{STAGE}.{method}()", stage)])))
                known = True
            elif obj.kind == EXT and method in _DERIVED_DATASET_METHODS and not _passes_keyword(call, "num_proc"):
                out.add(obj)
                known = True
            elif obj.kind == EXT and method in PREPARING_METHODS.get(obj.data, ()):
                out |= self._prepared(call, unit, scope)
                known = True
            elif obj.kind == FIELD and method in _PREPARING_NAMES and self._preparer_field(obj, method):
                out |= self._prepared(call, unit, scope)  # (`self.accelerator.prepare(dl)` in a trainer class)
                known = True
        symbolic = frozenset(o for o in receivers if o.kind in (PARAM, FIELD, MCALL))
        if symbolic and method in _DEFERRED_METHODS and all(o.kind in (PARAM, FIELD, MCALL, EXT, RES)
                                                            for o in receivers):
            out.add(Obj(MCALL, unit.path, call, method, (("base", symbolic),)))
            known = True
        return frozenset(out) if known else None

    def _preparer_field(self, field: Obj, method: str) -> bool:
        """Whether *field* is ``self.<attr>`` in a method of a project class whose methods assign that attribute
        only library objects whose *method* prepares what it is given (``self.accelerator = Accelerator(...)``):
        every value assigned must be one; a field assigned anything else, or nothing, is unknown."""
        bases = field.part("base")
        if len(bases) != 1:
            return False
        (param,) = bases
        found = self._class_of_self(param) if param.kind == PARAM else None
        if found is None:
            return False
        info, owner = found
        values = [self.eval(value, owner, method_scope) for assignments in info.self_assignments.values()
                  for attr, value, _, method_scope in assignments if attr == field.data]
        return bool(values) and all(value and all(o.kind == EXT and method in PREPARING_METHODS.get(o.data, ())
                                                  for o in value) for value in values)

    def _prepared(self, call: ast.Call, unit: Unit, scope: Scope) -> frozenset:
        """What a preparing method (:data:`PREPARING_METHODS`) gives back: its one argument, or a tuple of them."""
        if not call.args or any(isinstance(a, ast.Starred) for a in call.args):
            return EMPTY
        values = [self.eval(a, unit, scope) for a in call.args]
        if len(values) == 1:
            return values[0]
        return frozenset({Obj(SEQ, unit.path, call, None,
                              _merge_parts([(f"[{n}]", value) for n, value in enumerate(values)]))})

    def apply(self, callee: Obj, call: ast.Call, unit: Unit, scope: Scope) -> frozenset:
        """The value of calling *callee* at *call*."""
        kind = callee.kind
        if kind in (FUNC, LAMBDA):
            owner = self._unit_for(callee)
            if owner is None:
                return EMPTY
            if callee.node in owner.index.generator_functions:
                return frozenset({Obj(RES, unit.path, call, GENERATOR)})
            summary = self.summary(callee.node, owner)
            return self.substitute(summary.returns, self.bind(callee.node, owner, call, unit, scope))
        if kind == CLASS:
            api = self._api_subclass(callee)
            if api is not None:  # (`class Loader(DataLoader): pass`: built as the library's own)
                return frozenset({Obj(WORKER, unit.path, call, api.key, self._keyword_parts(call, unit, scope))})
            return self._instance(callee, call, unit, scope)
        if kind == BOUND:
            owner = self._unit_for(callee)
            if owner is None:
                return EMPTY
            binding = self._bind_method(callee, owner, call, unit, scope)
            returns = self.summary(callee.node, owner).returns
            returned = self.substitute(returns, binding)
            receivers = callee.part("self")
            if any(o.kind == PARAM and o.node is callee.node and o.data == _first_param(callee.node) for o in returns) \
                    and any(o.kind == INST for o in receivers & returned):
                # a method that returns its receiver (`Pipe().map(f).batch(4)`): what it stored on it comes along
                changes = self._stores_of_call(callee, owner, call, unit, scope)
                if changes:
                    returned = frozenset(self._mutated(o, changes) if o.kind == INST and o in receivers else o
                                         for o in returned)
            return returned
        if kind == EXTREF:
            return self._library_call(callee.data, call, unit, scope)
        if kind == FIELD and callee.data.isidentifier():
            bases = callee.part("base")
            if bases and all(b.kind == PARAM and self._class_of_self(b) is not None for b in bases):
                # `self.transforms()` in a method whose class leaves `transforms` to its subclasses (a stub, or
                # none): what the method of the class of the `self` a caller gives returns (:meth:`_deferred_method`)
                return frozenset({Obj(MCALL, unit.path, call, callee.data, (("base", bases),))})
        if kind == PARTIAL:
            made = self._partial_call(callee, call, unit, scope)
            if made is None:
                return EMPTY
            return frozenset().union(*(self.apply(f, made, unit, scope)
                                       for f in self.eval(made.func, unit, scope) if f.kind != PARTIAL))
        return EMPTY

    def _partial_call(self, callee: Obj, call: ast.Call, unit: Unit, scope: Scope) -> Optional[ast.Call]:
        """``make = partial(F, *a, **k)`` called as ``make(*b, **j)`` in the scope that made it: the call
        ``F(*a, *b, **k, **j)`` it makes (``partial(DataLoader, num_workers=4)(ds)``, ``partial(Dataset,
        transform=t)(rows)``), a node made here and kept by the engine; None when the partial was made elsewhere
        (its arguments are read in their own scope only)."""
        made = callee.node
        if callee.unit != unit.path or not isinstance(made, ast.Call) or not made.args or \
                isinstance(made.args[0], ast.Starred) or self.scope_of_call(made, unit) is not scope:
            return None
        key = (id(made), id(call))
        node = self._partial_calls.get(key)
        if node is None:
            given = {k.arg for k in call.keywords}
            node = self._partial_calls[key] = ast.copy_location(ast.Call(
                func=made.args[0], args=[*made.args[1:], *call.args],
                keywords=[*call.keywords, *(k for k in made.keywords if k.arg is None or k.arg not in given)]), call)
        return node

    def _instance(self, cls: Obj, call: ast.Call, unit: Unit, scope: Scope,
                  given: Optional[dict[int, frozenset]] = None) -> frozenset:
        """An instance of the project class *cls* made by *call*, holding what its ``__init__`` was given."""
        owner = self._unit_for(cls)
        if owner is None:
            return EMPTY
        info = owner.index.classes.get(cls.node)
        init = self._method(info, owner, "__init__") if info is not None else None
        binding = self.bind(init[0], init[1], call, unit, scope, skip_self=True, given=given) if init else {}
        parts = tuple(sorted(((f"@{name}", value) for name, value in binding.items()), key=lambda p: p[0]))
        return frozenset({Obj(INST, owner.path, cls.node, cls.data, parts)})

    def _new(self, call: ast.Call, classes: frozenset, how: Optional[str], unit: Unit, scope: Scope) -> frozenset:
        """*call* of a class a parameter holds (*how*: ``_CLS`` for a classmethod's ``cls``, ``_TYPE_OF`` for
        ``type(x)``, None for any other parameter): a NEW symbol carrying the call's arguments, or an instance
        where ``type(x)`` is of an instance already known."""
        out: set = set()
        symbolic = frozenset(o for o in classes if o.kind in _SYMBOLS)
        if symbolic:
            arguments = tuple((key, self.eval(expr, unit, scope)) for key, expr in _argument_keys(call))
            out.add(Obj(NEW, unit.path, call, how, (("class", symbolic), *arguments)))
        if how == _TYPE_OF:
            for obj in classes:
                if obj.kind == INST:
                    out |= self._instance(_class_of(obj), call, unit, scope)
        return frozenset(out)

    def _bind_method(self, callee: Obj, owner: Unit, call: ast.Call, unit: Unit, scope: Scope) -> dict:
        """Parameter -> value for *call* of the method *callee* (a BOUND): ``self`` is the receiver; a classmethod's
        ``cls`` is the receiver's class (``obj.build()`` passes ``type(obj)``); a staticmethod gets neither."""
        function = callee.node
        if _decorated(function, "staticmethod"):
            return self.bind(function, owner, call, unit, scope)
        binding = self.bind(function, owner, call, unit, scope, skip_self=True)
        receiver = callee.part("self")
        if _decorated(function, "classmethod"):
            receiver = frozenset(_class_of(o) if o.kind == INST else o for o in receiver)
        binding[_first_param(function)] = receiver
        return binding

    def _library_call(self, name: Optional[str], call: ast.Call, unit: Unit, scope: Scope) -> frozenset:
        if not name:
            return EMPTY
        api = self.registry.by_name.get(name)
        if api is not None:
            if api.kind == "object" or api.method_payload:
                return frozenset({Obj(WORKER, unit.path, call, api.key, self._keyword_parts(call, unit, scope))})
            if api.returns in self.registry.by_key:
                return frozenset({Obj(WORKER, unit.path, call, api.returns, self._keyword_parts(call, unit, scope))})
            return frozenset({Obj(EXT, unit.path, call, name, ())})  # what a worker API returns (a dataset...)
        if name in _PROGRESS_WRAPPERS or name.endswith(".tqdm"):
            # `pbar = tqdm(loader)`: iterating the bar iterates the loader (its workers start then, not here); a
            # tqdm bar itself holds its output stream (measured: pickle refuses it, dill ships it), unless it was
            # made with `disable=True`, which keeps none (measured: it pickles)
            bar = frozenset({Obj(RES, unit.path, call, PROGRESS_BAR)}) \
                if name.endswith("tqdm") and not passes_true(call, "disable") else EMPTY
            return bar | frozenset(o for o in (self.eval(call.args[0], unit, scope) if call.args else EMPTY)
                                   if o.kind in (WORKER, PARAM, FIELD))
        if name in CONTEXT_FACTORIES:
            method = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "method"), None)
            if isinstance(method, ast.Constant) and method.value == "fork":
                # An explicit fork context never pickles for its children nor re-imports the main module (and
                # does not exist on Windows, which is a different failure): nothing of ours applies.
                return EMPTY
            return frozenset({Obj(EXTREF, None, None, CONTEXT_FACTORIES[name])})
        if name == "functools.partial":
            if not call.args:
                return EMPTY
            func = self.eval(call.args[0], unit, scope)
            rest = [self.eval(a, unit, scope) for a in [*call.args[1:], *(k.value for k in call.keywords)]]
            return frozenset({Obj(PARTIAL, unit.path, call, None,
                                  (("func", func), ("args", frozenset().union(*rest) if rest else EMPTY)))})
        if name in self.registry.unpicklable:
            return frozenset({Obj(RES, unit.path, call, self.registry.unpicklable[name])})
        if name in TORCH_SHARED_STATE:
            return frozenset({Obj(RES, unit.path, call, TORCH_SHARED_STATE[name])})
        if name in MP_SYNC_PRIMITIVES:
            return frozenset({Obj(SYNC, unit.path, call, name)})
        if name in EAGER_HANDLE_CLASSES:
            return frozenset({Obj(RES, unit.path, call,
                                  Unpicklable(f"a `{name.rsplit('.', 1)[-1]}` dataset, which holds "
                                              + EAGER_HANDLE_CLASSES[name], False))})
        if name in BACKED_READERS and any(k.arg == "backed" and isinstance(k.value, ast.Constant)
                                          and k.value.value not in (None, False) for k in call.keywords):
            return frozenset({Obj(RES, unit.path, call, Unpicklable(BACKED_READERS[name], False))})
        if name == "numpy.load" and call.args and isinstance(call.args[0], ast.Constant) \
                and str(call.args[0].value).endswith(".npz"):
            return frozenset({Obj(RES, unit.path, call,
                                  Unpicklable("an open `.npz` archive (`np.load` keeps the zip file open)", False))})
        if name == "importlib.import_module":
            return frozenset({Obj(RES, unit.path, call, MODULE_OBJECT)})
        kept = keeper(name)
        if kept is not None and not kept.every and not kept.transparent:
            # (a dataset keeps each by its name: a message says where, `.transform.transforms[0]`, `.data`)
            named = [(_kept_as(k.arg), k.value) for k in call.keywords if k.arg in kept.keywords]
            named += [(f".{attr}", call.args[position]) for position, attr in kept.positions
                      if position < len(call.args)
                      and not any(isinstance(a, ast.Starred) for a in call.args[:position + 1])]
            return frozenset({Obj(EXT, unit.path, call, name,
                                  _merge_parts([(attr, self.eval(a, unit, scope)) for attr, a in named]))})
        if kept is not None:
            arguments = []
            if kept.every:
                arguments = [a.value if isinstance(a, ast.Starred) else a for a in call.args] + \
                    [k.value for k in call.keywords]
            else:
                arguments = [k.value for k in call.keywords if k.arg in kept.keywords]
                for position, _ in kept.positions:
                    if position < len(call.args) and not any(isinstance(a, ast.Starred)
                                                             for a in call.args[:position + 1]):
                        arguments.append(call.args[position])
            held = frozenset().union(*(self.eval(a, unit, scope) for a in arguments)) if arguments else EMPTY
            step = "kept" if kept.transparent else "held"
            return frozenset({Obj(EXT, unit.path, call, name, ((step, held),))})
        if name == "builtins.dict" and not call.args and all(k.arg for k in call.keywords):
            items = [(f"['{k.arg}']", self.eval(k.value, unit, scope)) for k in call.keywords]
            return frozenset({Obj(DICT, unit.path, call, None, _merge_parts(items))})
        if name in ("builtins.list", "builtins.tuple") and len(call.args) == 1 and not call.keywords:
            return frozenset({Obj(SEQ, unit.path, call, None, (("[]", self._elements(self.eval(
                call.args[0], unit, scope))),))})
        if name == "builtins.int" and len(call.args) == 1 and not call.keywords:
            # `num_workers=int(opt.num_threads)`: the number a constant or a caller gives
            out: set = set()
            for obj in self.eval(call.args[0], unit, scope):
                if obj.kind in _SYMBOLS:
                    out.add(obj)
                elif obj.kind == CONST and _number(const_value(obj)) and math.isfinite(const_value(obj)):
                    out.add(_const(int(const_value(obj))))
            return frozenset(out)
        if name in _COPIES and len(call.args) == 1 and not isinstance(call.args[0], ast.Starred) and not call.keywords:
            # `copy.deepcopy(base)` holds what `base` holds: a deep copy keeps the very functions, lambdas and
            # classes (measured: the lambda an attribute held is the same object, an instance of a local class stays
            # one); one of a lock or a file raises at the copy
            return self.eval(call.args[0], unit, scope)
        if name.startswith("builtins."):
            return EMPTY
        # A library object: by convention a dataset keeps its transforms; what else it keeps is unknown.
        parts = [(_kept_as(k.arg), self.eval(k.value, unit, scope))
                 for k in call.keywords if k.arg in DATASET_TRANSFORM_KEYWORDS] if _class_like(name) else []
        parts += self._keyword_parts(call, unit, scope, constants_only=True)
        return frozenset({Obj(EXT, unit.path, call, name, _merge_parts(parts))})

    def _keyword_parts(self, call: ast.Call, unit: Unit, scope: Scope, constants_only: bool = False) -> tuple:
        """Keyword arguments kept on a library object as ``kw:name`` parts (the worker count a constructor like
        ``TrainingArguments(dataloader_num_workers=2)`` carries for a ``Trainer``)."""
        parts = []
        for keyword in call.keywords:
            if keyword.arg is None:
                continue
            value = self.eval(keyword.value, unit, scope)
            if constants_only:
                value = frozenset(o for o in value if o.kind in (CONST, PARAM, FIELD))
            if value:
                parts.append((f"kw:{keyword.arg}", value))
        return tuple(parts)

    # -- arguments and substitution

    def bind(self, function: ast.AST, owner: Unit, call: ast.Call, unit: Unit, scope: Scope,
             skip_self: bool = False, given: Optional[dict[int, frozenset]] = None) -> dict[str, frozenset]:
        """Parameter name -> the value the call gives it (defaults for those it does not give).  *given*: the
        values of the call's arguments (by the id of their expression) where they are known already."""

        def value_of(expr: ast.expr) -> frozenset:
            return given[id(expr)] if given is not None and id(expr) in given else self.eval(expr, unit, scope)

        args = function.args
        positional = [a.arg for a in [*args.posonlyargs, *args.args]]
        if skip_self and positional:
            positional = positional[1:]
        binding: dict[str, frozenset] = {}
        starred = False
        extra_positional: list[frozenset] = []
        for index, value in enumerate(call.args):
            if isinstance(value, ast.Starred):
                starred = True
                break
            if index < len(positional):
                binding[positional[index]] = value_of(value)
            else:
                extra_positional.append(value_of(value))
        names = set(positional) | {a.arg for a in args.kwonlyargs}
        extra: list[tuple[str, frozenset]] = []
        complete = not starred
        forwarded: set = set()  # (`f(**kwargs)` of a `**kwargs` parameter: what the callers give it)
        for keyword in call.keywords:
            if keyword.arg is None:
                spread = value_of(keyword.value)
                dicts = [o for o in spread if o.kind == DICT]
                forwarded |= {o for o in spread if o.kind in _SYMBOLS}
                if not dicts or len(dicts) != len(spread):
                    complete = False
                for obj in dicts:
                    for key, value in obj.parts:
                        if key.startswith("['"):
                            name = key[2:-2]
                            if name in names:
                                binding[name] = binding.get(name, EMPTY) | value
                            else:
                                extra.append((key, value))
                        else:
                            complete = False
                            if key == "**":  # (what it forwards from its own callers, passed on again)
                                forwarded |= {o for o in value if o.kind in _SYMBOLS}
                continue
            value = value_of(keyword.value)
            if keyword.arg in names:
                binding[keyword.arg] = value
            else:
                extra.append((f"['{keyword.arg}']", value))
        # Defaults by parameter name, evaluated where the function is defined (a positional one only where no
        # `*args` of the call may have given it)
        defaults = dict(zip(positional[len(positional) - len(args.defaults):], args.defaults)) \
            if args.defaults and not starred else {}
        defaults.update((a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)
        if forwarded and not starred:
            # `super().__init__(**kwargs)`: a parameter the call does not name is what the callers' `**kwargs` hold
            # under its name, or its default when they hold none (fbrs' `image_rescale=scale_func`)
            for name in [n for n in [*positional, *(a.arg for a in args.kwonlyargs)] if n not in binding]:
                given_value = frozenset(Obj(KWGET, o.unit, o.node, name, (("dict", frozenset({o})),))
                                        for o in forwarded)
                default = defaults.get(name)
                binding[name] = given_value if default is None else frozenset({Obj(
                    DEFAULTED, owner.path, default, "given",
                    (("given", given_value), ("default", self.eval(default, owner, self._defining_scope(
                        function, owner)))))})
        for name, default in defaults.items():
            if name not in binding:
                binding[name] = self.eval(default, owner, self._defining_scope(function, owner))
        if args.vararg is not None:
            binding[args.vararg.arg] = frozenset({Obj(SEQ, unit.path, call, None, (("[]", frozenset().union(
                *extra_positional)) if extra_positional else ("[]", EMPTY),))})
        if args.kwarg is not None:
            parts = list(extra) if complete else [*extra, ("**", frozenset(forwarded))]
            binding[args.kwarg.arg] = frozenset({Obj(DICT, unit.path, call, "complete" if complete else None,
                                                     _merge_parts(parts))})
        elif not complete:
            for name in names - set(binding):
                binding[name] = EMPTY
        return binding

    def _defining_scope(self, function: ast.AST, owner: Unit) -> Scope:
        own = owner.index.scope_of.get(function)
        return own.parent if own is not None and own.parent is not None else owner.index.module_scope

    def substitute(self, value: frozenset, binding: dict[str, frozenset], depth: int = 0) -> frozenset:
        """*value* with each parameter symbol replaced by what *binding* gives it (and fields of those read).  A
        value is substituted once per binding (and depth): a call's sinks, starts and stores, and the objects nested
        in them, hold the same values again (checking this package, 231,553 of 2,046,057 substitutions were of a
        value the same binding had substituted before; not doing them again, with all they did below, saved a fifth
        of the CPU)."""
        if not value or depth > MAX_NESTING:
            return value if depth <= MAX_NESTING else EMPTY
        known = self._unchanged.get(id(value))
        if known is not None and known[0] is value:
            return known[1]
        memo = self._substituted.get(id(binding))
        if memo is None or memo[0] is not binding:
            if len(self._substituted) >= MAX_SUBSTITUTED:
                self._substituted.clear()
            memo = self._substituted[id(binding)] = (binding, {})
        done = memo[1].get((id(value), depth))
        if done is not None and done[0] is value:
            return done[1]
        out: set = set()
        kept = 0  # (objects that no binding changes)
        for obj in value:
            if obj.kind == PARAM:
                if obj.data in binding:
                    given = binding[obj.data]
                    if obj.parts:  # (what the function stored on it: on the object the caller gives)
                        given = frozenset(self._mutated(o, list(obj.parts)) if o.kind in _MUTABLE else o
                                          for o in given)
                    out |= given
                else:
                    out.add(obj)
            elif obj.kind == FIELD:
                bases = self.substitute(obj.part("base"), binding, depth + 1)
                for base in bases:
                    out |= self.attribute(base, obj.data)
            elif obj.kind == KWGET:
                out |= self._kwget(self.substitute(obj.part("dict"), binding, depth + 1), obj.data, obj)
            elif obj.kind == MCALL:
                out |= self._deferred_method(obj, self.substitute(obj.part("base"), binding, depth + 1), binding,
                                             depth)
            elif obj.kind == NEW:
                out |= self._built(obj, binding, depth)
            elif obj.kind == DEFAULTED:
                given = self.substitute(obj.part("given"), binding, depth + 1)
                default = self.substitute(obj.part("default"), binding, depth + 1)
                usable = _NOT_NONE if obj.data == "not None" else _TRUE
                if obj.data == "given" and given and ABSENT_OBJ not in given and not any(
                        o.kind in _SYMBOLS for o in given):
                    out |= given  # (the callers' `**kwargs` hold the key: the default is not used)
                elif obj.data == "given" and ABSENT_OBJ in given and not any(o.kind in _SYMBOLS for o in given):
                    out |= (given - {ABSENT_OBJ}) | default
                elif given and all(o.kind in usable for o in given):
                    out |= given
                elif any(o.kind in _SYMBOLS for o in given):
                    out.add(Obj(DEFAULTED, obj.unit, obj.node, obj.data, (("given", given), ("default", default))))
                else:
                    out |= given | default
            elif obj.parts and obj.holds_symbols():
                parts = tuple((name, self.substitute(part, binding, depth + 1)) for name, part in obj.parts)
                out.add(Obj(obj.kind, obj.unit, obj.node, obj.data, parts))
            else:
                out.add(obj)
                kept += 1
        found = self._share(_cut(out))
        if kept == len(value):
            # (what no binding changes is substituted the same way for each call: a callee's stores are bound
            # again for each call of it, and the same value is made again from the same objects, in the same order)
            if len(self._unchanged) >= MAX_SHARED:
                self._unchanged.clear()
            self._unchanged[id(value)] = (value, found)
        memo[1][id(value), depth] = (value, found)
        return found

    def _share(self, value: frozenset) -> frozenset:
        """*value*, or a value made before that holds the same objects (the same ones, not equal ones) in the same
        order, which nothing can tell from it: a value is a set of 216 bytes however few objects it holds, and
        :meth:`substitute` makes a new one for each callee's store, sink and start it binds, most of them of
        objects it was given unchanged (the summaries of peft's ``tests/test_initialization.py``, analysed for a
        check of ``peft_model.py``, held 588,000 sets, 144,000 of them of different objects or order).  Equal
        objects made apart stay apart: what is reached from a sink is told apart by identity (:meth:`sources`)."""
        if not value:
            return EMPTY
        shared = self._shared
        if len(shared) >= MAX_SHARED:
            shared.clear()  # (the table keeps alive what it holds: values made for a moment too)
        if len(value) == 1:  # (most values: keyed by the one id, with no tuple to make and keep)
            (only,) = value
            return shared.setdefault(id(only), value)
        return shared.setdefault(tuple(map(id, value)), value)

    def _built(self, new: Obj, binding: dict, depth: int) -> frozenset:
        """A NEW symbol once a caller gives the class: an instance of it, its ``__init__`` given the call's
        arguments (as the caller gives them); still a symbol while the class is one."""
        parts = [(name, self.substitute(value, binding, depth + 1)) for name, value in new.parts]
        arguments = [(name, value) for name, value in parts if name != "class"]
        owner = self._unit_for(new)
        scope = self.scope_of_call(new.node, owner) if owner is not None else None
        out: set = set()
        for cls in dict(parts)["class"]:
            if cls.kind in _SYMBOLS:
                out.add(Obj(NEW, new.unit, new.node, new.data, (("class", frozenset({cls})), *arguments)))
                continue
            if cls.kind == INST and new.data in (_CLS, _TYPE_OF):
                cls = _class_of(cls)  # (a classmethod called on an instance gets its class; so does type(x))
            elif new.data == _TYPE_OF:
                continue  # (the type of a class is its metaclass)
            if cls.kind not in (CLASS, FUNC, LAMBDA):
                continue
            if scope is None:
                if cls.kind == CLASS:
                    out.add(Obj(INST, cls.unit, cls.node, cls.data))
                continue
            keys = dict(arguments)
            given = {id(expr): keys.get(key, EMPTY) for key, expr in _argument_keys(new.node)}
            if cls.kind == CLASS:
                out |= self._instance(cls, new.node, owner, scope, given)
                continue
            # a function a caller gives, called here (`self.loaders = make_loaders()` of a parameter)
            callee = self._unit_for(cls)
            if callee is None or new.data is not None:
                continue
            if cls.node in callee.index.generator_functions:
                out.add(Obj(RES, new.unit, new.node, GENERATOR))
                continue
            out |= self.substitute(self.summary(cls.node, callee).returns,
                                   self.bind(cls.node, callee, new.node, owner, scope, given=given), depth + 1)
        return frozenset(out)

    def _deferred_method(self, obj: Obj, bases: frozenset, binding: dict, depth: int) -> frozenset:
        """An ``MCALL`` once its receiver is known: the library method applied to what the caller gave, or the
        method of the class of the project instance it gave."""
        owner = self._unit_for(obj)
        scope = self.scope_of_call(obj.node, owner) if owner is not None else None
        if scope is None:
            return EMPTY
        out: set = set()
        concrete = frozenset(b for b in bases if b.kind not in _SYMBOLS)
        still = frozenset(b for b in bases if b.kind in _SYMBOLS)
        if concrete:
            called = self._method_call(obj.node, obj.data, concrete, owner, scope)
            if called is None:  # (a project class's method: `self.transforms()` given an instance of a subclass)
                called = frozenset().union(*(self._dispatch(obj, base, owner, scope) for base in sorted(
                    (b for b in concrete if b.kind == INST), key=_order)))
            out |= self.substitute(called, binding, depth + 1)
        if still:
            out.add(Obj(MCALL, obj.unit, obj.node, obj.data, (("base", still),)))
        return frozenset(out)

    def _dispatch(self, mcall: Obj, instance: Obj, owner: Unit, scope: Scope) -> frozenset:
        """What ``self.m()`` (*mcall*) returns once ``self`` is *instance*: its class's method ``m`` applied.  A
        method whose value is its own call again (``return self.m()``), directly or through others, is unknown past
        the first: each (call, instance) is worked out once at a time, and at most MAX_CALL_DEPTH deep."""
        key = (id(mcall.node), instance)
        if key in self._dispatching or len(self._dispatching) >= MAX_CALL_DEPTH:
            return EMPTY
        self._dispatching.add(key)
        try:
            return frozenset().union(*(self.apply(method, mcall.node, owner, scope)
                                       for method in self.attribute(instance, mcall.data, owner)
                                       if method.kind == BOUND))
        finally:
            self._dispatching.discard(key)

    # ------------------------------------------------------------------ summaries

    def summary(self, function: ast.AST, unit: Unit) -> Summary:
        """What calling *function* (a def or lambda of *unit*, or a module's body) does, in its parameters."""
        key = id(function)
        found = self._summaries.get(key)
        if found is not None:
            return found
        if key in self._summarizing or not self._tick() or self._call_depth >= MAX_CALL_DEPTH:
            return Summary()  # recursion, or a chain past the bound: what it adds is not known
        self._summarizing.add(key)
        self._call_depth += 1
        try:
            summary = self._summarize(function, unit)
        finally:
            self._summarizing.discard(key)
            self._call_depth -= 1
        self._summaries[key] = summary
        return summary

    def _summarize(self, function: ast.AST, unit: Unit) -> Summary:
        index = unit.index
        scope = index.scope_of.get(function)
        summary = Summary()
        if scope is None:
            return summary
        if isinstance(function, ast.Lambda):
            # (its body runs when it is called, like a def's: the calls in it are its effects too)
            returns = [function.body]
        elif function is index.tree:
            returns = []
        else:
            returns = _returns_of(unit, function)
        summary.returns = _cut(frozenset().union(*(self.eval(r, unit, scope) for r in returns))) if returns else EMPTY
        # (`if __name__ == "__main__":` in a function of another module than the one checked: there the name is
        # the module's own, never "__main__" -- pyBKT's library put its pool under one -- so what is under it never
        # runs; in the module checked, it runs when the module is the script)
        never = (lambda site: False) if unit is self.main else _under_main_guard
        defaults = _constant_defaults(function)
        for call, site in _calls_of(unit, function):
            if never(site):
                continue
            self._effects_of_call(call, site, unit, summary)
            what = heavy_loading(call, unit.resolver, site.scope, index, function)
            if what is not None:
                summary.heavy.append(HeavyUse(what))
            elif defaults and call.keywords:
                use = self._heavy_by_default(call, site, unit, defaults)
                if use is not None:
                    summary.heavy.append(use)
        for iterable, report, site in _iterations_of(unit, function):
            if not never(site):
                self._iteration(iterable, report, site, unit, summary)
        name = getattr(function, "name", "<module>")
        for stmt, target, attr, value in _attribute_stores(unit, function):
            stored = self._entered(value, unit, scope) if isinstance(stmt, (ast.With, ast.AsyncWith)) else \
                self.eval(value, unit, scope)
            if isinstance(target, ast.Name) and any(o.kind == INST for o in stored):
                stored = self._set_up_after(stored, stmt, target.id, attr, function, unit)
            summary.stores.append(Store(self.eval(target, unit, scope), attr, stored, stmt, unit.path, name,
                                        guards=self._type_guards(stmt, unit, scope)))
        for stmt, target, key, value in _attribute_item_stores(unit, function):
            summary.stores.append(Store(self.eval(target.value, unit, scope), target.attr,
                                        self.eval(value, unit, scope), stmt, unit.path, name, key,
                                        self._type_guards(stmt, unit, scope)))
        return summary

    def _effects_of_call(self, call: ast.Call, site: Site, unit: Unit, summary: Summary) -> None:
        """The sinks and starts of one call, and those of the project functions it calls."""
        scope = site.scope
        resolver = unit.resolver
        name = resolver.qualname(call.func, scope)
        api = self.registry.by_name.get(name) if name else None
        if api is not None and not self._shadowed(call.func, unit, scope):
            method = self._explicit_method(call, unit, scope)
            count = self._count(api, call, unit, scope)
            if api.kind == "call":
                summary.starts.append(StartUse(api, unit.path, call, site, count, method,
                                               via=self._via(api, call, unit, scope)))
            elif _never_used(call, site):
                return
            payloads = list(self._payloads(api, api.payload, call, unit, scope))
            if api.kind == "object" and "__iter__" in api.start_methods:
                payloads = self._changed_after(api, call, site, unit, payloads)
            for arg, value in payloads:
                summary.sinks.append(SinkUse(api, unit.path, call, site, arg, value, count, False, method,
                                             via=self._via(api, call, unit, scope)))
            return
        func = call.func
        if isinstance(func, ast.Call) and self._joblib_multiprocessing(func, unit, scope):
            for task in _joblib_tasks(call, unit, scope):
                function, arguments = task
                summary.sinks.append(SinkUse(JOBLIB_MULTIPROCESSING, unit.path, call, site,
                                             Arg("function", 0, kind="callable"), self.eval(function, unit, scope),
                                             frozenset({_const(2)}), True))
                for argument in arguments:
                    summary.sinks.append(SinkUse(JOBLIB_MULTIPROCESSING, unit.path, call, site,
                                                 Arg(None, None, kind="object", rest=True),
                                                 self.eval(argument, unit, scope), frozenset({_const(2)}), True))
            return
        if isinstance(func, ast.Attribute):
            method_name = func.attr
            if is_super(func.value):
                # `super().__init__(...)` of a project base class: what it stores on `self`, and its sinks (the
                # worker API's own arguments only where the API itself is what `super()` finds)
                found = self._super_method(site, unit, method_name)
                api = self._base_api(site, unit) if method_name == "__init__" and found is None else None
                if api is not None and api.kind == "object":
                    self._api_sinks(api, call, site, unit, summary)
                    return
                if found is not None:
                    method, owner = found
                    self_value = self.eval(self._self_name(site.scope.function_scope(), call.lineno), unit, scope)
                    bound = Obj(BOUND, owner.path, method, method_name, (("self", self_value),))
                    self._propagate(bound, call, site, unit, summary)
                elif method_name == "__init__":
                    self._library_base_stores(call, site, unit, summary)
                return
            # `.map(..., num_proc=4)` is taken for the library's method by its name, unless the receiver is
            # known to be an object of the project's own (its method is followed below instead)
            candidates = self.registry.by_method.get(method_name, ())
            if candidates and _project_objects(self.eval(func.value, unit, scope)):
                candidates = ()
            for candidate in candidates:
                if _passes_keyword(call, candidate.required_keyword) or self._dict_passes(
                        call, candidate.required_keyword, unit, scope):
                    count = self._count(candidate, call, unit, scope)
                    summary.starts.append(StartUse(candidate, unit.path, call, site, count))
                    for arg, value in self._payloads(candidate, candidate.payload, call, unit, scope):
                        summary.sinks.append(SinkUse(candidate, unit.path, call, site, arg, value, count))
                    return
            if method_name in self._object_methods:
                receivers = self.eval(func.value, unit, scope)
                # (in a set's order the first of several would be chosen by hashes: a message's chain, a summary's
                # items past its bound; the source's order is the same in every run)
                for worker in sorted((o for o in receivers if o.kind == WORKER), key=_order):
                    obj_api = self.registry.by_key.get(worker.data)
                    if obj_api is None:
                        continue
                    explicit = self._explicit_method_of(worker)
                    count = self._worker_count(obj_api, worker)
                    via = self._via_of(obj_api, worker)
                    if method_name in obj_api.start_methods:
                        summary.starts.append(StartUse(obj_api, unit.path, call, site, count, explicit, via=via,
                                                       worker=worker))
                        self._hooked_loaders(obj_api, method_name, call, site, unit, summary)
                    if method_name in obj_api.method_payload:
                        for arg, value in self._payloads(obj_api, obj_api.method_payload[method_name], call, unit,
                                                         scope):
                            summary.sinks.append(SinkUse(obj_api, unit.path, call, site, arg, value, count, True,
                                                         explicit, via=via))
                for instance in sorted((o for o in receivers if o.kind == INST), key=_order):
                    self._sent_instance(instance, method_name, call, site, unit, summary)
                # a worker object that is a parameter: the start happens where a caller gives one
                symbolic = frozenset(o for o in receivers if o.kind in (PARAM, FIELD))
                if symbolic:
                    summary.starts.append(StartUse(_SYMBOLIC_API, unit.path, call, site, EMPTY, iterated=symbolic,
                                                   via=None, method=method_name))
                    if method_name in self._sending_methods:
                        summary.sinks.append(SinkUse(_SYMBOLIC_API, unit.path, call, site, _SENT_SELF, symbolic,
                                                     EMPTY, method=method_name))
        if name in _ITERATING_BUILTINS or name in ITERATING_CALLS:
            for arg in call.args:
                self._iteration(arg, call, site, unit, summary)
        # A call into the project: its callee's sinks and starts, with this call's arguments.
        callees = self.eval(func, unit, scope) if not (name or "").startswith("builtins.") else EMPTY
        for callee in (c for c in callees if c.kind == PARTIAL):  # (what the call the partial makes does)
            made = self._partial_call(callee, call, unit, scope)
            if made is not None and self._tick():
                self._effects_of_call(made, site, unit, summary)
        if any(c.kind == CLASS for c in callees) and not _never_used(call, site):
            subclassed = (self._api_subclass(c) for c in callees if c.kind == CLASS)
            for api in {api.key: api for api in subclassed if api is not None}.values():
                self._api_sinks(api, call, site, unit, summary)
        for callee in sorted(callees, key=_order) if len(callees) > 1 else callees:
            if (callee.kind == PARAM and callee.parts == () or self._dispatched(callee)) and \
                    len(summary.deferred) < MAX_SUMMARY_ITEMS:
                summary.deferred = [*summary.deferred, (callee, call, site, unit.path)]
            self._propagate(callee, call, site, unit, summary)

    def _changed_after(self, api: SpawnAPI, call: ast.Call, site: Site, unit: Unit,
                       payloads: list[tuple[Arg, frozenset]]) -> list[tuple[Arg, frozenset]]:
        """*payloads* of ``loader = DataLoader(ds, ...)`` with what the scope's own code stores on them after the
        loader is made and before a later use of it: ``ds.transform = f``, ``loader.dataset.transform = f``,
        ``loader.collate_fn = f``.  The workers start when the loader is iterated and pickle what the payload holds
        then (outlier-exposure's test script swaps ``ood_loader.dataset.transform`` between evaluations); each
        store is a possibility, as one use may come before it and another after."""
        stmt, scope = site.stmt, site.scope
        if not (isinstance(stmt, ast.Assign) and stmt.value is call and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name) and scope.kind in ("module", "function")):
            return payloads
        rows = [row for row in _stores(unit)[0].get(id(scope.node), ())
                if row[0].lineno > (stmt.end_lineno or stmt.lineno)]
        loader = stmt.targets[0].id
        lookup = unit.resolver.lookup
        made = lookup(loader, scope, stmt.lineno) if rows else None
        if made is None or made.node is not stmt:
            return payloads
        keywords = {arg.keyword for arg in api.payload if arg.keyword}
        names = {expr.id: arg.keyword for arg in api.payload  # (the names that gave payloads, and as what)
                 if arg.keyword and isinstance(expr := _argument(call, arg), ast.Name)}
        changes: dict[str, list[tuple[str, frozenset]]] = {}
        replaced: dict[str, frozenset] = {}
        for row_stmt, target, attr, value in rows:
            line = row_stmt.lineno
            if isinstance(target, ast.Name) and target.id == loader:  # `loader.collate_fn = f`
                keyword, holder = (attr if attr in keywords else None), made
            elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                    and target.value.id == loader:  # `loader.dataset.transform = f`
                keyword, holder = (target.attr if target.attr in keywords else None), made
            elif isinstance(target, ast.Name) and target.id in names:  # `ds.transform = f`
                keyword, holder = names[target.id], lookup(target.id, scope, call.lineno)
            else:
                continue
            if keyword is None or lookup(target.id if isinstance(target, ast.Name) else loader, scope, line) \
                    is not holder or not _used_after(unit, scope, loader, row_stmt.end_lineno or line, made):
                continue
            stored = self.eval(value, unit, scope)
            if isinstance(target, ast.Name) and target.id == loader:
                replaced[keyword] = replaced.get(keyword, EMPTY) | stored
                continue
            key = f"{unit.path}:{line}:{row_stmt.col_offset}|after"
            self._stores_by_key[key] = (row_stmt, unit.path, None)  # (a possibility: it replaces nothing)
            changes.setdefault(keyword, []).append((f"+.{attr}#{key}", stored))
        if not changes and not replaced:
            return payloads
        out = []
        for arg, value in payloads:
            if arg.keyword in changes:
                value = frozenset(self._mutated(o, changes[arg.keyword]) if o.kind in _MUTABLE else o for o in value)
            out.append((arg, value | replaced.pop(arg.keyword, EMPTY)))
        return out + [(arg, replaced[arg.keyword]) for arg in api.payload if arg.keyword in replaced]

    def _dispatched(self, callee: Obj) -> bool:
        """Whether *callee* is ``self.m`` in a method, with ``m`` a stub of the class that its subclasses fill in
        (a base trainer's ``train()`` calling ``self._train_epoch(epoch)``): which method runs is the instance's
        class's to say, once a caller gives ``self``."""
        if callee.kind != FIELD or callee.data == ITEM:
            return False
        bases = callee.part("base")
        if len(bases) != 1:
            return False
        base = next(iter(bases))
        found = self._own_method(base, callee.data) if base.kind == PARAM and not base.parts else None
        return found is not None and _is_stub(found[0])

    def _propagate(self, callee: Obj, call: ast.Call, site: Site, unit: Unit, summary: Summary) -> None:
        scope = site.scope
        if callee.kind in (FUNC, LAMBDA):
            owner = self._unit_for(callee)
            if owner is None:
                return
            inner = self.summary(callee.node, owner)
            # (the arguments are evaluated only for what waits for them: a call of timm's generate_default_cfgs
            # gives it a dict of a hundred configurations, and what it stores is in none of them)
            waits = (inner.sinks or inner.starts or inner.stores or inner.deferred) and inner.waits_for_arguments()
            binding = self.bind(callee.node, owner, call, unit, scope) if waits else {}
            name = getattr(callee.node, "name", "<lambda>")
            called, skip_self = callee.node, False
        elif callee.kind == CLASS:
            info, owner = self.class_info(callee)
            found = self._method(info, owner, "__init__") if info is not None else None
            if found is None:
                return
            init, owner = found
            inner = self.summary(init, owner)
            if not (inner.sinks or inner.starts or inner.heavy or inner.deferred):
                return
            binding = {}
            if inner.waits_for_arguments():
                binding = self.bind(init, owner, call, unit, scope, skip_self=True)
                binding[_first_param(init)] = self.eval(call, unit, scope)
            name = callee.node.name
            called, skip_self = init, True
        elif callee.kind == BOUND:
            owner = self._unit_for(callee)
            if owner is None:
                return
            inner = self.summary(callee.node, owner)
            if not (inner.sinks or inner.starts or inner.stores or inner.heavy or inner.deferred):
                return
            binding = self._bind_method(callee, owner, call, unit, scope) if inner.waits_for_arguments() else {}
            name = callee.data
            called, skip_self = callee.node, not _decorated(callee.node, "staticmethod")
        else:
            return
        hop = Hop(name, unit.path, getattr(call, "lineno", 0), call, site)
        # A summary takes at most MAX_SUMMARY_ITEMS of each kind from its callees: each call copies its callee's
        # into the caller, which on a deep call graph grows without end (torch/_dynamo: gigabytes).
        if self._take(inner, binding, hop, summary):
            summary.off = [*summary.off, call]
        for symbol, inner_call, inner_site, path in inner.deferred:
            self._deferred_call(symbol, inner_call, inner_site, path, binding, hop, summary)
        for store in inner.stores[:max(0, MAX_SUMMARY_ITEMS - len(summary.stores))]:
            guards = self._bound_type_guards(store, binding)
            if guards is not None:
                summary.stores.append(Store(self.substitute(store.target, binding), store.attr,
                                            self.substitute(store.value, binding), store.stmt, store.unit,
                                            store.method, store.item, guards))
        for use in inner.heavy:  # (the first that holds is enough to say the call is heavy: summaries stay small)
            when = self._heavy_here(use, called, skip_self, call, site, unit)
            if when is not None:
                summary.heavy.append(HeavyUse(use.what, (hop, *use.hops), when))
                break

    def _heavy_by_default(self, call: ast.Call, site: Site, unit: Unit, defaults: dict[str, Any]
                          ) -> Optional[HeavyUse]:
        """A call of a function's body that loads with the defaults of the function's parameters it is given
        (:func:`~.heavy.heavy_by_default`), the names still holding the parameters where it is made."""
        lookup = unit.resolver.lookup
        named = {k.value.id for k in call.keywords if isinstance(k.value, ast.Name) and k.value.id in defaults}
        held = {name: defaults[name] for name in named
                if (binding := lookup(name, site.scope, call.lineno)) is not None and binding.kind == "param"}
        found = heavy_by_default(call, unit.resolver, site.scope, held) if held else None
        return HeavyUse(found[0], when=tuple((name, held[name]) for name in found[1])) if found else None

    def _heavy_here(self, use: HeavyUse, function: ast.AST, skip_self: bool, call: ast.Call, site: Site,
                    unit: Unit) -> Optional[tuple]:
        """Whether a callee's heavy loading happens for this call of *function*: () if it does, the caller's own
        parameters (as :attr:`HeavyUse.when`) if it does where they keep their defaults, None if it does not
        (a parameter it waits on is given something else, or what cannot be told)."""
        if not use.when:
            return ()
        caller = site.scope.function_scope()
        mine = _constant_defaults(caller.node) if caller is not None else {}
        out = []
        for param, default in use.when:
            given = _given_for(function, call, param, skip_self)
            if given is None or isinstance(given, ast.Constant) and same_constant(given.value, default):
                continue
            if isinstance(given, ast.Name) and given.id in mine and same_constant(mine[given.id], default) and (
                    binding := unit.resolver.lookup(given.id, site.scope, call.lineno)) is not None \
                    and binding.kind == "param":
                out.append((given.id, default))
                continue
            return None
        return tuple(out)

    def _bound_sink(self, sink: SinkUse, binding: dict, hop: Optional[Hop]) -> list[SinkUse]:
        """A callee's sink as the call *hop* makes it (none, when it waited for an object the call does not give)."""
        hops = (hop, *sink.hops) if hop is not None else sink.hops
        value = self.substitute(sink.value, binding)
        if sink.api is _SYMBOLIC_API:  # `worker.start()` on a parameter: sends an instance of a Process subclass
            out = []
            for instance in sorted((o for o in value if o.kind == INST), key=_order):
                sent = self._sent(instance, sink.method)
                if sent is not None:
                    api, kept = sent
                    out.append(SinkUse(api, sink.unit, sink.call, sink.site, sink.arg, frozenset({instance}), _ONE,
                                       hops=hops, guards=kept))
            symbolic = frozenset(o for o in value if o.kind in (PARAM, FIELD))
            if symbolic and not out:
                out.append(SinkUse(_SYMBOLIC_API, sink.unit, sink.call, sink.site, sink.arg, symbolic, EMPTY,
                                   method=sink.method, hops=hops))
            return out
        # (`if self.num_proc is None or self.num_proc == 1: <serially> else: Pool(self.num_proc).imap(...)` called
        # with no `num_proc`: the pool's sink is not where the call goes, as a start there is not)
        guards = self._bound_guards(sink, binding)
        if guards is None:
            return []
        via = (self.substitute(sink.via[0], binding), sink.via[1]) if sink.via is not None else None
        return [SinkUse(sink.api, sink.unit, sink.call, sink.site, sink.arg, value,
                        self.substitute(sink.count, binding), sink.task, sink.method, hops, via, guards)]

    def _deferred_call(self, symbol: Obj, call: ast.Call, site: Site, path: Optional[str], binding: dict, hop: Hop,
                       summary: Summary) -> None:
        """A callee's call of the function its caller gives it (``make_loaders(cfg, get_csc_loader)`` calling
        ``get_loader_fn(...)``): that function's sinks and starts, bound as the callee's call gives them, then as
        the caller's call *hop* (with *binding*) gives the callee its arguments (one level: a function passed on
        again is not followed)."""
        unit = self.unit(path)
        if unit is None:
            return
        if symbol.kind == FIELD:  # (a stub's call: the method of the class of the `self` the caller gives)
            given = self.substitute(frozenset({symbol}), binding)
            for still in sorted((o for o in given if self._dispatched(o)), key=_order):
                if len(summary.deferred) < MAX_SUMMARY_ITEMS:  # (`self` passed on by a method of the class)
                    summary.deferred = [*summary.deferred, (still, call, site, path)]
        else:
            given = binding.get(symbol.data, EMPTY)
        for function in sorted((o for o in given if o.kind in (FUNC, LAMBDA, BOUND)), key=_order):
            inner = Summary()
            self._propagate(function, call, site, unit, inner)
            self._take(inner, binding, hop, summary)

    def _take(self, inner: Summary, binding: dict, hop: Hop, summary: Summary) -> bool:
        """A callee's sinks and starts (*inner*) into *summary*, as the call *hop* (with *binding*) makes them;
        whether the call's arguments turn every start off (``if max_workers > 1:`` given ``max_workers=1``)."""
        # (at most MAX_SUMMARY_ITEMS of each kind: see _propagate)
        for sink in inner.sinks[:max(0, MAX_SUMMARY_ITEMS - len(summary.sinks))]:
            summary.sinks += self._bound_sink(sink, binding, hop)
        turned_off = started = False
        for start in inner.starts[:max(0, MAX_SUMMARY_ITEMS - len(summary.starts))]:
            guards = self._bound_guards(start, binding)
            if guards is None:
                turned_off = True
                continue
            bound = self._bound_start(start, binding, hop, guards)
            started = started or bool(bound)
            summary.starts += bound
        return turned_off and not started

    def _bound_guards(self, start: "StartUse | SinkUse", binding: dict) -> Optional[tuple]:
        """The guards of a callee's start or sink (:meth:`_guards_of`) as the call's *binding* gives their values:
        None when one of them cannot hold, else those still waiting for arguments."""
        # (a start made in the callee itself has the tests around it, and those its worker object's constructor
        # made of the method it calls: :meth:`_method_kept`)
        guards = tuple((self.substitute(value, binding), op, constant, holds) for value, op, constant, holds in (
            start.guards if start.hops else (*start.guards, *self._guards_of(start))))
        if any(_never_holds(guard) for guard in guards):
            return None
        return tuple(guard for guard in guards if depends_on_parameters(guard[0]))

    def _bound_start(self, start: StartUse, binding: dict, hop: Hop, guards: tuple = ()) -> list[StartUse]:
        """The starts of a callee's summary as the call *hop* makes them: one for each worker object the call
        gives an iterated parameter (in a fixed order: the first of two loaders a branch may return was
        whichever a set gave first, so a finding came and went with the hash seed), else one still waiting."""
        via = (self.substitute(start.via[0], binding), start.via[1]) if start.via is not None else None
        if start.iterated is None:
            return [StartUse(start.api, start.unit, start.node, start.site, self.substitute(start.count, binding),
                             start.method, (hop, *start.hops), None, via, start.worker, guards)]
        iterated = self.substitute(start.iterated, binding)
        wanted = "__iter__" if start.api is _ITER_API else start.method
        out = []
        for worker in sorted((o for o in iterated if o.kind == WORKER), key=_order):
            api = self.registry.by_key.get(worker.data)
            if api is not None and wanted in api.start_methods:
                out.append(StartUse(api, start.unit, start.node, start.site, self._worker_count(api, worker),
                                    self._explicit_method_of(worker), (hop, *start.hops), None,
                                    self._via_of(api, worker), worker, guards))
        for instance in sorted((o for o in iterated if o.kind == INST), key=_order):
            sent = self._sent(instance, wanted) if start.api is _SYMBOLIC_API else None
            if sent is not None:
                api, kept = sent
                out.append(StartUse(api, start.unit, start.node, start.site, _ONE, None, (hop, *start.hops),
                                    guards=(*guards, *kept)))
            unit = self.unit(start.unit) if start.api is _ITER_API else None
            if unit is not None:  # (`for batch in self.loader:` given a wrapper of a loader)
                for found in self._instance_starts(instance, start.node, start.node, start.site, unit):
                    out.append(StartUse(found.api, found.unit, found.node, found.site, found.count, found.method,
                                        (hop, *start.hops, *found.hops), None, found.via, found.worker, guards))
        if out:
            return out
        symbolic = frozenset(o for o in iterated if o.kind in (PARAM, FIELD))
        if symbolic:
            return [StartUse(start.api, start.unit, start.node, start.site, EMPTY, start.method, (hop, *start.hops),
                             symbolic, guards=guards)]
        return []

    def _guards_of(self, start: "StartUse | SinkUse") -> tuple:
        """The tests of the ``if`` statements of its function around a start (made there, not in a callee) that
        compare a parameter (or what one holds) with a number, or test it alone: (its symbolic value, the
        operator, the number, whether the start is in the branch where the test holds)."""
        unit = self.unit(start.unit)
        scope = start.site.scope.function_scope() if start.site is not None else None
        if unit is None or scope is None or start.site.stmt is None or not isinstance(
                scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return ()  # (a lambda has no statements)
        out = []
        branches = (*branch_paths(scope).get(start.site.stmt, ()),
                    *((node, "orelse") for node in exits_before(scope, start.site.stmt)))
        for node, field in branches:
            if not isinstance(node, ast.If) or field not in ("body", "orelse"):
                continue
            # (in the body of `if a > 1 and b:` both hold; in its `else`, either may not; in the `else` of `if a is
            # None or a == 1:` neither holds)
            split = isinstance(node.test, ast.BoolOp) and (
                isinstance(node.test.op, ast.And) and field == "body" or isinstance(node.test.op, ast.Or)
                and field == "orelse")
            if split:
                tests = [_numeric_test(value) for value in node.test.values]
            else:  # (`if n is None or n > 0:` is one test of n)
                tests = [_one_value_test(node.test) if isinstance(node.test, ast.BoolOp) else _numeric_test(node.test)]
            for test in filter(None, tests):
                value = self.eval(test[0], unit, scope)
                if value and all(o.kind in _SYMBOLS for o in value):
                    out.append((value, test[1], test[2], field == "body"))
        return tuple(out)

    def _type_guards(self, stmt: ast.stmt, unit: Unit, scope: Scope) -> tuple:
        """The ``isinstance`` tests of the ``if`` statements of its function around a store that test a parameter
        (or ``self.x`` set from one), against builtin scalar types, and the tests of such a value alone (``if
        flag:``, ``if not config.flag:``; the names are :data:`TRUTHY`): (its value, the types' names, whether the
        store is where the test holds).  ``if isinstance(rescale, (float, int)): self.rescale = lambda s:
        rescale`` stores the lambda only for a caller that gives a number."""
        paths = branch_paths(scope).get(stmt) if scope.is_function else None
        out = []
        for node, field in paths or ():
            if not isinstance(node, ast.If) or field not in ("body", "orelse"):
                continue
            tests = node.test.values if isinstance(node.test, ast.BoolOp) and isinstance(node.test.op, ast.And) \
                and field == "body" else [node.test]
            for test in tests:
                negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
                call = test.operand if negated else test
                if isinstance(call, (ast.Name, ast.Attribute)):
                    # (`if not config.async_actor: self.start = lambda: None`: stored only for a caller whose
                    # value is false)
                    names, tested = TRUTHY, call
                elif not (isinstance(call, ast.Call) and len(call.args) == 2 and not call.keywords
                          and unit.resolver.qualname(call.func, scope) == "builtins.isinstance"):
                    continue
                else:
                    kinds = call.args[1].elts if isinstance(call.args[1], ast.Tuple) else [call.args[1]]
                    names = frozenset(unit.resolver.qualname(kind, scope) for kind in kinds)
                    if not names <= _SCALAR_TYPES.keys():
                        continue
                    tested = call.args[0]
                value = None
                if names == TRUTHY and isinstance(tested, ast.Attribute) and isinstance(tested.value, ast.Name) \
                        and not _is_receiver(scope, tested.value.id):
                    value = self.eval(tested, unit, scope)  # (what a parameter holds: `config.async_actor`)
                elif isinstance(tested, ast.Attribute) and isinstance(tested.value, ast.Name):
                    value = self._stored_before(tested, tested.value.id, unit, scope, named=True)
                elif isinstance(tested, ast.Name):
                    value = self.eval(tested, unit, scope)
                if value and depends_on_parameters(value):
                    out.append((value, names, (field == "body") != negated))
        return tuple(out)

    def _bound_type_guards(self, store: Store, binding: dict) -> Optional[tuple]:
        """A store's type guards (:meth:`_type_guards`) as *binding* gives their values: None when one never holds
        (the store does not happen), else those that still wait for a caller."""
        if not store.guards:
            return ()
        guards = tuple((self.substitute(value, binding), names, holds) for value, names, holds in store.guards)
        if any(_type_test_never_holds(guard) for guard in guards):
            return None
        return tuple(guard for guard in guards if depends_on_parameters(guard[0]))

    def _iteration(self, iterable: ast.expr, report: ast.AST, site: Site, unit: Unit, summary: Summary) -> None:
        scope = site.scope
        # `enumerate(loader)`, `tqdm(loader)`: the wrapped loader is what gets iterated.
        if isinstance(iterable, ast.Call) and iterable.args:
            wrapper = unit.resolver.qualname(iterable.func, scope) or ""
            if wrapper in _ITER_WRAPPERS or wrapper in _PROGRESS_WRAPPERS or wrapper.endswith(".tqdm"):
                for arg in iterable.args:
                    self._iteration(arg, report, site, unit, summary)
                return
        value = self.eval(iterable, unit, scope)
        for worker in sorted((o for o in value if o.kind == WORKER), key=_order):  # (a set's order: the seed's)
            api = self.registry.by_key.get(worker.data)
            if api is not None and "__iter__" in api.start_methods:
                summary.starts.append(StartUse(api, unit.path, report, site, self._worker_count(api, worker),
                                               self._explicit_method_of(worker), via=self._via_of(api, worker),
                                               worker=worker))
        symbolic = frozenset(o for o in value if o.kind in (PARAM, FIELD))
        if symbolic:
            summary.starts.append(StartUse(_ITER_API, unit.path, report, site, EMPTY, iterated=symbolic))
        for instance in sorted((o for o in value if o.kind == INST), key=_order):
            summary.starts += self._instance_starts(instance, iterable, report, site, unit)

    # -- payloads and worker counts

    def _payloads(self, api: SpawnAPI, args: tuple, call: ast.Call, unit: Unit,
                  scope: Scope) -> Iterator[tuple[Arg, frozenset]]:
        for arg in args:
            if arg.rest and arg.position is not None:
                for position, value in enumerate(call.args[arg.position:], arg.position):
                    if not isinstance(value, ast.Starred):  # (each an object, or an iterable of them: `map`)
                        yield Arg(None, position, kind=arg.kind, rest=True), \
                            self.eval(value, unit, scope) | self._passes(value, arg, unit, scope)
                continue
            expr = _argument(call, arg)
            if expr is None or expr is _UNKNOWN_ARG:  # (`f(*args, **kwargs)`: given by keyword, if at all)
                spread = self._spread_keyword(call, arg.keyword, unit, scope)
                if expr is _UNKNOWN_ARG:
                    spread |= self._spread_position(call, arg.position, unit, scope)
                if spread:
                    yield arg, spread
                continue
            yield arg, self.eval(expr, unit, scope) | self._passes(expr, arg, unit, scope)

    def _spread_position(self, call: ast.Call, position: Optional[int], unit: Unit, scope: Scope) -> frozenset:
        """What ``f(*args)`` may give at *position* when the starred argument covers it: any item of ``args``
        (``super().__init__(*args, **kwargs)`` of a loader's subclass built as ``FastLoader(dataset, ...)``; the
        items' positions are not kept, so a value given at another position is taken too)."""
        if position is None:
            return EMPTY
        for index, value in enumerate(call.args[:position + 1]):
            if isinstance(value, ast.Starred):
                return self._elements(self.eval(value.value, unit, scope))
        return EMPTY

    def _passes(self, expr: ast.expr, arg: Arg, unit: Unit, scope: Scope) -> frozenset:
        """What an iterable of arguments that the API iterates in the parent (``pool.starmap(f, it)``) yields, as a
        list of it, when the iterable is made where the call is: ``zip(repeat(lock), xs)``, ``enumerate(xs)``, a
        generator expression.  Each item is pickled, as each item of a list written out is (the iterable itself
        is not: a generator is consumed in the parent)."""
        if arg.kind != "args" or not (isinstance(expr, ast.GeneratorExp) or isinstance(expr, ast.Call) and (
                unit.resolver.qualname(expr.func, scope) in _ITEMS_MADE_BY)):
            return EMPTY
        items = self._loop_items(expr, unit, scope, 2)
        return frozenset({Obj(SEQ, unit.path, expr, None, (("[]", items),))}) if items else EMPTY

    def _spread_keyword(self, call: ast.Call, keyword: Optional[str], unit: Unit, scope: Scope) -> frozenset:
        if not keyword:
            return EMPTY
        out: set = set()
        for given in call.keywords:
            if given.arg is None:
                value = self.eval(given.value, unit, scope)
                for obj in value:
                    if obj.kind == DICT:
                        out |= obj.part(f"['{keyword}']")
                if isinstance(given.value, ast.Name) and not any(obj.kind == DICT for obj in value):
                    # a dict from elsewhere (a parameter, a config) given the key here first:
                    # `params["worker_init_fn"] = f` ... `DataLoader(ds, **params)`
                    for stmt, _, stored, index in _scope_item_stores(unit, scope, given.value.id):
                        if isinstance(index, ast.Constant) and index.value == keyword and stmt.lineno <= call.lineno:
                            out |= self.eval(stored, unit, scope)
                # a `**kwargs` parameter passed on (`super().__init__(*args, **kwargs)`): what the callers give it
                params = frozenset(obj for obj in value if obj.kind == PARAM)
                if params:
                    out |= {obj for obj in self._kwget(params, keyword, None) if obj is not ABSENT_OBJ}
        return frozenset(out)

    def _count(self, api: SpawnAPI, call: ast.Call, unit: Unit, scope: Scope) -> frozenset:
        """The value of a call's worker count: ABSENT_OBJ when not given; EMPTY when unknown."""
        count = api.count
        if count is None:
            return frozenset({_const(1)})
        if count.via is not None:
            return EMPTY  # read from the object `via` names (see _via)
        if self._threads(api, call, unit, scope):
            return _NO_PROCESS
        return self._argument_value(call, Arg(count.keyword, count.position), unit, scope)

    def _threads(self, api: SpawnAPI, call: ast.Call, unit: Unit, scope: Scope) -> bool:
        """Whether *call* makes its workers threads (``gluon.data.DataLoader(thread_pool=True)``)."""
        return api.threads is not None and any(
            k.arg == api.threads and self.eval(k.value, unit, scope) == frozenset({_const(True)})
            for k in call.keywords)

    def _via(self, api: SpawnAPI, call: ast.Call, unit: Unit, scope: Scope) -> Optional[tuple[frozenset, str]]:
        if api.count is None or api.count.via is None:
            return None
        via_arg, keyword = api.count.via
        return self._argument_value(call, via_arg, unit, scope), keyword

    def _argument_value(self, call: ast.Call, arg: Arg, unit: Unit, scope: Scope) -> frozenset:
        """The value a call gives for *arg*: written out, or a key of a ``**`` dict (a literal, or a ``**kwargs``
        parameter whose callers decide: symbolic until then); ABSENT_OBJ when it gives none."""
        expr = _argument(call, arg)
        if expr is not None and expr is not _UNKNOWN_ARG:
            return self.eval(expr, unit, scope)
        spreads = [k.value for k in call.keywords if k.arg is None]
        if expr is _UNKNOWN_ARG and not (spreads and arg.keyword):
            return EMPTY  # `*args` before the position: cannot be told
        if not spreads:
            return frozenset({ABSENT_OBJ})
        if not arg.keyword:
            return EMPTY
        out: set = set()
        for spread in spreads:
            out |= self._kwget(self.eval(spread, unit, scope), arg.keyword, None)
        return frozenset(out)

    def _kwget(self, dicts: frozenset, key: str, symbol: Optional[Obj]) -> frozenset:
        """``d[key]`` of the dicts a ``**d`` spreads: the value, ABSENT_OBJ when a complete dict lacks it, a
        symbol while the dict is a parameter, EMPTY when it cannot be told."""
        out: set = set()
        unknown = False
        for obj in dicts:
            if obj.kind == DICT:
                if obj.has_part(f"['{key}']"):
                    part = obj.part(f"['{key}']")
                    out |= part
                    unknown = unknown or not part
                elif obj.data == "complete" or (isinstance(obj.node, ast.Dict) and not obj.has_part("**")):
                    out.add(ABSENT_OBJ)
                elif obj.part("**") and all(o.kind in _SYMBOLS or o.kind == DICT for o in obj.part("**")):
                    # a `**kwargs` passed on from a caller's `**kwargs`: the key in what that caller is given
                    found = self._kwget(obj.part("**"), key, None)
                    out |= found
                    unknown = unknown or not found
                else:
                    unknown = True
            elif obj.kind in _SYMBOLS:
                out.add(symbol if symbol is not None
                        else Obj(KWGET, obj.unit, obj.node, key, (("dict", frozenset({obj})),)))
            else:
                unknown = True
        # A key given an unknown value, or a dict that cannot be read: the count is unknown (EMPTY), not absent.
        return EMPTY if unknown or not dicts else frozenset(out)

    def _worker_count(self, api: SpawnAPI, worker: Obj) -> frozenset:
        if api.count is None:
            return frozenset({_const(1)})
        if api.count.via is not None:
            return EMPTY
        keyword = api.count.keyword
        value = worker.part(f"kw:{keyword}")
        if value:
            return value
        call = worker.node
        if isinstance(call, ast.Call):
            owner = self._unit_for(worker) if api.threads is not None else None
            scope = self.scope_of_call(call, owner) if owner is not None else None
            if scope is not None and self._threads(api, call, owner, scope):
                return _NO_PROCESS
            if any(k.arg == keyword for k in call.keywords):
                return EMPTY  # given, as a value not known here (`num_workers=n` of a caller's unknown `n`)
            if api.count.position is not None and api.count.position < len(call.args):
                owner = self._unit_for(worker)
                return self._position_value(call, api.count.position, owner)
            if any(k.arg is None for k in call.keywords) or any(isinstance(a, ast.Starred) for a in call.args):
                owner = self._unit_for(worker)
                if owner is not None:
                    site_scope = self.scope_of_call(call, owner)
                    if site_scope is not None:
                        return self._argument_value(call, Arg(keyword, api.count.position), owner, site_scope)
                return EMPTY
        return frozenset({ABSENT_OBJ})

    def _position_value(self, call: ast.Call, position: int, owner: Optional[Unit]) -> frozenset:
        if owner is None:
            return EMPTY
        scope = self.scope_of_call(call, owner)
        if scope is None or any(isinstance(a, ast.Starred) for a in call.args[:position + 1]):
            return EMPTY
        return self.eval(call.args[position], owner, scope)

    def scope_of_call(self, call: ast.Call, unit: Unit) -> Optional[Scope]:
        sites = unit.module.derived.get("call_scopes")
        if sites is None:
            sites = unit.module.derived["call_scopes"] = {id(c): s.scope for c, s in unit.index.calls}
        return sites.get(id(call))

    def _via_of(self, api: SpawnAPI, worker: Obj) -> Optional[tuple[frozenset, str]]:
        if api.count is None or api.count.via is None:
            return None
        via_arg, keyword = api.count.via
        call = worker.node
        owner = self._unit_for(worker)
        if not isinstance(call, ast.Call) or owner is None:
            return None
        scope = self.scope_of_call(call, owner)
        if scope is None:
            return None
        return self._argument_value(call, via_arg, owner, scope), keyword

    def workers(self, api: SpawnAPI, count: frozenset, via: Optional[tuple[frozenset, str]] = None) -> str:
        """NONE (provably no worker), SOME, or MAYBE for a worker count's value."""
        from .values import MAYBE, NONE, SOME

        spec = api.count
        if spec is None:
            return SOME
        if spec.via is not None:
            if via is None:
                return MAYBE
            sources, keyword = via
            if sources == frozenset({ABSENT_OBJ}):
                return NONE if ABSENT in spec.no_workers else MAYBE
            values: set = set()
            for obj in sources:
                if obj.kind == EXT and obj.part(f"kw:{keyword}"):
                    values |= obj.part(f"kw:{keyword}")
                elif obj.kind == EXT:
                    values.add(ABSENT_OBJ)
                else:
                    return MAYBE
            count = frozenset(values)
        if not count:
            return MAYBE
        states = set()
        for obj in count:
            if obj is ABSENT_OBJ or obj == ABSENT_OBJ:
                states.add(NONE if ABSENT in spec.no_workers else SOME)
            elif obj.kind == CONST:
                value = const_value(obj)
                if any(no is not ABSENT and same_constant(no, value) for no in spec.no_workers) or (
                        value is None and None in spec.no_workers):
                    states.add(NONE)
                else:
                    states.add(SOME)
            else:
                states.add(MAYBE)
        if states == {NONE}:
            return NONE
        if SOME in states and MAYBE not in states:
            return SOME
        return MAYBE if MAYBE in states else SOME

    def active(self, api: SpawnAPI, count: frozenset, via=None) -> bool:
        from .values import MAYBE, NONE

        state = self.workers(api, count, via)
        return state != NONE and (state != MAYBE or self.assume_workers)

    def _explicit_method(self, call: ast.Call, unit: Unit, scope: Scope) -> Optional[str]:
        """The start method a call names itself (``get_context("spawn").Pool``, ``DataLoader(
        multiprocessing_context="spawn")``), or None for the default."""
        contexts = [k.value for k in call.keywords if k.arg in CONTEXT_KEYWORDS]
        if isinstance(call.func, ast.Attribute):
            contexts.append(call.func.value)
        for expr in contexts:
            value, value_scope = unit.resolver.value_of(expr, scope)
            if isinstance(value, ast.Call) and unit.resolver.qualname(value.func, value_scope) in CONTEXT_FACTORIES:
                value = value.args[0] if value.args else next(
                    (k.value for k in value.keywords if k.arg == "method"), None)
            if isinstance(value, ast.Constant) and value.value in _START_METHODS:
                return value.value
        return None

    def _explicit_method_of(self, worker: Obj) -> Optional[str]:
        owner = self._unit_for(worker)
        call = worker.node
        if owner is None or not isinstance(call, ast.Call):
            return None
        scope = self.scope_of_call(call, owner)
        return self._explicit_method(call, owner, scope) if scope is not None else None

    def _joblib_multiprocessing(self, parallel: ast.Call, unit: Unit, scope: Scope) -> bool:
        """``Parallel(n_jobs=2, backend="multiprocessing")``: joblib's multiprocessing backend pickles the tasks
        with the standard pickler (measured: a notebook function hangs it under spawn); its default backend, loky,
        ships them with cloudpickle."""
        if unit.resolver.qualname(parallel.func, scope) not in ("joblib.Parallel", "joblib.parallel.Parallel"):
            return False
        backend = next((k.value for k in parallel.keywords if k.arg == "backend"), None)
        if not (isinstance(backend, ast.Constant) and backend.value == "multiprocessing"):
            return False
        n_jobs = parallel.args[0] if parallel.args else next(
            (k.value for k in parallel.keywords if k.arg == "n_jobs"), None)
        return n_jobs is not None and not (isinstance(n_jobs, ast.Constant) and n_jobs.value in (1, None))

    def _dict_passes(self, call: ast.Call, keyword: Optional[str], unit: Unit, scope: Scope) -> bool:
        if not keyword:
            return False
        for given in call.keywords:
            if given.arg is None:
                if any(o.kind == DICT and o.part(f"['{keyword}']") for o in self.eval(given.value, unit, scope)):
                    return True
                if isinstance(given.value, ast.Name) and keyword in _keys_set_in_place(given.value.id, scope):
                    return True
        return False

    def _shadowed(self, func: ast.expr, unit: Unit, scope: Scope) -> bool:
        """Whether the registry name of *func* comes through an import that a project module shadows."""
        root = func
        while isinstance(root, ast.Attribute):
            root = root.value
        if not isinstance(root, ast.Name) or unit.path is None:
            return False
        binding = unit.resolver.lookup(root.id, scope, getattr(root, "lineno", None))
        if binding is None or binding.kind != "import":
            return False
        if root is func and unit.resolver.reexport(binding.qualname) is not None:
            return False  # (a project module that passes the library's name on: `from utils import DataLoader`)
        return self.project_target(binding, unit) is not None

    def _super_method(self, site: Site, unit: Unit, name: str) -> Optional[tuple[ast.AST, Unit]]:
        """The method *name* that ``super()`` finds from a method of a project class (its first base that has
        it), or None."""
        function = site.scope.function_scope()
        owner = function.parent if function is not None else None
        if owner is None or owner.kind != "class":
            return None
        info = unit.index.classes.get(owner.node)
        if info is None:
            return None
        for current, current_unit in self.class_chain(info, unit)[1:]:
            if name in current.methods:
                return current.methods[name], current_unit
        return None

    def _base_api(self, site: Site, unit: Unit) -> Optional[SpawnAPI]:
        """The worker API the class of a method derives from (directly, or through project classes)."""
        function = site.scope.function_scope()
        owner = function.parent if function is not None else None
        if owner is None or owner.kind != "class":
            return None
        info = unit.index.classes.get(owner.node)
        return self._class_api(info, unit) if info is not None else None

    def _instance_starts(self, instance: Obj, iterable: ast.expr, report: ast.AST, site: Site,
                         unit: Unit) -> list[StartUse]:
        """The starts of iterating an instance of a project class: what its ``__iter__`` iterates (``for batch in
        Prefetcher(loader)``), where the loaders may have workers as a loader iterated directly may (a wrapper that
        rebuilds a loader from another's attributes has the other's count), unless the count still waits for
        arguments nobody gave; or, for a subclass of a loader
        (``class Loader(DataLoader)`` whose ``__init__`` calls ``super().__init__(..., num_workers=n)``), the
        loader's own start, with the count its ``__init__`` gave.  An ``__iter__`` that iterates an instance of its
        own class (a file wrapper whose file is another wrapper, as the analysis may see it) adds nothing past the
        first: each instance is worked out once at a time, and at most MAX_CALL_DEPTH deep."""
        methods = [m for m in self.attribute(instance, "__iter__") if m.kind == BOUND]
        if methods:
            if instance in self._iterating or len(self._iterating) >= MAX_CALL_DEPTH:
                return []
            inner = Summary()
            self._iterating.add(instance)
            try:
                for method in methods:
                    self._propagate(method, self._iter_call(iterable), site, unit, inner)
            finally:
                self._iterating.discard(instance)
            # (a count still waiting for arguments nobody gave, a `**kwargs` of a class built elsewhere: silent)
            return [start for start in inner.starts if start.iterated is None and not depends_on_parameters(
                start.count) and self.active(start.api, start.count, start.via)]
        info, owner = self.class_info(instance)
        api = self._class_api(info, owner) if info is not None else None
        found = self._method(info, owner, "__init__") if info is not None else None
        if api is None or found is None or "__iter__" not in api.start_methods:
            return []
        init, init_unit = found
        binding = _arguments_of(instance)
        binding[_first_param(init)] = frozenset({instance})
        counts = [self.substitute(sink.count, binding) for sink in self.summary(init, init_unit).sinks
                  if sink.api is api]
        return [StartUse(api, unit.path, report, site, counts[0])] if counts else []

    def _api_subclass(self, cls: Obj) -> Optional[SpawnAPI]:
        """The worker API (an object one) a project class derives from without an ``__init__`` of the project's
        own: building it is building the library's object."""
        key = id(cls.node)
        if key in self._api_subclasses:
            return self._api_subclasses[key]
        info, owner = self.class_info(cls)
        api = self._class_api(info, owner) if info is not None and self._method(info, owner, "__init__") is None \
            else None
        found = api if api is not None and api.kind == "object" and not api.sends_subclass else None
        if self.steps <= BUDGET:  # (past the budget a base may have been left out)
            self._api_subclasses[key] = found
        return found

    def _class_api(self, info: ClassInfo, unit: Unit) -> Optional[SpawnAPI]:
        """The worker API a project class derives from (directly, or through project classes)."""
        for current, current_unit in self.class_chain(info, unit):
            for base in current.node.bases:
                name = current_unit.resolver.qualname(base, current.scope) or ""
                if name in self.registry.by_name:
                    return self.registry.by_name[name]
        return None

    # ------------------------------------------------------------------ classes

    def _method(self, info: Optional[ClassInfo], unit: Unit, name: str) -> Optional[tuple[ast.AST, Unit]]:
        if info is None:
            return None
        for current, current_unit in self.class_chain(info, unit):
            if name in current.methods:
                return current.methods[name], current_unit
        return None

    def class_chain(self, info: ClassInfo, unit: Unit) -> list[tuple[ClassInfo, Unit]]:
        """The class and its bases of the project, most derived first (bounded); found once per engine, unless
        the budget ran out while looking (then the bases it could not evaluate are missing)."""
        chain = self._chains.get(id(info.node))
        if chain is None:
            chain = self._bases_chain(info, unit)
            if self.steps <= BUDGET:
                self._chains[id(info.node)] = chain
        return chain

    def _bases_chain(self, info: ClassInfo, unit: Unit) -> list[tuple[ClassInfo, Unit]]:
        chain, todo, seen = [], [(info, unit)], set()
        while todo and len(chain) < 12:
            current, current_unit = todo.pop(0)
            if id(current.node) in seen:
                continue
            seen.add(id(current.node))
            chain.append((current, current_unit))
            for base in current.node.bases:
                for obj in self.eval(base, current_unit, current.scope):
                    if obj.kind == CLASS:
                        base_unit = self._unit_for(obj)
                        base_info = base_unit.index.classes.get(obj.node) if base_unit is not None else None
                        if base_info is not None:
                            todo.append((base_info, base_unit))
        return chain

    def has_state_hook(self, obj: Obj) -> bool:
        info, owner = self.class_info(obj)
        return info is not None and any(_STATE_HOOKS & set(c.methods) for c, _ in self.class_chain(info, owner))

    def is_torch_dataset(self, info: ClassInfo, unit: Unit) -> bool:
        return any(name in _TORCH_DATASET_BASES for name in self._library_bases(info, unit))

    def _library_bases(self, info: ClassInfo, unit: Unit) -> Iterator[str]:
        """The qualified names of the library classes the class derives from (as its bases are written, and as
        they evaluate), its project bases' included."""
        for current, current_unit in self.class_chain(info, unit):
            for base in current.node.bases:
                yield current_unit.resolver.qualname(base, current.scope) or ""
                yield from (o.data for o in self.eval(base, current_unit, current.scope) if o.kind == EXTREF)

    def _gluon_dataset(self, obj: Obj) -> bool:
        """Whether *obj* is an MXNet Gluon dataset: one the library makes, or an instance of a class deriving from
        one of its dataset classes."""
        if obj.kind == EXT:
            return obj.data.startswith(_GLUON_DATASETS)
        info, owner = self.class_info(obj) if obj.kind == INST else (None, None)
        return info is not None and any(name.startswith(_GLUON_DATASETS) for name in self._library_bases(info, owner))

    def fields(self, obj: Obj) -> dict[str, frozenset]:
        """The attributes an instance holds once constructed: what ``__init__`` (and the methods it calls on
        ``self``) stores, with the constructor's arguments."""
        out: dict[str, frozenset] = {}
        for attr, value, _ in self.field_stores(obj):
            out[attr] = out.get(attr, EMPTY) | value
        return out

    def field_stores(self, obj: Obj) -> list[tuple[str, frozenset, Store]]:
        """(attribute, value, the store) for what an instance holds: its class's ``__init__`` stores (with the
        constructor's arguments), then what was stored on it after it was made.  An attribute read while the
        instance's own attributes are being worked out (``self.b = self.a``) has what the stores before it gave
        (``self.root = root`` then ``self.entries = self.root.iterdir()``): unknown when none did."""
        if obj in self._fields:
            return self._fields[obj]
        if obj in self._fielding:
            so_far, paths = self._fielding[obj]
            return _without_thread_mode(list(so_far), paths)
        if self._depth > MAX_EVAL_DEPTH or not self._tick():
            return []
        self._fielding[obj] = ([], {})
        self._depth += 1
        try:
            found = self._field_stores(obj)
        finally:
            del self._fielding[obj]
            self._depth -= 1
        self._fields[obj] = found
        return found

    def _field_stores(self, obj: Obj) -> list[tuple[str, frozenset, Store]]:
        out = []
        info, owner = self.class_info(obj)
        found = self._method(info, owner, "__init__") if info is not None else None
        methods = [found, *self._overriding_hooks(info, owner, *found)] if found is not None else []
        methods += self._setup_hooks(info, owner) if info is not None else []
        if methods:
            init = found[0] if found is not None else None
            stores = []
            so_far, paths = self._fielding[obj]  # (filled as found: what a read of an attribute meanwhile sees)
            for method, method_unit in methods:
                binding = _arguments_of(obj) if method is init else {}
                binding[_first_param(method)] = frozenset({obj})
                stores += [(store, binding, method) for store in self._self_stores(method, method_unit)]
                scope = method_unit.index.scope_of.get(method)
                if scope is not None:
                    paths.update(branch_paths(scope))
            # Each store is an entry of its own, so that what it holds is said to be stored where it is: after
            # `self.conn = None`, `self.conn = sqlite3.connect(path)` holds the connection; `self.loaders[k] = v`
            # and `self.parts.append(v)` put the item in a container of their own, beside what was stored there.
            # (a store by a name computed at run time may replace any attribute: what the others say is one of
            # the values it may hold; a summary lists a callee's stores before its caller's own, so which came
            # first is not known)
            replaced = any(store.attr == ANY_ATTR for store, _, _ in stores)
            for store, binding, method in stores:
                if store.attr == ANY_ATTR:
                    continue
                guards = self._bound_type_guards(store, binding)
                if guards is None or guards and not _arguments_of(obj):
                    # (`if isinstance(scale, float): self.scale = lambda s: scale` given a function, or by a
                    # constructor call nobody is known to make: the callers' arguments decide, and none is known)
                    continue
                value = self._npz(self.substitute(store.value, binding), store, info, owner)
                if any(o.kind == RES and o.data in PICKLES_CLOSED for o in value) and _closed_after(method, store):
                    value = frozenset(o for o in value if not (o.kind == RES and o.data in PICKLES_CLOSED))
                if store.item is not None:
                    value = frozenset({Obj(DICT, owner.path, store.stmt, None, ((store.item, value),))})
                elif replaced:
                    value = value | _REPLACED_AT_RUN_TIME
                out.append((store.attr, value, store))
                so_far.append((store.attr, value, store))
            out = _without_thread_mode(out, paths)
        if info is not None:
            out += self._opened_by_len(obj, info, owner)
        later = []
        for name, value in obj.parts:
            if name.startswith("+."):
                attr, _, key = name[2:].partition("#")
                if attr == ANY_ATTR:
                    continue
                stmt, stmt_unit, always = self._stores_by_key.get(key, (None, None, None))
                if always is not None:  # (what __init__ stored there is gone)
                    out = [entry for entry in out if entry[0] != attr]
                later.append((attr, value, Store(EMPTY, attr, value, stmt, stmt_unit, "")))
        return out + later

    def _setup_hooks(self, info: ClassInfo, unit: Unit) -> list[tuple[ast.AST, Unit]]:
        """The project's methods that the framework of a library base runs after construction and before it asks
        for loaders (:data:`SETUP_HOOKS`: a Lightning data module's ``setup``)."""
        names = frozenset().union(*(SETUP_HOOKS.get(base, ()) for base in self._library_bases(info, unit)))
        return [found for found in (self._method(info, unit, name) for name in sorted(names)) if found is not None]

    def _item_read_before(self, expr: ast.Name, binding: Binding, unit: Unit) -> Optional[ast.Subscript]:
        """The first ``name[...]`` read in the binding's scope after the binding and before this use (``sample =
        ds[0]`` before ``DataLoader(ds, ...)``; comprehensions included), or None."""
        line = getattr(expr, "lineno", None)
        if line is None:
            return None
        return next((node for node in _item_reads(unit, binding.scope).get(expr.id, ())
                     if binding.line <= node.lineno < line), None)

    def _opened_by_item(self, obj: Obj, read: ast.Subscript, unit: Unit) -> list[tuple[str, frozenset]]:
        """What reading an item of a torch dataset in the parent opens and keeps on it: the resources its
        ``__getitem__`` (and the methods it calls) stores, as parts stored where they are stored (a lazy
        ``self._open()`` meant for the workers runs in the parent first; measured:
        tests/fixtures/wsp301_h5py_file_opened_by_an_item_read_in_the_parent.py)."""
        info, owner = self.class_info(obj)
        found = self._method(info, owner, "__getitem__") if info is not None else None
        if found is None or not self.is_torch_dataset(info, owner):
            return []
        call = self._dunder_call(read.value, "__getitem__")
        return [self._store_part(store, call, unit, value) for store, value in self._kept_resources(obj, *found)]

    def _kept_resources(self, obj: Obj, method: ast.AST, unit: Unit) -> list[tuple[Store, frozenset]]:
        """The resources *method* (with the methods it calls) stores on *obj* and does not set to something else
        again (``self.file = None`` after ``self.file.close()``: taken for closed, as SOFA's ``__len__`` does)."""
        binding = {_first_param(method): frozenset({obj})}
        stores = [(store, self.substitute(store.value, binding)) for store in self._self_stores(method, unit)
                  if store.item is None and store.attr != ANY_ATTR]
        reset = {store.attr for store, value in stores if any(o.kind != RES for o in value)}
        return [(store, frozenset(o for o in value if o.kind == RES)) for store, value in stores
                if store.attr not in reset and any(o.kind == RES for o in value)]

    def _opened_by_len(self, obj: Obj, info: ClassInfo, unit: Unit) -> list[tuple[str, frozenset, Store]]:
        """The resources a dataset's ``__len__`` (or a method of it that ``__len__`` calls) opens and keeps on
        ``self`` (a lazy ``self._open()`` in ``__len__`` as in ``__getitem__``): a DataLoader calls ``len()`` in the
        parent (its sampler, ``len(loader)``), so the handle is there when workers are started again, the next
        epoch (measured: tests/fixtures/wsp301_h5py_file_opened_by_len.py).  Only for torch datasets, and only the
        resources: what else ``__len__`` keeps (a count) the workers can have."""
        found = self._method(info, unit, "__len__")
        if found is None or not self.is_torch_dataset(info, unit):
            return []
        return [(store.attr, value, store) for store, value in self._kept_resources(obj, *found)]

    def _self_stores(self, method: ast.AST, unit: Unit) -> list[Store]:
        """What *method* (of a project class) stores on its ``self``, in its summary's order, without the top-level
        stores that a later top-level store of the same attribute replaces (``self.data = Mapped(base, f)``, then
        ``self.data = self.materialize()``)."""
        self_param = _first_param(method)
        stores = [store for store in self.summary(method, unit).stores
                  if any(t.kind == PARAM and t.data == self_param and t.node is method for t in store.target)]
        body = self._top_level(method)
        top = sorted((store for store in stores if store.item is None and id(store.stmt) in body),
                     key=lambda store: store.stmt.lineno)
        last = {store.attr: store for store in top}
        replaced = {id(store) for store in top if last[store.attr] is not store}
        return [store for store in stores if id(store) not in replaced]

    def _overriding_hooks(self, info: ClassInfo, unit: Unit, init: ast.AST, init_unit: Unit
                          ) -> list[tuple[ast.AST, Unit]]:
        """The methods an inherited ``__init__`` calls on ``self`` (``self._initialise()``) that the instance's class
        overrides: the base's summary followed its own, and the instance runs these."""
        if init in info.methods.values():
            return []
        self_name = _first_param(init)
        scope = init_unit.index.scope_of.get(init)
        defining = init_unit.index.classes.get(scope.parent.node) if scope is not None and scope.parent else None
        out: list[tuple[ast.AST, Unit]] = []
        for call, _ in _calls_of(init_unit, init):
            func = call.func
            if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                    and func.value.id == self_name):
                continue
            mine = self._method(info, unit, func.attr)
            base = self._method(defining, init_unit, func.attr)
            if mine is not None and (base is None or mine[0] is not base[0]) and mine not in out:
                out.append(mine)
        return out

    def _npz(self, value: frozenset, store: Store, info: ClassInfo, unit: Unit) -> frozenset:
        """``self.a = np.load(path)`` in a class that reads ``self.a["key"]``: an NpzFile holding an open zip."""
        stmt = store.stmt
        call = getattr(stmt, "value", None)
        if not isinstance(call, ast.Call):
            return value
        owner = self.unit(store.unit) or unit
        scope = self.scope_of_call(call, owner)
        if scope is None or owner.resolver.qualname(call.func, scope) != "numpy.load":
            return value
        for method in info.methods.values():
            for node in ast.walk(method):
                # an archive's members are read by name (`self.a["x"]`, `self.a["arr_" + str(i)]`,
                # `self.a[f"arr_{i}"]`) or listed (`self.a.keys()`, `self.a.files`): an array has neither
                if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute)
                        and node.value.attr == store.attr and _names_a_member(node.slice)) or (
                        isinstance(node, ast.Attribute) and node.attr in ("keys", "files")
                        and isinstance(node.value, ast.Attribute) and node.value.attr == store.attr
                        and isinstance(node.value.value, ast.Name)):
                    return value | {Obj(RES, owner.path, call, Unpicklable(
                        "an open `.npz` archive (`np.load` of an `.npz` keeps the zip file open)", False))}
        return value

    def closure(self, obj: Obj) -> list[tuple[str, frozenset]]:
        """What a local function (or lambda) reads from the functions around it: its captured values."""
        owner = self._unit_for(obj)
        if owner is None:
            return []
        own = owner.index.scope_of.get(obj.node)
        if own is None:
            return []
        # (parameters of the functions around it, as the call that made it gave them)
        out = [(name[len("closure:"):], value) for name, value in obj.parts if name.startswith("closure:")]
        roots = [obj.node.body] if isinstance(obj.node, ast.Lambda) else list(obj.node.body)
        for name, binding in _enclosing_bindings(roots, own, owner):
            if binding.kind == "def":
                out.append((name, frozenset({Obj(FUNC, owner.path, binding.node)})))
            elif binding.kind in ("assign", "with") and binding.value is not None:
                out.append((name, self._binding(binding, owner)))
        return out

    # ------------------------------------------------------------------ flows

    def root_sinks(self, unit: Unit) -> list[SinkUse]:
        """Every sink of *unit* with its arguments as the module's code gives them: the module's own code, and
        each function and method on its own (a method with ``self`` an instance of its class as constructed
        anywhere; a parameter that no caller of the analysed modules gives, unknown)."""
        out: list[SinkUse] = []
        index = unit.index
        out.extend(self.summary(index.tree, unit).sinks)
        for function in index.functions:
            summary = self.summary(function, unit)
            if not summary.sinks:
                continue
            owner = index.scope_of[function].parent
            instance = Obj(INST, unit.path, owner.node, None, ()) if owner is not None and owner.kind == "class" \
                and not _is_static(function) else None
            for sink in summary.sinks:
                # (`self` as its class constructs it, with what this method stored on it before the sink: `with
                # tqdm(total=n) as self.pbar:` around `Process(target=self._count)`)
                binding = {_first_param(function): frozenset({self._stored_by_then(function, unit, instance, sink)})} \
                    if instance is not None else {}
                for bound in self._bound_sink(sink, binding, None) if binding else (sink,):
                    if not self._waits_for_callers(bound, function, unit):
                        out.append(bound)
        # A lambda handed to a call is called by it, as a def may be by anyone: its body's sinks are its own
        # (`study.optimize(lambda t: objective(t, config))` gives `objective` the notebook's `config`, which it sends
        # to a `Process`).  One kept in a name runs where it is called, which the calls' summaries follow.
        if index.lambdas:
            handed = {id(a) for call, _site in index.calls for a in (*call.args, *(k.value for k in call.keywords))}
            for function, _site in index.lambdas:
                if id(function) in handed:
                    out.extend(sink for sink in self.summary(function, unit).sinks
                               if not self._waits_for_callers(sink, function, unit))
        return out

    def _stored_by_then(self, method: ast.AST, unit: Unit, instance: Obj, sink: SinkUse) -> Obj:
        """*instance* with what *method*'s own statements store on its ``self`` before the sink's call (or the call
        in *method* that leads to it), each a possibility (one at the top level replaces the earlier)."""
        line = sink.hops[0].line if sink.hops else getattr(sink.call, "lineno", None)
        if method.name == "__init__" or line is None:
            return instance  # (the constructor's stores are the instance's fields already)
        self_param = _first_param(method)
        stores = [store for store in self.summary(method, unit).stores
                  if store.item is None and store.unit == unit.path and store.stmt.lineno < line
                  and _inside(store.stmt, method) and any(
                      t.kind == PARAM and t.data == self_param and t.node is method for t in store.target)]
        if not stores:
            return instance
        changes = []
        for store in stores:
            key = f"{unit.path}:{line}>{store.unit}:{store.stmt.lineno}"
            top = id(store.stmt) in self._top_level(method)
            self._stores_by_key[key] = (store.stmt, store.unit, store.stmt if top else None)
            changes.append((f"+.{store.attr}#{key}", store.value))
        return self._mutated(instance, changes)

    def _api_sinks(self, api: SpawnAPI, call: ast.Call, site: Site, unit: Unit, summary: Summary) -> None:
        """The sinks of a call of an object worker API itself (or of a subclass built as it): its payload
        arguments, with the worker count the call gives."""
        count = self._count(api, call, unit, site.scope)
        for arg, value in self._payloads(api, api.payload, call, unit, site.scope):
            summary.sinks.append(SinkUse(api, unit.path, call, site, arg, value, count))

    def _library_base_stores(self, call: ast.Call, site: Site, unit: Unit, summary: Summary) -> None:
        """``super().__init__(root, transform=t)`` of a library class: what the library keeps, stored on ``self``
        the way it stores it (a :data:`KEEPERS` entry's arguments; by convention, a dataset's transforms)."""
        scope = site.scope
        base = self._library_base(site, unit)
        if base is None:
            return
        kept = keeper(base)
        names = dict.fromkeys(DATASET_TRANSFORM_KEYWORDS if _class_like(base) else ())
        given = {k.arg: k.value for k in call.keywords if k.arg is not None}
        if kept is not None and not kept.every:
            names.update(dict.fromkeys(kept.keywords))
            starred = next((i for i, a in enumerate(call.args) if isinstance(a, ast.Starred)), len(call.args))
            given.update((name, call.args[position]) for position, name in kept.positions if position < starred)
        method = self._self_name(site.scope.function_scope(), call.lineno)
        stmt = site.stmt if site.stmt is not None else call
        for name, expr in given.items():
            if name in names:
                summary.stores.append(Store(self.eval(method, unit, scope), name, self.eval(expr, unit, scope), stmt,
                                            unit.path, "__init__"))

    def _library_base(self, site: Site, unit: Unit) -> Optional[str]:
        """The qualified name of the library class the class of a method derives from directly (None if its
        first base is the project's, or unknown)."""
        function = site.scope.function_scope()
        owner = function.parent if function is not None else None
        info = unit.index.classes.get(owner.node) if owner is not None and owner.kind == "class" else None
        if info is None or not info.node.bases:
            return None
        base = info.node.bases[0]
        if any(o.kind == CLASS for o in self.eval(base, unit, info.scope)):
            return None
        return unit.resolver.qualname(base, info.scope)

    def _defaulted(self, expr: ast.expr, unit: Unit, scope: Scope) -> Optional[frozenset]:
        """``fn or default`` and ``fn if fn is not None else default`` of a parameter ``fn``: a DEFAULTED symbol,
        so that the default counts only where a caller gives nothing usable (None otherwise)."""
        given = default = None
        how = _TRUE
        if isinstance(expr, ast.BoolOp) and isinstance(expr.op, ast.Or) and len(expr.values) == 2:
            given, default = expr.values
        elif isinstance(expr, ast.IfExp):
            test = expr.test
            if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.comparators[0], ast.Constant) \
                    and test.comparators[0].value is None and isinstance(test.left, ast.Name):
                name = test.left.id
                if isinstance(test.ops[0], ast.IsNot):
                    given, default = expr.body, expr.orelse
                elif isinstance(test.ops[0], ast.Is):
                    given, default = expr.orelse, expr.body
                if not (isinstance(given, ast.Name) and given.id == name):
                    return None
                how = _NOT_NONE
        if not isinstance(given, ast.Name):
            return None
        value = self.eval(given, unit, scope)
        if not value or any(o.kind != PARAM for o in value):
            return None
        return frozenset({Obj(DEFAULTED, unit.path, expr, "not None" if how is _NOT_NONE else "true",
                              (("given", value), ("default", self.eval(default, unit, scope))))})

    def _top_level(self, function: ast.AST) -> frozenset[int]:
        """The ids of a function's top-level statements (found once per engine, which keeps the tree alive)."""
        found = self._tops.get(id(function))
        if found is None:
            found = self._tops[id(function)] = frozenset(id(stmt) for stmt in getattr(function, "body", ()))
        return found

    def _stored_before(self, expr: ast.Attribute, name: str, unit: Unit, scope: Scope,
                       named: bool = False) -> Optional[frozenset]:
        """``self.x`` read in the method that stored it: ``self.root = Path(root)`` in the method's own body
        (never skipped), the value a call's (or, *named*, a name's: ``self.scale = scale``), and no other store of
        ``x`` or into it in between, makes the read that value, not the instance's field (``self.files =
        self.root.iterdir()``); None when that is not so."""
        function = scope.function_scope()
        line = getattr(expr, "lineno", None)
        if function is None or line is None:
            return None
        found = None
        for stmt, _, attr, value in _scope_stores(unit, function, name):
            if attr != expr.attr or stmt.lineno >= line:
                continue
            found = (stmt, value) if id(stmt) in self._top_level(function.node) else None
        if found is None or not isinstance(found[1], (ast.Call, ast.Name) if named else ast.Call):
            return None  # (a container written out is filled later: `self.loaders = {}`, then items)
        for stmt, target, _, _ in _stores(unit)[1].get(id(function.node), ()):
            if isinstance(target, ast.Attribute) and target.attr == expr.attr and \
                    isinstance(target.value, ast.Name) and target.value.id == name and stmt.lineno < line:
                return None
        # (`self.dataset = Frames(); self.dataset.initialize(opt)` before the read: what it stores is on it)
        return self._set_up_after(self.eval(found[1], unit, function), found[0], name, expr.attr, function.node, unit,
                                  line)

    def _sent_instance(self, instance: Obj, method: str, call: ast.Call, site: Site, unit: Unit,
                       summary: Summary) -> None:
        """``worker.start()`` on an instance of a project subclass of an API that sends its subclasses' instances
        whole (``multiprocessing.Process``): a start, and the instance with what it holds is the payload."""
        sent = self._sent(instance, method)
        if sent is not None:
            api, kept = sent
            summary.starts.append(StartUse(api, unit.path, call, site, _ONE, guards=kept))
            summary.sinks.append(SinkUse(api, unit.path, call, site, _SENT_SELF, frozenset({instance}), _ONE,
                                         guards=kept))

    def _hooked_loaders(self, api: SpawnAPI, method: str, call: ast.Call, site: Site, unit: Unit,
                        summary: Summary) -> None:
        """The sinks of the loader hooks (:data:`LOADER_HOOKS`) that *api*'s *method* calls on the project's
        instances it is given (``trainer.fit(model, datamodule)``), ``self`` the instance as this code made it: a
        data module given its dataset by its constructor builds the loader from it."""
        hooks = LOADER_HOOKS.get(api.key, {}).get(method)
        if not hooks:
            return
        # (the model, first, gives the loaders only when nothing after it does: loaders, or a data module)
        others = [*call.args[1:], *(k.value for k in call.keywords if k.arg in LOADER_HOOK_KEYWORDS)]
        given = others or [*call.args[:1], *(k.value for k in call.keywords if k.arg == "model")]
        for expr in given:
            for instance in sorted((o for o in self.eval(expr, unit, site.scope) if o.kind == INST), key=_order):
                info, owner = self.class_info(instance)
                # (a class of the framework's: SETUP_HOOKS names the bases whose instances it calls hooks of)
                if info is None or not any(base in SETUP_HOOKS for base in self._library_bases(info, owner)):
                    continue
                for name in hooks:
                    found = self._method(info, owner, name)
                    if found is None:
                        continue
                    function, where = found
                    hop = Hop(name, unit.path, getattr(call, "lineno", 0), call, site)
                    binding = {_first_param(function): frozenset({instance})}
                    for sink in self.summary(function, where).sinks[:max(0, MAX_SUMMARY_ITEMS - len(summary.sinks))]:
                        summary.sinks += self._bound_sink(sink, binding, hop)

    def _method_kept(self, instance: Obj, method: str) -> Optional[tuple]:
        """Whether a call of *instance*'s *method* runs the method: None when its constructor stores an attribute
        of that name over it (DeepRL's ``BaseActor`` sets ``self.start = lambda: None`` when ``not
        config.async_actor``: that actor starts no process), else the tests, as a start's guards, of a value the
        callers give under which it does not (() when it never does).  A store under another test may or may not
        happen: the method is taken to run."""
        stores = [store for attr, _, store in self.field_stores(instance) if attr == method and store.method]
        if not stores:
            return ()
        out = []
        for store in stores:
            guards = self._bound_type_guards(store, _arguments_of(instance)) if store.guards else ()
            tests = [guard for guard in store.guards if guard[1] == TRUTHY]
            if guards is None or len(tests) != len(self._branches_of(store)) or len(guards) > 1:
                continue  # (not stored for these arguments, or under a test not followed)
            if not guards:
                return None
            value, _, holds = guards[0]
            out.append((value, None, None, not holds))
        return tuple(out)

    def _branches_of(self, store: Store) -> tuple:
        """The branches of its function's statements that a store's statement is in."""
        unit = self.unit(store.unit)
        function = next((node for node in unit.index.functions if getattr(node, "name", None) == store.method
                         and _inside(store.stmt, node)), None) if unit is not None else None
        return branch_paths(unit.index.functions[function]).get(store.stmt, ()) if function is not None else ()

    def _sent(self, instance: Obj, method: str) -> Optional[tuple[SpawnAPI, tuple]]:
        """The API that *method* of *instance* starts and sends it whole with, if its class derives from one and
        the call runs the method, with the guards under which it does (:meth:`_method_kept`); else None."""
        info, owner = self.class_info(instance)
        api = self._class_api(info, owner) if info is not None else None
        if api is None or not api.sends_subclass or method not in api.start_methods:
            return None
        kept = self._method_kept(instance, method)
        return (api, kept) if kept is not None else None

    def _waits_for_callers(self, sink: SinkUse, function: ast.AST, unit: Unit) -> bool:
        """Whether a sink's worker count is the function's callers' to say: it comes from a parameter, and the
        analysed modules call the function (each call is a flow of its own), or it comes through ``**kwargs``
        (a subclass passing its arguments on: most are built with the defaults)."""
        if not (depends_on_parameters(sink.count) or (sink.via is not None and depends_on_parameters(sink.via[0]))):
            return False
        if any(obj.kind == KWGET for obj in sink.count):
            return True
        return self._is_called(function, unit)

    def _is_called(self, function: ast.AST, unit: Unit) -> bool:
        """Whether the checked module or a module that imports it calls *function*.  The calls that name it (the
        function's name, or its class's for ``__init__``) are asked first: a loader builder's caller is found
        without resolving every call of the forty-odd modules that import it (a quarter of a check of
        pytorch-image-models); only when none of them calls it is every call asked (:meth:`callers`)."""
        if self._callers is None and isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names = {function.name}
            own = unit.index.scope_of.get(function)
            if function.name == "__init__" and own is not None and own.parent is not None and \
                    own.parent.kind == "class":
                names.add(own.parent.node.name)
            for current in self._caller_units():
                for call, site in current.index.calls:
                    func = call.func
                    named = func.id if isinstance(func, ast.Name) else func.attr if isinstance(
                        func, ast.Attribute) else None
                    if named in names and function in self._callees(call, current, site):
                        return True
        return bool(self.callers(function, unit))

    def _caller_units(self) -> list[Unit]:
        return [self.main, *(self.importers(self.main) if self.main.path is not None else [])]

    def _callees(self, call: ast.Call, unit: Unit, site: Site) -> Iterator[ast.AST]:
        """The project functions *call* may run (a class's ``__init__`` for a constructor call)."""
        for callee in self.eval(call.func, unit, site.scope):
            target = callee.node
            if callee.kind == CLASS:
                info, owner = self.class_info(callee)
                found = self._method(info, owner, "__init__") if info is not None else None
                target = found[0] if found else None
            elif callee.kind not in (FUNC, BOUND):
                continue
            if target is not None:
                yield target

    def callers(self, function: ast.AST, unit: Unit) -> list[tuple[ast.Call, Unit]]:
        """The calls of *function* (a constructor call for ``__init__``) in the checked module and the modules that
        import it."""
        if self._callers is None:
            self._callers = {}
            for current in self._caller_units():
                for call, site in current.index.calls:
                    for target in self._callees(call, current, site):
                        self._callers.setdefault(id(target), []).append((call, current))
        return self._callers.get(id(function), [])

    def flows(self, unit: Unit) -> list[Flow]:
        """The flows (source -> sink) of the sinks of *unit* whose value holds a source (asked once per engine, by
        :meth:`module_facts`)."""
        out: list[Flow] = []
        if not self._may_hold_sinks(unit):
            return out
        seen: set = set()
        # The most direct sinks first: a flow found from the function that holds the sink is named without the
        # calls that lead to it.
        for sink in sorted(self.root_sinks(unit), key=lambda s: len(s.hops)):
            if not self.active(sink.api, sink.count, sink.via):
                continue
            for source, path in self.sources(sink.value, sink):
                marker = (id(source.node), source.kind, id(sink.call), sink.arg, tuple(
                    (s.how, s.name) for s in path))
                if marker in seen:
                    continue
                seen.add(marker)
                out.append(Flow(source, path, sink))
        return out

    def _may_hold_sinks(self, unit: Unit) -> bool:
        """Whether *unit* may hold a sink: its text names a worker API, or a name it imports may lead to one
        (:meth:`Project.reaches`).  A module that does neither has none, and summarizing each of its functions to
        find that out was most of the cost of checking a project's files."""
        if unit.path is None or unit.notebook or (unit is self.main and self.main_names_api):
            return True
        if unit is self.main and self.main_text is not None and self.project.text_reaches(unit.path, self.main_text):
            return True
        return self.project.reaches(unit.path)

    def flows_of(self, unit: Unit) -> list[Flow]:
        """:meth:`module_facts`' flows of *unit*, found only when it may hold a sink: a module that cannot has
        none, and finding its other facts (its body's summary) to say so cost more than half of a check of a large
        project's importers (diffusers: 626 of 1,459 module-facts computations were asked only for these)."""
        return self.module_facts(unit).flows if self._may_hold_sinks(unit) else []

    def module_facts(self, unit: Unit) -> ModuleFacts:
        """What an analysis of a module on its own finds: its flows, and the worker starts and heavy calls of its
        body.  A fact of the project's files, the same whichever check asks, found once per run
        (:meth:`Project.memo`) by an engine of its own, for the checked module as for those around it: a check's
        engine then starts from the same state whether or not another file's check found its module's facts
        already.  Only a text that may not be the file's (an editor's buffer, the fixer's rewrite), or that names
        other worker APIs than the project's search read in the file, has its facts found by the check's own
        engine."""
        own = unit is self.main
        if own and self._own_facts is not None:
            return self._own_facts
        key = _facts_key(unit.path, unit.notebook, self.registry, self.assume_workers)
        by_self = own and (unit.path is None or self.main_text is not None
                           or self.main_names_api != self.project.names_api(unit.path))

        def compute() -> tuple[ModuleFacts, tuple]:
            if unit.path is not None:
                self.project.record(unit.path)  # (what a module's analysis finds depends on its text)
            # (told, as a check's engine is, whether the module's text names a worker API: then it holds sinks
            # without asking the import graph, and reads what a check of the module reads)
            engine = self if by_self else Engine(self.project, self.registry, self.assume_workers,
                                                 Unit(unit.path, unit.module, notebook=unit.notebook),
                                                 main_names_api=bool(unit.path) and self.project.names_api(unit.path))
            main = engine.main
            # (the body's summary comes first, as a check of the module asks for it first)
            starts, heavy = engine.import_time_starts(main), engine.import_time_heavy_calls(main)
            facts = ModuleFacts(engine.flows(main), starts, heavy,
                                tuple(engine.summary(main.index.tree, main).off))
            named = _units_named(facts)
            return facts, tuple(read.module for path, read in engine.units.items() if path in named)

        if unit.path is None:
            facts = compute()[0]  # (a text with no file: nothing else can ask)
        else:
            facts = self.project.memo(key, compute, pins=lambda value: value[1], renew=by_self)[0]
        if own:
            self._own_facts = facts
        return facts

    def sources(self, value: frozenset, sink: SinkUse) -> Iterator[tuple[Obj, tuple]]:
        """(source, path) for every source reachable from *value* as *sink*'s pickler would pickle it."""
        seen: set = set()
        start = _walked(value)
        if sink.arg.kind in ("args", "kwargs"):
            # The call iterates what it is given in the parent and pickles the items: a list, tuple or dict written
            # out holds them where they can be seen; a generator, a range or a dataset is not pickled itself
            # (`pool.map(f, (x for x in xs))` runs under spawn).
            start = [obj for obj in start if obj.kind in (SEQ, DICT)]
        # (first in, first out: the nearest holder of a source is found first, and names it)
        stack: deque[tuple[Obj, tuple, int]] = deque((obj, (), 0) for obj in start)
        from ..spawn_apis import DILL, PICKLE

        pickler = sink.api.pickler
        while stack:
            obj, path, depth = stack.popleft()
            # (a function is one source however its closure was bound: `transform` made by one factory, kept by a
            # dataset and given to its pipeline, is reported once, by the nearest path)
            ident = (id(obj.node) if obj.kind == FUNC else id(obj), obj.kind, obj.data if obj.kind != INST else None)
            if depth > MAX_NESTING or ident in seen:
                continue
            if obj.kind in (RES, SYNC):
                # (a resource is found through each attribute that keeps it directly: `self.HR_env` and
                # `self.LR_env` both hold what one helper's `lmdb.open` made, and each is a place to fix; the same
                # holder reached twice, a reader kept by the dataset and by its transform, is one)
                last = path[-1] if path else None
                key = (id(obj), obj.kind, last.name if last else None,
                       id(last.owner.node) if last is not None and last.owner is not None else None)
                if key in seen:
                    continue
                seen.add(key)
            elif obj.kind not in (SEQ, DICT):
                seen.add(ident)
            kind = obj.kind
            if kind == LAMBDA:
                yield obj, path
                if pickler == DILL:
                    stack.extend(self._captured(obj, path, depth))
                continue
            if kind == FUNC:
                if self.is_source_definition(obj):
                    yield obj, path
                    stack.extend(self._captured(obj, path, depth))
                continue
            if kind == CLASS:
                if self.is_source_definition(obj):
                    yield obj, path
                continue
            if kind in (RES, SYNC):
                yield obj, path
                continue
            if kind in (EXTMOD, MODULE):
                # (a module, a library's or the project's, is not made anywhere: the sink's module is where it is
                # passed on, and where to pass what it holds instead)
                yield Obj(RES, sink.unit, obj.node, MODULE_OBJECT), path
                continue
            if kind == INST:
                if obj.data and obj.data[0] == "replaced":
                    yield obj, path
                    continue
                if self.is_source_definition(obj):
                    # (and what it holds: moving the class to where a worker finds it does not make an open
                    # file on it picklable)
                    yield obj, path
                if self.has_state_hook(obj) or pickler not in (PICKLE, DILL):
                    continue
                for attr, held, store in self.field_stores(obj):
                    if not path and sink.guards and store.guards and self._stored_only_elsewhere(obj, store, sink):
                        continue
                    step = Step("attr", attr, obj, store.stmt, store.unit)
                    stack.extend((o, (*path, step), depth + 1) for o in _walked(held))
                continue
            if kind == PARTIAL:
                stack.extend((o, (*path, Step("partial", "func", obj)), depth + 1)
                             for o in _walked(obj.part("func")))
                stack.extend((o, (*path, Step("partial", "args", obj)), depth + 1)
                             for o in _walked(obj.part("args")))
                continue
            if kind == BOUND:
                stack.extend((o, (*path, Step("self", obj.data, obj)), depth + 1)
                             for o in _walked(obj.part("self")))
                continue
            if kind == DEFAULTED:  # (no caller decided yet: the default may be what is sent)
                stack.extend((o, path, depth) for o in _walked(obj.part("default")))
                continue
            if kind in (SEQ, DICT, EXT):
                for name, held in obj.parts:
                    if name.startswith("kw:") or name == "**":
                        continue
                    if kind in (SEQ, DICT):
                        how = "item"
                    elif name in ("kept", "held"):
                        how = name
                    elif name.endswith("()"):
                        how = "callable"  # given to a method that runs it in the worker (`.with_transform(f)`)
                    else:
                        how = "attr"
                    step = Step(how, name, obj)
                    stack.extend((o, (*path, step), depth + 1) for o in _walked(held))
                continue

    def _stored_only_elsewhere(self, instance: Obj, store: Store, sink: SinkUse) -> bool:
        """Whether a store on the instance a sink sends happens only where the sink's own test does not hold: the
        same value tested for truth, the other way (DeepRL's ``BaseActor`` stores ``self.start = lambda: None``
        and ``self.close = lambda: None`` when ``not config.async_actor``, and only an actor whose config is
        asynchronous starts, :meth:`_method_kept`)."""
        guards = self._bound_type_guards(store, _arguments_of(instance)) or ()
        tests = {(value, holds) for value, op, _, holds in sink.guards if op is None}
        return any(names == TRUTHY and (value, not holds) in tests for value, names, holds in guards)

    def _captured(self, obj: Obj, path: tuple, depth: int) -> list:
        """What a local function's closure holds (once it is made picklable by binding those values, as ``--fix``
        does, they travel with it); the local functions it calls are followed for theirs, not reported: the fix
        moves them with it."""
        out: list = []
        if depth > MAX_NESTING:
            return out
        for name, value in self.closure(obj):
            step = Step("closure", name, obj)
            for inner in sorted(value, key=_order):
                if inner.kind == FUNC and self.definition_kind(inner) == "local" and \
                        self._closure_def(obj, name):
                    out.extend(self._captured(inner, (*path, step), depth + 1))
                else:
                    out.append((inner, (*path, step), depth + 1))
        return out

    def _closure_def(self, obj: Obj, name: str) -> bool:
        """Whether *name* in the closure of *obj* is a ``def`` (not a variable holding a function)."""
        owner = self._unit_for(obj)
        own = owner.index.scope_of.get(obj.node) if owner is not None else None
        binding = owner.resolver.lookup(name, own) if own is not None else None
        return binding is not None and binding.kind == "def"

    def is_source_definition(self, obj: Obj) -> bool:
        """A function or class that pickle cannot find by reference: defined in a function, at a notebook's top
        level, or only under the main guard of a script."""
        return self.definition_kind(obj) is not None

    def definition_kind(self, obj: Obj) -> Optional[str]:
        owner = self._unit_for(obj)
        if owner is None or obj.node is None:
            return None
        scope = owner.index.scope_of.get(obj.node)
        parent = scope.parent if scope is not None else None
        if parent is None:
            return None
        current = parent
        while current is not None:
            if current.is_function:
                return "local"
            current = current.parent
        if parent.kind == "module":
            if owner.notebook:
                return "notebook"
            if obj.node in owner.guarded():
                bindings = parent.bindings.get(obj.node.name, ())
                if all(b.node in owner.guarded() for b in bindings):
                    return "guard"
        return None

    # ------------------------------------------------------------------ the project around a module

    def import_time_starts(self, unit: Unit) -> list[StartUse]:
        """The worker starts that running *unit*'s module body leads to (the calls of its guard included), with
        their worker counts as the calls give them; only those that may start workers."""
        return [s for s in self.summary(unit.index.tree, unit).starts
                if s.api.reimports_main and s.api.key not in (_ITER_API.key, _SYMBOLIC_API.key)
                and self.active(s.api, s.count, s.via)]

    def import_time_heavy_calls(self, unit: Unit) -> list[HeavyUse]:
        """Calls of *unit*'s module body, at import time, into project functions or classes that do heavy work
        (the first hop is the call in *unit*)."""
        return [h for h in self.summary(unit.index.tree, unit).heavy
                if h.hops and h.hops[0].site is not None and h.hops[0].site.import_time]

    def spawning_importers(self, unit: Unit) -> list[tuple[Unit, tuple[str, ...]]]:
        """Scripts of the project that start spawn workers and import *unit* when they are imported (directly,
        or through a module they import so): every worker they spawn imports it again.  (script, the modules
        between), bounded by IMPORTER_DEPTH."""
        if unit.path is None:
            return []
        out: list[tuple[Unit, tuple[str, ...]]] = []
        index = self.project.importers(self.project.root(unit.path))
        if index is None:
            return out
        seen = {unit.path}
        frontier: list[tuple[Unit, tuple[str, ...]]] = [(unit, ())]
        for _ in range(IMPORTER_DEPTH):
            following = []
            for current, between in frontier:  # (grows while it is walked)
                if len(seen) > MAX_IMPORTERS:
                    break
                for path in self.project.importers_of(current.path, MAX_IMPORTERS + 1 - len(seen)):
                    if path in seen or len(seen) > MAX_IMPORTERS or path.lower().endswith(".ipynb"):
                        continue  # (a notebook's kernel is not re-imported by its workers)
                    importer = self.unit(path)
                    if importer is None or not self._imports_at_import_time(importer, current):
                        continue
                    seen.add(path)
                    # (only a script whose imports may reach a worker API can start workers)
                    if self.project.reaches(path) and self.module_facts(importer).starts:
                        out.append((importer, between))
                    # (a package's `__init__.py` re-exports: not a level, as in importers())
                    (frontier if _is_package_init(path) else following).append((importer, (*between, path)))
            frontier = following
        return out

    def _imports_at_import_time(self, importer: Unit, module: Unit) -> bool:
        """Whether *importer* imports *module* when it is itself imported (a module-level import, not one in a
        function or under the main guard)."""
        search = self.project.imports
        for stmt, site in importer.index.module_imports:
            if not site.import_time:
                continue
            if isinstance(stmt, ast.Import):
                names = [alias.name for alias in stmt.names]
                targets = {search.module_file(importer.path, ".".join(n.split(".")[:end]))
                           for n in names for end in range(1, len(n.split(".")) + 1)}
            else:
                base = stmt.module or ""
                targets = {search.module_file(importer.path, base, stmt.level)} | {
                    search.module_file(importer.path, f"{base}.{a.name}" if base else a.name, stmt.level)
                    for a in stmt.names}
            if module.path in targets:
                return True
        return False

    def importers(self, unit: Unit) -> list[Unit]:
        """Modules of the project that import *unit* (and those that import them, IMPORTER_DEPTH levels), read
        through the project reader; bounded."""
        if unit.path is None:
            return []
        out: list[Unit] = []
        seen = {unit.path}
        frontier = [unit]
        for _ in range(IMPORTER_DEPTH):
            following = []
            for current in frontier:  # (grows while it is walked: see below)
                if len(out) >= MAX_IMPORTERS:
                    break  # (each call below reads files: the bound is on the reading too)
                for path in self.project.importers_of(current.path, MAX_IMPORTERS - len(out)):
                    if path in seen or len(out) >= MAX_IMPORTERS:
                        continue
                    seen.add(path)
                    found = self.unit(path, parses=True)
                    if found is not None:
                        out.append(found)
                        # (a package's `__init__.py` that imports the module re-exports it: `from data import
                        # create_dataloader` is one import away from `data/data_loader.py`, not two)
                        (frontier if _is_package_init(path) else following).append(found)
            frontier = following
        return out


def _is_package_init(path: str) -> bool:
    return os.path.basename(path) == "__init__.py"


def _facts_key(path: Optional[str], notebook: bool, registry: Registry, assume_workers: bool) -> tuple:
    """The key :meth:`Engine.module_facts` keeps a module's facts under (``Project.memo``)."""
    return ("module facts", path, notebook, registry, assume_workers)


def _walked(value: frozenset) -> list[Obj]:
    """The objects of *value* that :meth:`Engine.sources` looks into, in order: a constant, a library's name, a
    worker, and a symbol still waiting for a caller hold no source (they were four in ten of the objects a check of
    the ML benchmark walked)."""
    return sorted((obj for obj in value if obj.kind in _WALKED), key=_order)


def _units_named(facts: ModuleFacts) -> set[str]:
    """The modules whose nodes *facts* name: the units of its objects, sinks, starts, hops and steps (a kept fact
    holds these modules, so that every reader gets the same ones: see ``Project.memo``)."""
    found: set[str] = set()
    seen: set[int] = set()
    stack: list = [facts.flows, facts.starts, facts.heavy]
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, (list, tuple, frozenset)):
            stack.extend(item)
        elif isinstance(item, (Obj, Hop, Step, Flow, SinkUse, StartUse, HeavyUse)):
            if isinstance(getattr(item, "unit", None), str):
                found.add(item.unit)
            stack.extend(getattr(item, name) for name in item._fields)
    return found


def _under_main_guard(site: Site) -> bool:
    """Whether *site* is in the body of an ``if __name__ == "__main__":`` of its function."""
    scope = site.scope.function_scope()
    if site.stmt is None or scope is None or not isinstance(scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False  # (the module's own code: its main guard is the index's; a lambda has no statements)
    return any(isinstance(node, ast.If) and field == "body" and is_main_guard(node.test)
               for node, field in branch_paths(scope).get(site.stmt, ()))


def _binds(unit: Unit, name: str) -> bool:
    """Whether *unit*'s module binds *name* at module level (a dependency in how it binds it, or, when another
    statement than an import does, in the whole module)."""
    bindings = unit.import_bindings(name)
    if bindings is None:
        return bool(unit.index.module_scope.bindings[name])  # (its content recorded: see Unit.module)
    return bool(bindings)


def _comprehension_targets(unit: Unit) -> dict[int, tuple[ast.comprehension, tuple[int, ...]]]:
    """The names read in a comprehension that its own ``for`` binds, by the id of the name's node: the generator
    and where the name sits in its target.  Only the statements that hold a comprehension are walked (the index
    lists their iterables), once per module."""
    found = unit.module.derived.get("comprehension targets")
    if found is not None:
        return found
    found = {}
    statements = {id(site.stmt): site.stmt for iterable, report, site in unit.index.iterations
                  if iterable is report and site.stmt is not None}
    for stmt in statements.values():
        for node in ast.walk(stmt):  # (outer comprehensions first: an inner one's own names replace theirs)
            if not isinstance(node, COMPREHENSIONS):
                continue
            results = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            for number, generator in enumerate(node.generators):
                bound = {n.id: _target_position(generator.target, n.id) for n in ast.walk(generator.target)
                         if isinstance(n, ast.Name)}
                later = [part for other in node.generators[number + 1:] for part in (other.iter, *other.ifs)]
                for part in (*generator.ifs, *later, *results):
                    for name in ast.walk(part):
                        if isinstance(name, ast.Name) and name.id in bound and bound[name.id] is not None:
                            found[id(name)] = (generator, bound[name.id])
    unit.module.derived["comprehension targets"] = found
    return found


def _target_position(target: ast.expr, name: str) -> Optional[tuple[int, ...]]:
    """Where *name* sits in an assignment target: ``()`` for the target itself, ``(1, 0)`` for ``b`` in
    ``a, (b, c)``; None when it is not there, or after a starred element."""
    if isinstance(target, ast.Name):
        return () if target.id == name else None
    if isinstance(target, (ast.Tuple, ast.List)):
        for index, element in enumerate(target.elts):
            if isinstance(element, ast.Starred):
                return None
            inner = _target_position(element, name)
            if inner is not None:
                return (index, *inner)
    return None


def _before_own_value(binding: Optional[Binding], expr: ast.Name) -> Optional[Binding]:
    """``ds = ds.batched(4)``, ``model, loader = accelerator.prepare(model, loader)``: the name read in an
    assignment's own value is the binding before it (the lookup by line finds the assignment itself)."""
    if binding is None or binding.kind not in ("assign", "other") or \
            not isinstance(binding.node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        return binding
    value = getattr(binding.node, "value", None)
    if value is None or not _inside(expr, value):
        return binding
    bindings = binding.scope.bindings.get(binding.name, [])
    position = next((i for i, b in enumerate(bindings) if b is binding), 0)
    return bindings[position - 1] if position > 0 else None


def _same_block(unit: Unit, first: ast.AST, second: ast.stmt, root: ast.AST) -> bool:
    """Whether two statements are in the same block of *root*, a scope of *unit* (straight-line code: when the
    first runs, so does the second, barring an exception or a jump)."""
    # scope node -> statement -> the block (statement list) that holds it: one walk per scope, kept with the module
    blocks = unit.module.derived.setdefault("blocks", {})
    where = blocks.get(root)
    if where is None:
        where = blocks[root] = _blocks_of(root)
    return first in where and where.get(first) is where.get(second)


def _storing_statement(unit: Unit, first: ast.AST, store: ast.stmt, use: ast.AST, root: ast.AST,
                       twins: set) -> Optional[ast.stmt]:
    """The statement of *first*'s block (in *root*, a scope of *unit*) that holds *store* if it stores on every
    path through it that goes on, and *use* comes later in that block: when *use* runs after *first*, *store* or
    one of its *twins* (the stores of the same attribute on the same name) ran in between.  ``if flag:
    ds.transform = f`` / ``else: ds.transform = g``; a branch that leaves the block (``return``, ``raise``,
    ``break``, ``continue``) never reaches *use*."""
    blocks = unit.module.derived.setdefault("blocks", {})
    where = blocks.get(root)
    if where is None:
        where = blocks[root] = _blocks_of(root)
    block = where.get(first)
    if block is None or where.get(store) is block:
        return None
    after = block[block.index(first) + 1:]
    holder = next((stmt for stmt in after if stmt is not store and _inside(store, stmt)), None)
    if holder is None or not any(_inside(use, later) for later in after[after.index(holder) + 1:]):
        return None
    return holder if _always_stores([holder], twins, 0) else None


def _always_stores(block: list, stores: set, depth: int) -> bool:
    """Whether running *block* always runs one of *stores* or leaves the block (an exception aside, as in
    straight-line code): a store in it, or an ``if`` with an ``else`` whose branches both do, or a ``try``
    whose ``finally`` does, or whose body (or ``else``) and every handler do."""
    if depth > MAX_BRANCH_DEPTH:
        return False
    for stmt in block:
        if stmt in stores or isinstance(stmt, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
            return True
        if isinstance(stmt, ast.If) and stmt.orelse and _always_stores(stmt.body, stores, depth + 1) \
                and _always_stores(stmt.orelse, stores, depth + 1):
            return True
        handlers = getattr(stmt, "handlers", None)
        if handlers is not None and (_always_stores(stmt.finalbody, stores, depth + 1) or (
                (_always_stores(stmt.body, stores, depth + 1) or _always_stores(stmt.orelse, stores, depth + 1))
                and all(_always_stores(handler.body, stores, depth + 1) for handler in handlers))):
            return True
    return False


def _blocks_of(root: ast.AST) -> dict[ast.AST, list]:
    """Each statement under *root* -> the block (statement list) that holds it.  Only statements,
    handlers and match cases hold blocks (an expression never holds a statement): the walk does not enter
    expressions."""
    where: dict[ast.AST, list] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list):
                for stmt in block:
                    where[stmt] = block
                stack.extend(block)
        stack.extend(getattr(node, "handlers", None) or ())
        stack.extend(getattr(node, "cases", None) or ())
    return where


def _inside(expr: ast.AST, outer: ast.AST) -> bool:
    start = (getattr(expr, "lineno", 0), getattr(expr, "col_offset", 0))
    return (outer.lineno, outer.col_offset) <= start < (outer.end_lineno or outer.lineno, outer.end_col_offset or 0)


def _is_hf_dataset(obj: Obj) -> bool:
    """Whether an external object comes from Hugging Face ``datasets`` (``load_dataset(...)``, a ``Dataset`` or
    ``DatasetDict`` constructor)."""
    return isinstance(obj.data, str) and obj.data.startswith("datasets.")


def _merge_parts(parts: Iterable[tuple[str, frozenset]]) -> tuple:
    merged: dict[str, frozenset] = {}
    for name, value in parts:
        merged[name] = merged.get(name, EMPTY) | value
    return tuple(sorted(merged.items(), key=lambda p: p[0]))


def _without_thread_mode(entries: list[tuple[str, frozenset, "Store"]], paths: dict[ast.AST, tuple]
                         ) -> list[tuple[str, frozenset, "Store"]]:
    """The stores of an instance, without the thread-only objects (``queue.Queue``, ``threading.Lock``) that one
    branch of an ``if`` stores where another branch stores a multiprocessing one in the same attribute: a switch
    between a thread mode and a process mode (AlphaPose's ``if opt.sp: Queue() else: mp.Queue()``, threads in
    the first, processes in the second), whose process mode sends only the multiprocessing object."""
    process_side = [store.stmt for _, value, store in entries if any(
        o.kind == SYNC or (o.kind == EXT and (o.data or "").startswith(_MP_PREFIXES)) for o in value)]
    if not process_side:
        return entries
    out = []
    for attr, value, store in entries:
        mine = paths.get(store.stmt)
        if mine is not None and any(o.kind == RES and o.data in THREAD_ONLY for o in value) and any(
                other.attr == attr and other.stmt in paths and exclusive_branches(mine, paths[other.stmt])
                for _, _, other in entries if other.stmt in process_side):
            value = frozenset(o for o in value if not (o.kind == RES and o.data in THREAD_ONLY))
        out.append((attr, value, store))
    return out


_MP_PREFIXES = ("multiprocessing.", "torch.multiprocessing.", "multiprocess.")


#: :func:`_symbol_depth` of an object that holds no symbol within :data:`MAX_NESTING` levels
_NO_SYMBOL = MAX_NESTING + 1
#: objects held in one another that :func:`_symbol_depth` follows with the interpreter's stack before it walks
#: the rest level by level
_MAX_SYMBOL_RECURSION = 64


def _symbol_depth(obj: Obj, recursion: int) -> int:
    """How many levels below *obj*'s parts the nearest symbol is (0: a part holds one), :data:`_NO_SYMBOL` when
    none is within :data:`MAX_NESTING` levels.  Each object keeps its answer (:meth:`Obj.symbol_depth`), so an
    object that many values share is looked into once (a walk from each object down to the bound looked at it
    again on each path to it: 430,000 steps in a check of pytorch-image-models); the depth of the nearest symbol,
    not a yes or no, is what an object holding it needs to know."""
    if recursion > _MAX_SYMBOL_RECURSION:
        return _bounded_symbol_depth(obj)
    best = _NO_SYMBOL
    for _, value in obj.parts:
        for inner in value:
            if inner.kind in _SYMBOLS:
                return 0
            if inner.parts and best > 1:
                best = min(best, inner.symbol_depth(recursion + 1) + 1)
    return best


def _bounded_symbol_depth(obj: Obj) -> int:
    """:func:`_symbol_depth` without the interpreter's stack, level by level (objects nested past
    :data:`_MAX_SYMBOL_RECURSION`: never met in a check, bounded all the same)."""
    level: list[Obj] = [obj]
    seen = {id(obj)}
    for depth in range(_NO_SYMBOL):
        following: list[Obj] = []
        for current in level:
            for _, value in current.parts:
                for inner in value:
                    if inner.kind in _SYMBOLS:
                        return depth
                    if inner.parts and id(inner) not in seen:
                        seen.add(id(inner))  # (first met at its shallowest: the nearest symbol is found first)
                        following.append(inner)
        level = following
    return _NO_SYMBOL


def depends_on_parameters(value: frozenset) -> bool:
    """Whether a value still waits for a caller's arguments (a parameter, or something made of one)."""
    return any(obj.kind in _SYMBOLS or (obj.parts and obj.holds_symbols()) for obj in value)


_COMPARISONS = {ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Lt: operator.lt, ast.LtE: operator.le,
                ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Is: operator.is_, ast.IsNot: operator.is_not}
_MIRRORED = {ast.Gt: ast.Lt, ast.GtE: ast.LtE, ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Eq: ast.Eq, ast.NotEq: ast.NotEq,
             ast.Is: ast.Is, ast.IsNot: ast.IsNot}
_IDENTITY = (operator.is_, operator.is_not)


def _numeric_test(test: ast.expr) -> Optional[tuple[ast.expr, Any, Any]]:
    """``x > 1`` (or ``1 < x``) as (x, the comparison, 1); ``x is None`` as (x, ``is``, None); ``x`` alone as (x,
    None, None) (its truth)."""
    if isinstance(test, (ast.Name, ast.Attribute)):
        return test, None, None
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _COMPARISONS):
        return None
    left, right, op = test.left, test.comparators[0], type(test.ops[0])
    if isinstance(left, ast.Constant) and not isinstance(right, ast.Constant):
        left, right, op = right, left, _MIRRORED[op]
    if not (isinstance(right, ast.Constant) and isinstance(left, (ast.Name, ast.Attribute))):
        return None
    if (_COMPARISONS[op] in _IDENTITY) == (right.value is None) and (right.value is None or _number(right.value)):
        return left, _COMPARISONS[op], right.value
    return None


def _one_value_test(test: ast.BoolOp) -> Optional[tuple[ast.expr, "_Combined", None]]:
    """``x is None or x > 0`` (every operand a :func:`_numeric_test` of the same value) as (x, the operands'
    comparisons combined, None): a guard whose truth needs both operands, not one (the body of an ``or``, the
    ``else`` of an ``and``)."""
    found = [_numeric_test(value) for value in test.values]
    if not found or None in found or len({ast.dump(t[0]) for t in found}) != 1:
        return None
    return found[0][0], _Combined(isinstance(test.op, ast.Or), tuple((t[1], t[2]) for t in found)), None


class _Combined(Value):
    """The comparison of a guard made of several on one value (:func:`_one_value_test`): true when any (``or``)
    or every (``and``) comparison is, in order, as Python evaluates it."""

    __slots__ = ("either", "tests")

    def __init__(self, either: bool, tests: tuple) -> None:
        self.either = either
        self.tests = tests

    def decides(self, number: Any) -> bool:
        """Whether every comparison can be made with *number* (an order needs a number, not None)."""
        return all(op is None or op in _IDENTITY or _number(number) for op, _ in self.tests)

    def __call__(self, number: Any) -> bool:
        results = (bool(number) if op is None else bool(op(number, constant)) for op, constant in self.tests)
        return any(results) if self.either else all(results)


#: builtin scalar types, by qualified name: the names of the types whose instances are instances of it
_SCALAR_TYPES = {
    "builtins.int": frozenset({"int", "bool"}), "builtins.float": frozenset({"float"}),
    "builtins.complex": frozenset({"complex"}), "builtins.bool": frozenset({"bool"}),
    "builtins.str": frozenset({"str"}), "builtins.bytes": frozenset({"bytes"}),
    "numbers.Number": frozenset({"int", "bool", "float", "complex"}),
    "numbers.Real": frozenset({"int", "bool", "float"}), "numbers.Integral": frozenset({"int", "bool"}),
}
#: kinds of object that are never an instance of a scalar type: functions and classes
_NOT_SCALAR = frozenset({LAMBDA, FUNC, CLASS, PARTIAL, BOUND})
#: The "types" of a store's guard that tests a value's truth (:meth:`Engine._type_guards`)
TRUTHY = "truth"


def _type_test_never_holds(guard: tuple) -> bool:
    """Whether an ``isinstance`` guard (:meth:`Engine._type_guards`), or a test of truth, comes out against its
    store for every object its value may be (a constant of a known type, a function or a class)."""
    value, names, holds = guard
    if not value:
        return False
    results = set()
    for obj in value:
        if obj.kind in _NOT_SCALAR:
            results.add(names == TRUTHY)  # (a function or a class is true)
        elif obj.kind == CONST and obj.data[0] == "const" and obj.data[1] != "?":
            results.add(bool(const_value(obj)) if names == TRUTHY else
                        any(obj.data[1] in _SCALAR_TYPES[name] for name in names))
        else:
            return False
    return holds not in results


def _never_holds(guard: tuple) -> bool:
    """Whether a guard's test is false (or true, for a start in its ``else``) for every constant its value may be."""
    value, op, constant, holds = guard
    if not value or not all(o.kind == CONST and o.data[0] == "const" for o in value):
        return False
    results = set()
    for obj in value:
        number = const_value(obj)
        if op is None:
            results.add(bool(number))
        elif isinstance(op, _Combined):
            if not op.decides(number):
                return False
            results.add(op(number))
        elif op in _IDENTITY or _number(number):
            results.add(bool(op(number, constant)))
        else:
            return False
    return holds not in results


def _without_thread_alternative(values: set) -> set:
    """``if use_threads: from threading import Event`` / ``else: from multiprocessing import Event``: a mode switch,
    whose thread-side class never reaches a process (lerobot's `ProcessSignalHandler`)."""
    if not any(o.kind == EXTREF and o.data.startswith(_PROCESS_MODULES) for o in values):
        return values
    return {o for o in values if not (o.kind == EXTREF and o.data in _THREAD_ONLY_NAMES)}


def _plain_parameter(binding: Binding) -> bool:
    """Whether *binding* is a function's parameter other than a method's first (its ``self`` or ``cls``)."""
    if binding.kind != "param":
        return False
    scope = binding.scope
    return not (scope.parent is not None and scope.parent.kind == "class"
                and binding.name == _first_param(scope.node))


def _class_like(name: str) -> bool:
    """A library name that makes an object of a class (``datasets.Dataset``, ``datasets.Dataset.from_dict``)."""
    return any(part[:1].isupper() for part in name.split(".")[1:])


def _arguments_of(instance: Obj) -> dict[str, frozenset]:
    """What an instance's constructor was given, by ``__init__``'s parameter names."""
    return {name[1:]: value for name, value in instance.parts if name.startswith("@")}


def _names_a_key(index: ast.expr) -> bool:
    """Whether a subscript's index is a key (``f["images"]``, ``f[name]``), not a slice or a position."""
    if isinstance(index, ast.Constant):
        return isinstance(index.value, str)
    return isinstance(index, (ast.Name, ast.Attribute, ast.JoinedStr, ast.BinOp))


def _names_a_member(index: ast.expr) -> bool:
    """Whether a subscript's index is text: a string, one built from a string, or an f-string."""
    if isinstance(index, ast.Constant):
        return isinstance(index.value, str)
    if isinstance(index, ast.BinOp) and isinstance(index.op, ast.Add):
        return _names_a_member(index.left) or _names_a_member(index.right)
    return isinstance(index, ast.JoinedStr)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _first_param(function: ast.AST) -> str:
    params = [*function.args.posonlyargs, *function.args.args]
    return params[0].arg if params else "self"


#: how a NEW symbol's class is had: a classmethod's ``cls`` (an instance given there stands for its class), or
#: ``type(x)`` of a parameter (the class of what the caller gives)
_CLS, _TYPE_OF = "cls", "type"


def _is_stub(function: ast.AST) -> bool:
    """A method that subclasses are to fill in: ``@abstractmethod``, or a body of only a docstring and ``pass``,
    ``...`` or ``raise NotImplementedError``."""
    if any((d.id if isinstance(d, ast.Name) else d.attr if isinstance(d, ast.Attribute) else None) ==
           "abstractmethod" for d in getattr(function, "decorator_list", ())):
        return True
    body = getattr(function, "body", None)
    if not body:
        return False
    for stmt in body:
        if isinstance(stmt, ast.Pass) or isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and (
                isinstance(stmt.value.value, str) or stmt.value.value is Ellipsis):
            continue
        if isinstance(stmt, ast.Raise) and stmt.exc is not None:
            raised = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
            if isinstance(raised, ast.Name) and raised.id == "NotImplementedError":
                continue
        return False
    return True


def _decorated(function: ast.AST, decorator: str) -> bool:
    """Whether *function* is a def decorated with the builtin *decorator* (``staticmethod``, ``classmethod``)."""
    return any(isinstance(d, ast.Name) and d.id == decorator for d in getattr(function, "decorator_list", ()))


def _class_of(instance: Obj) -> Obj:
    """The class of an instance of a project class (``type(obj)``)."""
    return Obj(CLASS, instance.unit, instance.node, instance.data)


def _argument_keys(call: ast.Call) -> list[tuple[str, ast.expr]]:
    """The arguments of *call* a NEW symbol carries, with their keys: positions up to the first ``*args``, and
    the keywords (``**kwargs`` included)."""
    out = []
    for index, value in enumerate(call.args):
        if isinstance(value, ast.Starred):
            break
        out.append((f"({index})", value))
    out.extend((f"(={index})", keyword.value) for index, keyword in enumerate(call.keywords))
    return out


def _enclosing_bindings(roots: list, own: Scope, unit: Unit) -> Iterator[tuple[str, Binding]]:
    """The names the code *roots* of the function whose scope is *own* reads that a function around it binds, each
    once, with the binding it sees."""
    seen: set[str] = set()
    for root in roots:
        for node in ast.walk(root):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in seen:
                seen.add(node.id)
                binding = unit.resolver.lookup(node.id, own)
                if binding is not None and binding.scope is not own and binding.scope.is_function:
                    yield node.id, binding


def _is_receiver(scope: Scope, name: str) -> bool:
    """Whether *name* is the ``self`` (or ``cls``) of the method *scope*: a closure that reads ``self.x`` needs the
    attribute, and is not taken to send the whole object (a notebook's sampler kept by the instance whose method made
    the collate function was reported as sent)."""
    parent = scope.parent
    return parent is not None and parent.kind == "class" and not _is_static(scope.node) and \
        name == _first_param(scope.node)


def _is_static(function: ast.AST) -> bool:
    return _decorated(function, "staticmethod") or _decorated(function, "classmethod")


def _kept_as(keyword: str) -> str:
    """The attribute a library dataset keeps a keyword argument as: its name (``transforms=`` as ``.transform``)."""
    return ".transform" if keyword == "transforms" else f".{keyword}"


#: How many packages a name passes through by star imports before it is unknown (``from pkg import *`` of an
#: ``__init__`` that star-imports its modules is one more)
MAX_STAR_CHAIN = 3
_UNKNOWN_ARG = object()  # a call whose arguments cannot be matched (``*args`` before the position)
#: the worker count of a call whose workers are threads (:attr:`SpawnAPI.threads`)
_NO_PROCESS = frozenset({_const(0)})
#: The attribute of a store whose name is computed at run time (``setattr(self, key, value)``), and what an attribute
#: stored before it may hold after it: an object nothing is known of (a worker count it gives may be workers).
ANY_ATTR = "*"
_REPLACED_AT_RUN_TIME = frozenset({Obj(EXTREF, None, None, "<setattr>")})


def _argument(call: ast.Call, arg: Arg) -> Any:
    """The expression a call gives for *arg*, None when it gives none, _UNKNOWN_ARG when it cannot be told."""
    if arg.keyword:
        for keyword in call.keywords:
            if keyword.arg == arg.keyword:
                return keyword.value
    if arg.position is not None:
        for index, value in enumerate(call.args):
            if isinstance(value, ast.Starred):
                return _UNKNOWN_ARG
            if index == arg.position:
                return value
    return None


def _passes_keyword(call: ast.Call, keyword: Optional[str]) -> bool:
    return bool(keyword) and any(k.arg == keyword for k in call.keywords)


def _keys_set_in_place(name: str, scope: Scope) -> set[str]:
    """Constant keys that the scope stores into the dict *name* (``d["k"] = v``, ``d.update(k=v)``)."""
    keys = set()
    for node in ast.walk(scope.node):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name) \
                and node.value.id == name and isinstance(node.slice, ast.Constant) \
                and isinstance(node.slice.value, str):
            keys.add(node.slice.value)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "update"
              and isinstance(node.func.value, ast.Name) and node.func.value.id == name):
            keys.update(k.arg for k in node.keywords if k.arg)
    return keys


def _calls_of(unit: Unit, function: ast.AST) -> list[tuple[ast.Call, Site]]:
    """The calls that run when *function* runs (its own body; the module body for the module's tree), from the
    index, in source order."""
    by_function = unit.module.derived.get("calls_by_function")
    if by_function is None:
        by_function = {}
        for call, site in unit.index.calls:
            owner = site.scope.function_scope()
            key = id(owner.node) if owner is not None and owner.kind == "function" else (
                id(owner.node) if owner is not None else id(unit.index.tree))
            by_function.setdefault(key, []).append((call, site))
        unit.module.derived["calls_by_function"] = by_function
    return by_function.get(id(function), [])


def _iterations_of(unit: Unit, function: ast.AST) -> list:
    by_function = unit.module.derived.get("iterations_by_function")
    if by_function is None:
        by_function = {}
        for iterable, report, site in unit.index.iterations:
            owner = site.scope.function_scope()
            key = id(owner.node) if owner is not None else id(unit.index.tree)
            by_function.setdefault(key, []).append((iterable, report, site))
        unit.module.derived["iterations_by_function"] = by_function
    return by_function.get(id(function), [])


def _closed_after(method: ast.AST, store: Store) -> bool:
    """Whether a statement of *method*'s own body after *store* (a top-level ``self.f = ...``) closes what it stored:
    ``self.f.close()``, unconditionally."""
    self_name = _first_param(method)
    body = getattr(method, "body", [])
    if store.item is not None or store.stmt not in body:
        return False
    for stmt in body[body.index(store.stmt) + 1:]:
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "close" \
                and not call.args and isinstance(call.func.value, ast.Attribute) \
                and call.func.value.attr == store.attr and isinstance(call.func.value.value, ast.Name) \
                and call.func.value.value.id == self_name:
            return True
        stored = stmt.targets if isinstance(stmt, ast.Assign) else []
        if any(isinstance(target, ast.Attribute) and target.attr == store.attr for target in stored):
            return False  # (stored again: what is kept is the new value)
    return False


def _attribute_stores(unit: Unit, function: ast.AST) -> list:
    """``x.attr = value`` (and ``setattr(x, "attr", value)``) statements of a function's own body, or of the
    module's body for the module's tree: (statement, x, attr, value)."""
    return _stores(unit)[0].get(id(function), [])


def _attribute_item_stores(unit: Unit, function: ast.AST) -> list:
    """``x.attr[key] = value`` statements of a function's own body (or the module's): (statement, the
    ``x.attr`` node, the part the key names, value)."""
    out = []
    for stmt, target, value, index in _stores(unit)[1].get(id(function), []):
        if isinstance(target, ast.Attribute):
            constant = isinstance(index, ast.Constant) and isinstance(index.value, (str, int))
            out.append((stmt, target, (f"['{index.value}']" if isinstance(index.value, str) else f"[{index.value}]")
                        if constant else "[]", value))
    return out


def _stores(unit: Unit) -> tuple[dict, dict]:
    """The attribute stores and the item stores (``x[k] = value``: (statement, x, value, k)) of every function of a
    module (and of its body), by the function's id: one walk of the module, kept with it."""
    found = unit.module.derived.get("stores")
    if found is not None:
        return found
    attributes: dict[int, list] = {}
    items: dict[int, list] = {}
    stack: list[tuple[ast.AST, int]] = [(child, id(unit.index.tree)) for child in reversed(unit.index.tree.body)]
    while stack:
        node, owner = stack.pop()
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and getattr(node, "value", None) is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target, value in _paired(targets, node.value):
                if isinstance(target, ast.Attribute):
                    attributes.setdefault(owner, []).append((node, target.value, target.attr, value))
                elif isinstance(target, ast.Subscript) and isinstance(node, ast.Assign):
                    items.setdefault(owner, []).append((node, target.value, value, target.slice))
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            # `with tqdm(total=n) as self.pbar:` stores what the manager's `__enter__` gives (the summary asks
            # `Engine._entered`), and it stays there after the block
            for item in node.items:
                if isinstance(item.optional_vars, ast.Attribute):
                    attributes.setdefault(owner, []).append((node, item.optional_vars.value, item.optional_vars.attr,
                                                             item.context_expr))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and node.value.args \
                and isinstance(node.value.func, ast.Attribute) and node.value.func.attr in ("append", "insert") \
                and isinstance(node.value.func.value, ast.Attribute) and not node.value.keywords:
            # `self.datasets.append(ds)`: an item of the list held there (as `self.datasets[i] = ds` is)
            items.setdefault(owner, []).append((node, node.value.func.value, node.value.args[-1], None))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name) \
                and node.value.func.id == "setattr" and len(node.value.args) == 3:
            name = node.value.args[1]
            # (a name computed at run time, `for key, value in params.items(): setattr(self, key, value)`: any
            # attribute stored before it may have been replaced)
            known = isinstance(name, ast.Constant) and isinstance(name.value, str)
            attributes.setdefault(owner, []).append((node, node.value.args[0], name.value if known else ANY_ATTR,
                                                     node.value.args[2]))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and len(node.value.args) == 1 \
                and isinstance(node.value.func, ast.Attribute) and node.value.func.attr == "update" \
                and isinstance(node.value.func.value, ast.Attribute) and node.value.func.value.attr == "__dict__":
            # `self.__dict__.update(params)`: the same
            attributes.setdefault(owner, []).append((node, node.value.func.value.value, ANY_ATTR, node.value.args[0]))
        if isinstance(node, ast.expr):
            continue  # (statements hold the stores; a lambda's body is an expression)
        inner = id(node) if isinstance(node, FUNCTION_NODES) else owner
        for child in reversed(list(ast.iter_child_nodes(node))):
            if isinstance(child, (ast.stmt, ast.excepthandler)) or type(child).__name__ == "match_case":
                stack.append((child, inner))
    found = unit.module.derived["stores"] = (attributes, items)
    return found


def _paired(targets: list, value: ast.expr) -> Iterator[tuple[ast.expr, ast.expr]]:
    """Each target of an assignment with the value it gets: a tuple of targets given a tuple (or list) display of
    as many values (``self.a, self.b = {}, {}``) gets them one by one; any other unpacking is not followed."""
    for target in targets:
        if isinstance(target, (ast.Tuple, ast.List)):
            if any(isinstance(e, ast.Starred) for e in target.elts):
                continue
            if isinstance(value, (ast.Tuple, ast.List)):
                if len(value.elts) == len(target.elts) and not any(isinstance(e, ast.Starred) for e in value.elts):
                    yield from zip(target.elts, value.elts)
                continue
            # `self.src, self.close_src = self._input(path)`: each gets the item at its position, as `value[i]`
            # would (a node made here, kept with the module's stores, so the engine's answers by id stay its own)
            for index, element in enumerate(target.elts):
                if isinstance(element, ast.Attribute):
                    yield element, ast.copy_location(
                        ast.Subscript(value=value, slice=ast.copy_location(ast.Constant(value=index), value),
                                      ctx=ast.Load()), value)
            continue
        yield target, value


def _used_after(unit: Unit, scope: Scope, name: str, line: int, binding: Binding) -> bool:
    """Whether *scope*'s own code uses the object *name* holds after *line*, while the name still holds
    *binding*, in a way that may start its workers: iterated, or given to a call (not ``name.attr``, not
    ``len(name)``).  Asked only of a worker object whose payload is changed after it is made: a walk of the
    scope."""
    root = scope.node
    stack: list[ast.AST] = list(root.body) if isinstance(root, (ast.Module, *FUNCTION_NODES)) else []
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name):
            if node.id == name and isinstance(node.ctx, ast.Load) and node.lineno > line \
                    and unit.resolver.lookup(name, scope, node.lineno) is binding:
                return True
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            continue  # (an attribute of the loader, read in the parent)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len":
            continue
        elif not isinstance(node, (*FUNCTION_NODES, ast.ClassDef, ast.Lambda)):  # (their code is not the scope's)
            stack.extend(ast.iter_child_nodes(node))
    return False


def _scope_stores(unit: Unit, scope: Scope, name: str) -> list:
    """``name.attr = value`` statements of a scope's own code (a function's body, or the module's)."""
    return _stores_by_name(unit)[0].get((id(scope.node), name), [])


def _scope_item_stores(unit: Unit, scope: Scope, name: str) -> list:
    """``name[k] = value`` statements of a scope's own code."""
    return _stores_by_name(unit)[1].get((id(scope.node), name), [])


def _stores_by_name(unit: Unit) -> tuple[dict, dict]:
    """:func:`_stores` of a plain name, by (the function's id, the name), in the module's order: every use of a
    name asks for those of its scope."""
    found = unit.module.derived.get("stores by name")
    if found is None:
        found = ({}, {})
        for grouped, stores in zip(found, _stores(unit)):
            for owner, rows in stores.items():
                for row in rows:
                    target = row[1]
                    if isinstance(target, ast.Name):
                        grouped.setdefault((owner, target.id), []).append(row)
        unit.module.derived["stores by name"] = found
    return found


def _item_reads(unit: Unit, scope: Scope) -> dict[str, list[ast.Subscript]]:
    """The ``name[...]`` reads of *scope*'s own code (its comprehensions' too, not its nested functions' or
    classes'), by name, in the module's order (found once per module and scope)."""
    found = unit.module.derived.setdefault("item reads", {})
    reads = found.get(id(scope))
    if reads is None:
        reads = {}
        body = getattr(scope.node, "body", [])
        stack = list(body) if isinstance(body, list) else [body]  # (a lambda's body is one expression)
        while stack:
            node = stack.pop()
            if isinstance(node, (*FUNCTION_NODES, ast.ClassDef, ast.Lambda)):
                continue
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name):
                reads.setdefault(node.value.id, []).append(node)
            stack.extend(ast.iter_child_nodes(node))
        for nodes in reads.values():
            nodes.sort(key=lambda n: (n.lineno, n.col_offset))
        found[id(scope)] = reads
    return reads


def _all_receiver_calls(unit: Unit, scope: Scope, name: str) -> list[tuple[ast.Call, Site]]:
    """The method calls ``name.anything(...)`` made in *scope*'s own code, in the module's order (grouped once per
    module by scope and receiver)."""
    grouped = unit.module.derived.get("receiver calls")
    if grouped is None:
        grouped = {}
        for calls in unit.index.method_calls.values():
            for call, site in calls:
                receiver = call.func.value
                if isinstance(receiver, ast.Name):
                    grouped.setdefault((id(site.scope), receiver.id), []).append((call, site))
        for calls in grouped.values():
            calls.sort(key=lambda entry: (entry[0].lineno, entry[0].col_offset))
        unit.module.derived["receiver calls"] = grouped
    return grouped.get((id(scope), name), [])


def _constant_defaults(function: ast.AST) -> dict[str, Any]:
    """The parameters of a def or lambda whose defaults are constants, with them (none for a module)."""
    args = getattr(function, "args", None)
    if args is None:
        return {}
    positional = [*args.posonlyargs, *args.args]
    pairs = [*zip(positional[len(positional) - len(args.defaults):], args.defaults),
             *zip(args.kwonlyargs, args.kw_defaults)]
    return {arg.arg: default.value for arg, default in pairs if isinstance(default, ast.Constant)}


def _given_for(function: ast.AST, call: ast.Call, param: str, skip_self: bool) -> Any:
    """What *call* gives *function*'s parameter *param*: the expression, None if nothing (its default), or
    :data:`_UNKNOWN_ARG` when ``*args``/``**kwargs`` may give it."""
    args = function.args
    positional = [a.arg for a in [*args.posonlyargs, *args.args]][1 if skip_self else 0:]
    given = _argument(call, Arg(param, positional.index(param) if param in positional else None))
    return _UNKNOWN_ARG if given is None and any(k.arg is None for k in call.keywords) else given


def _parameters_given(function: ast.AST, call: ast.Call, name: str, skip_self: bool) -> set[str]:
    """The parameters of *function* that *call* gives the name *name* itself (by position before any ``*args``,
    or by keyword)."""
    args = function.args
    positional = [a.arg for a in [*args.posonlyargs, *args.args]][1 if skip_self else 0:]
    out = set()
    for index, value in enumerate(call.args):
        if isinstance(value, ast.Starred):
            break
        if isinstance(value, ast.Name) and value.id == name and index < len(positional):
            out.add(positional[index])
    names = set(positional) | {a.arg for a in args.kwonlyargs}
    out |= {k.arg for k in call.keywords if k.arg in names and isinstance(k.value, ast.Name) and k.value.id == name}
    return out


def _receiver_calls(unit: Unit, method: str, scope: Scope, name: str) -> list[tuple[ast.Call, Site]]:
    """The calls ``name.method(...)`` made in *scope*'s own code, in the module's order: the calls of a method
    grouped once per module by scope and receiver, as every use of a name asks for them."""
    key = ("receiver calls", method)
    grouped = unit.module.derived.get(key)
    if grouped is None:
        grouped = {}
        for call, site in unit.index.method_calls.get(method, ()):
            receiver = call.func.value
            if isinstance(receiver, ast.Name):
                grouped.setdefault((id(site.scope), receiver.id), []).append((call, site))
        unit.module.derived[key] = grouped
    return grouped.get((id(scope), name), [])


JOBLIB_MULTIPROCESSING = SpawnAPI("joblib.Parallel(backend=multiprocessing)", (),
                                  '`joblib.Parallel(backend="multiprocessing")`', kind="call",
                                  payload_with_tasks=True)
_JOBLIB_DELAYED = frozenset({"joblib.delayed", "joblib.parallel.delayed"})


def _joblib_tasks(call: ast.Call, unit: Unit, scope: Scope) -> Iterator[tuple[ast.expr, list]]:
    """(function, its arguments) of each ``delayed(f)(args)`` task given to a ``Parallel(...)`` call."""
    for node in (n for arg in call.args for n in ast.walk(arg)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Call) and node.func.args
                and unit.resolver.qualname(node.func.func, scope) in _JOBLIB_DELAYED):
            yield node.func.args[0], list(node.args)


#: A start that waits for a caller: the iteration of a parameter that may be a worker object.
def _project_objects(values: frozenset) -> bool:
    """Whether *values* are known, and all classes or instances of classes of the project."""
    return bool(values) and all(o.kind in (CLASS, INST) for o in values)


_ONE = frozenset({_const(1)})
#: The payload of a subclass whose instance is sent whole (:attr:`SpawnAPI.sends_subclass`).
_SENT_SELF = Arg("self", None)
_ITER_API = SpawnAPI("<iterated>", (), "<iterated>", kind="object", start_methods=("__iter__",))
#: A start that waits for a caller: a method call on a parameter that may be a worker object.
_SYMBOLIC_API = SpawnAPI("<method>", (), "<method>", kind="object")


def _returns_of(unit: Unit, function: ast.AST) -> list[ast.expr]:
    """The values of a function's own ``return`` statements, found once per module (every engine that summarizes
    the function asks)."""
    from .workers import function_returns

    kept = unit.module.derived.setdefault("returns", {})
    found = kept.get(id(function))
    if found is None:
        found = kept[id(function)] = function_returns(function)
    return found


def _never_used(call: ast.Call, site: Site) -> bool:
    from .workers import _never_used as never_used

    return never_used(call, site)


def main_guard_statements(unit: Unit) -> set:
    return unit.guarded()


__all__ = ["Engine", "Unit", "Obj", "Flow", "SinkUse", "StartUse", "Step", "Hop", "is_main_guard", "never_runs"]
