"""One walk over a module's tree that records everything the checks ask about.

The walk notes, for every node the checks care about, *where it runs*: at
import time (module level or a class body outside the main guard), under the
main guard, or inside a function; and it builds the scopes, bindings and
class facts that name resolution reads.  Checks never walk the tree again.
"""

from __future__ import annotations

import ast
import weakref
from typing import Iterator, Optional

from ..io.compact_tree import node_class, node_classes
from ..records import Record
from .guards import is_main_guard, never_runs

FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef)


def is_super(expr: ast.AST) -> bool:
    """Whether *expr* is the call ``super()`` (with or without arguments): the receiver of ``super().__init__(...)``."""
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "super"


def passes_true(call: ast.Call, keyword: str) -> bool:
    """Whether *call* gives *keyword* the constant True (``tqdm(disable=True)``, ``resnet50(pretrained=True)``)."""
    return any(k.arg == keyword and isinstance(k.value, ast.Constant) and k.value.value is True for k in call.keywords)


class Scope(Record):
    __slots__ = ("node", "kind", "parent", "bindings", "globals_", "star_imports", "paths", "__weakref__")

    def __init__(self, node: ast.AST, kind: str, parent: Optional["Scope"],
                 bindings: Optional[dict[str, list["Binding"]]] = None, globals_: Optional[set[str]] = None,
                 star_imports: Optional[list[str]] = None, paths: Optional[dict[ast.AST, tuple]] = None) -> None:
        self.node = node
        self.kind = kind  # "module" | "function" | "class" | "lambda"
        self.parent = parent
        self.bindings = bindings if bindings is not None else {}
        self.globals_ = globals_ if globals_ is not None else set()
        #: modules imported with ``from M import *`` in this scope (their names are resolved against the registry)
        self.star_imports = star_imports if star_imports is not None else []
        #: its statements' paths (:func:`branch_paths`), found when first asked
        self.paths = paths

    @property
    def is_function(self) -> bool:
        return self.kind in ("function", "lambda")

    def function_scope(self) -> Optional["Scope"]:
        scope: Optional[Scope] = self
        while scope is not None and not scope.is_function:
            scope = scope.parent
        return scope

    def bind(self, binding: "Binding") -> None:
        self.bindings.setdefault(binding.name, []).append(binding)


class Binding:
    """A name bound in a scope.  It holds its scope weakly: the scope holds its bindings, and with the cycle every
    module's index (its nodes with it) would wait for the cyclic collector instead of being freed by reference
    counting when the last reader lets go of it (see ``Project.holding``)."""

    __slots__ = ("name", "kind", "node", "_scope", "value", "qualname", "fallback_of")

    def __init__(self, name: str, kind: str, node: ast.AST, scope: Scope, value: Optional[ast.expr] = None,
                 qualname: Optional[str] = None) -> None:
        self.name = name
        self.kind = kind  # import | def | class | assign | param | with | for | other
        self.node = node  # the statement (or def/class/arg)
        self._scope = weakref.ref(scope)
        self.value = value  # assign: the value; with: the context expression
        self.qualname = qualname  # import: what the name stands for
        #: an import in a handler (``except ImportError:``) that rebinds a name the ``try`` body imported: (the
        #: body's binding, the last line of the ``try``); see :func:`tried_first`
        self.fallback_of: Optional[tuple[Binding, int]] = None

    @property
    def scope(self) -> Scope:
        scope = self._scope()
        assert scope is not None, "a binding outlived its module's index"
        return scope

    @property
    def line(self) -> int:
        return getattr(self.node, "lineno", 0)

    def __repr__(self) -> str:
        return f"Binding({self.name!r}, {self.kind!r}, line {self.line})"


def tried_first(binding: Binding, line: Optional[int] = None) -> Binding:
    """The binding a use at *line* (None: once the module has run) sees, of those made up to it: for an import
    fallback (``try: from multiprocess import Pool`` / ``except ImportError: from multiprocessing import Pool``),
    after the ``try``, the body's import.  Python tries it first and runs the fallback only when it fails, which
    cannot be told without the environment: the standard library never fails, and otherwise the body is what the
    author meant to run (a name of a library the registry does not know keeps the checks silent)."""
    if binding.fallback_of is not None and (line is None or line > binding.fallback_of[1]):
        return binding.fallback_of[0]
    return binding


class Site(Record):
    """Where a node runs."""

    __slots__ = ("scope", "stmt", "top_stmt", "import_time", "guarded", "catches_runtime_error")

    def __init__(self, scope: Scope, stmt: ast.stmt, top_stmt: Optional[ast.stmt], import_time: bool, guarded: bool,
                 catches_runtime_error: bool) -> None:
        self.scope = scope
        self.stmt = stmt  # the innermost enclosing statement
        self.top_stmt = top_stmt  # the enclosing statement directly in the module body (None inside defs)
        self.import_time = import_time  # runs when the module is imported (not under the guard, not in a function)
        self.guarded = guarded  # under `if __name__ == "__main__":` at module level
        self.catches_runtime_error = catches_runtime_error  # inside a `try` whose handlers catch RuntimeError

    @property
    def function(self) -> Optional[Scope]:
        return self.scope.function_scope()


class ClassInfo(Record):
    __slots__ = ("node", "scope", "body_scope", "methods", "self_assignments")

    def __init__(self, node: ast.ClassDef, scope: Scope, body_scope: Scope,
                 methods: Optional[dict[str, ast.AST]] = None,
                 self_assignments: Optional[dict[str, list[tuple[str, ast.expr, ast.stmt, Scope]]]] = None) -> None:
        self.node = node
        self.scope = scope  # the scope the class is defined in
        self.body_scope = body_scope
        self.methods = methods if methods is not None else {}
        #: method name -> [(attribute, value, statement, method scope)] for ``self.attr = value``
        self.self_assignments = self_assignments if self_assignments is not None else {}


_RUNTIME_ERROR_CATCHERS = {"RuntimeError", "Exception", "BaseException"}


def _catches_runtime_error(handlers: list[ast.ExceptHandler]) -> bool:
    for handler in handlers:
        if handler.type is None:
            return True
        types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        for t in types:
            name = t.attr if isinstance(t, ast.Attribute) else getattr(t, "id", None)
            if name in _RUNTIME_ERROR_CATCHERS:
                return True
    return False


#: what a test calls to say that the block of its ``with`` raises: ``pytest.raises``, unittest's
#: ``self.assertRaises``/``assertRaisesRegex``, numpy.testing's ``assert_raises``
_RAISE_EXPECTATIONS = frozenset({"raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp",
                                 "assert_raises", "assert_raises_regex"})


def _expects_raise(stmt: ast.With) -> bool:
    for item in stmt.items:
        call = item.context_expr
        if isinstance(call, ast.Call):
            func = call.func
            if (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)) in _RAISE_EXPECTATIONS:
                return True
    return False


def _mark_import_fallbacks(stmt: ast.stmt, scope: Scope) -> None:
    """Mark the imports of the handlers of *stmt* (a ``try``) that rebind a name its body imports (statements
    directly in the blocks: the usual shape of an optional dependency, ``except ImportError``; a handler runs
    only when the body raised, whatever it catches)."""
    first = {b.name: b for child in stmt.body if isinstance(child, (ast.Import, ast.ImportFrom))
             for b in _import_bindings(child, scope)}
    if not first:
        return
    for handler in stmt.handlers:
        for child in handler.body:
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                for binding in _import_bindings(child, scope):
                    if binding.name in first:
                        binding.fallback_of = (first[binding.name], stmt.end_lineno or stmt.lineno)


def _import_bindings(stmt: ast.stmt, scope: Scope) -> list[Binding]:
    names = {alias.asname or alias.name.split(".")[0] for alias in stmt.names if alias.name != "*"}
    return [b for name in names for b in scope.bindings.get(name, ()) if b.node is stmt]


class ModuleIndex:
    """Everything the checks need from one module, built by one walk."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.module_scope = Scope(tree, "module", None)
        self.scope_of: dict[ast.AST, Scope] = {tree: self.module_scope}  # def/class/lambda -> its own scope
        self.calls: list[tuple[ast.Call, Site]] = []
        #: the calls of a method (``x.name(...)``), by method name
        self.method_calls: dict[str, list[tuple[ast.Call, Site]]] = {}
        #: ``name.attr = value`` statements (one target: an attribute of a plain name), by attribute
        self.attribute_assignments: dict[str, list[ast.Assign]] = {}
        #: iterated expressions: (iterable, node to report, site)
        self.iterations: list[tuple[ast.expr, ast.AST, Site]] = []
        self.lambdas: list[tuple[ast.Lambda, Site]] = []
        self.main_guards: list[ast.If] = []
        self.module_ifs: list[ast.If] = []  # every `if` directly at module level (candidates for WSP102)
        self.module_imports: list[tuple[ast.stmt, Site]] = []
        #: every import statement, at any place of the module (what the project's import index follows)
        self.imports: list[ast.stmt] = []
        self.classes: dict[ast.ClassDef, ClassInfo] = {}
        self.functions: dict[ast.AST, Scope] = {}  # def node -> its scope
        self.generator_functions: set[ast.AST] = set()
        #: how many blocks a test expects to raise the walk is in (:func:`_expects_raise`)
        self._expecting = 0
        #: :meth:`calls_in_loops`' answers, by the id of the def (or tree) asked
        self._looped: dict[int, frozenset[int]] = {}
        self._walk_module()

    def calls_in_loops(self, owner: ast.AST) -> frozenset[int]:
        """The ids of the calls of *owner*'s own code (a def's or lambda's body; the module's for the tree) that
        run once per iteration of a loop there: in a ``for`` or ``while`` body, a ``while`` test, or a
        comprehension's element, conditions and inner iterables.  Found when first asked of *owner*: few are (a
        reader that is heavy only in a loop, ``spawn_apis.HEAVY_IN_LOOP``, asks)."""
        found = self._looped.get(id(owner))
        if found is None:
            found = self._looped[id(owner)] = _calls_in_loops(owner)
        return found

    # -- the walk ---------------------------------------------------------------------------------
    def _walk_module(self) -> None:
        for stmt in self.tree.body:
            self._stmt(stmt, self.module_scope, top=stmt, import_time=True, guarded=False, catches=False)

    def _stmt(self, stmt: ast.stmt, scope: Scope, top, import_time: bool, guarded: bool, catches: bool) -> None:
        site = Site(scope, stmt, top, import_time, guarded, catches)
        at_module = scope is self.module_scope
        if isinstance(stmt, FUNCTION_NODES):
            for expr in [*stmt.decorator_list, *_defaults(stmt.args)]:
                self._expr(expr, site)
            scope.bind(Binding(stmt.name, "def", stmt, scope))
            inner = Scope(stmt, "function", scope)
            self.scope_of[stmt] = inner
            self.functions[stmt] = inner
            self._params(stmt.args, inner)
            for child in stmt.body:
                self._stmt(child, inner, top if at_module else top, import_time=False, guarded=False, catches=False)
            return
        if isinstance(stmt, ast.ClassDef):
            for expr in [*stmt.decorator_list, *stmt.bases, *(k.value for k in stmt.keywords)]:
                self._expr(expr, site)
            scope.bind(Binding(stmt.name, "class", stmt, scope))
            body_scope = Scope(stmt, "class", scope)
            self.scope_of[stmt] = body_scope
            info = ClassInfo(stmt, scope, body_scope)
            self.classes[stmt] = info
            for child in stmt.body:
                if isinstance(child, FUNCTION_NODES):
                    info.methods[child.name] = child
                # A class body runs when the class statement runs.
                self._stmt(child, body_scope, top, import_time, guarded, catches)
            for name, method in info.methods.items():
                self._collect_self_assignments(info, name, method)
            return
        if isinstance(stmt, ast.If) and at_module:
            self.module_ifs.append(stmt)
            never = never_runs(stmt.test)
            if is_main_guard(stmt.test) or never:
                if not never:
                    self.main_guards.append(stmt)
                self._expr(stmt.test, site)
                for child in stmt.body:
                    self._stmt(child, scope, top, import_time=False, guarded=True, catches=catches)
                for child in stmt.orelse:
                    self._stmt(child, scope, top, import_time, guarded, catches)
                return
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            self._bind_import(stmt, scope)
            self.imports.append(stmt)
            if at_module:
                self.module_imports.append((stmt, site))
            return
        if isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            inner_catches = catches or _catches_runtime_error(stmt.handlers)
            for child in stmt.body:
                self._stmt(child, scope, top, import_time, guarded, inner_catches)
            for handler in stmt.handlers:
                if handler.type is not None:
                    self._expr(handler.type, site)
                if handler.name:
                    scope.bind(Binding(handler.name, "other", handler, scope))
                for child in handler.body:
                    self._stmt(child, scope, top, import_time, guarded, catches)
            for child in [*stmt.orelse, *stmt.finalbody]:
                self._stmt(child, scope, top, import_time, guarded, catches)
            _mark_import_fallbacks(stmt, scope)
            return
        if isinstance(stmt, (ast.Global, ast.Nonlocal)):
            if isinstance(stmt, ast.Global):
                scope.globals_.update(stmt.names)
            return
        # Bindings made by this statement.
        expecting = False
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                self._bind_target(target, stmt, scope, stmt.value)
            target = stmt.targets[0]
            if len(stmt.targets) == 1 and isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                self.attribute_assignments.setdefault(target.attr, []).append(stmt)
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            self._bind_target(stmt.target, stmt, scope, stmt.value)
        elif isinstance(stmt, ast.AugAssign):
            self._bind_target(stmt.target, stmt, scope, None)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            self._bind_target(stmt.target, stmt, scope, None, kind="for")
            if not self._expecting:
                self.iterations.append((stmt.iter, stmt, site))
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                if item.optional_vars is not None:
                    self._bind_target(item.optional_vars, stmt, scope, item.context_expr, kind="with")
            if _expects_raise(stmt):
                # A block a test expects to raise stops at the raise it asserts: its calls and loops are not
                # indexed, so no check follows them to a worker (trl's test of a trainer that refuses a dataset
                # with a local transform before any loader exists).
                self._expecting += 1
                expecting = True
        # Expressions directly in this statement, then nested statements.
        kind = node_class(stmt)
        fields = _CHILD_FIELDS.get(kind)
        if fields is None:
            fields = _CHILD_FIELDS[kind] = tuple(f for f in kind._fields if f not in _NEVER_CHILDREN)
        for attribute in fields:
            value = getattr(stmt, attribute, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, ast.stmt):
                        self._stmt(item, scope, top, import_time, guarded, catches)
                    elif type(item).__name__ == "match_case":
                        for child in item.body:
                            self._stmt(child, scope, top, import_time, guarded, catches)
                    elif isinstance(item, ast.AST) and type(item) not in _LEAVES:
                        self._expr(item, site)
            elif isinstance(value, ast.AST) and type(value) not in _LEAVES:
                self._expr(value, site)
        if expecting:
            self._expecting -= 1

    def _expr(self, node: ast.AST, site: Site) -> None:
        # Iterative, so deeply nested expressions cannot exhaust the C stack here.
        if type(node) in _LEAVES:  # a third of all expressions; nothing below them to index
            return
        stack = [(node, site)]
        while stack:
            node, site = stack.pop()
            kind = node_class(node)
            if kind is ast.Call:
                if not self._expecting:
                    self.calls.append((node, site))
                    if type(node.func) in _ATTRIBUTE:
                        self.method_calls.setdefault(node.func.attr, []).append((node, site))
            elif kind is ast.Lambda:
                self.lambdas.append((node, site))
                for expr in _defaults(node.args):
                    stack.append((expr, site))
                inner = Scope(node, "lambda", site.scope)
                self.scope_of[node] = inner
                self._params(node.args, inner)
                if type(node.body) not in _LEAVES:
                    stack.append((node.body, Site(inner, site.stmt, site.top_stmt, False, False, False)))
                continue
            elif kind is ast.Yield or kind is ast.YieldFrom:
                function = site.scope.function_scope()
                if function is not None:
                    self.generator_functions.add(function.node)
                if kind is ast.YieldFrom and not self._expecting:  # (`yield from loader` iterates it)
                    self.iterations.append((node.value, node.value, site))
            elif kind is ast.comprehension and not self._expecting:
                self.iterations.append((node.iter, node.iter, site))
            elif kind is ast.NamedExpr and type(node.target) in _NAME:
                scope = site.scope.function_scope() or self.module_scope
                scope.bind(Binding(node.target.id, "assign", site.stmt, scope, node.value))
            # ast.iter_child_nodes, inlined and narrowed to the fields that can hold an indexed node: this
            # loop is the hottest of the analysis
            fields = _CHILD_FIELDS.get(kind)
            if fields is None:
                fields = _CHILD_FIELDS[kind] = tuple(f for f in kind._fields if f not in _NEVER_CHILDREN)
            for attribute in fields:
                value = getattr(node, attribute, None)
                if type(value) is list:
                    for child in value:
                        if type(child) not in _LEAVES and isinstance(child, _INDEXED):
                            stack.append((child, site))
                elif type(value) not in _LEAVES and isinstance(value, _INDEXED):
                    stack.append((value, site))

    # -- bindings ---------------------------------------------------------------------------------
    def _params(self, args: ast.arguments, scope: Scope) -> None:
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None:
                scope.bind(Binding(arg.arg, "param", arg, scope))

    def _bind_target(self, target: ast.expr, stmt: ast.stmt, scope: Scope, value, kind: str = "assign") -> None:
        if isinstance(target, ast.Name):
            self._binding_scope(scope, target.id).bind(
                Binding(target.id, kind if value is not None or kind != "assign" else "other", stmt,
                        self._binding_scope(scope, target.id), value)
            )
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = value.elts if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(
                target.elts) and kind == "assign" else [None] * len(target.elts)
            for element, element_value in zip(target.elts, values):
                self._bind_target(element, stmt, scope, element_value, kind if element_value is not None else "other")
        elif isinstance(target, ast.Starred):
            self._bind_target(target.value, stmt, scope, None, "other")

    def _binding_scope(self, scope: Scope, name: str) -> Scope:
        return self.module_scope if name in scope.globals_ else scope

    def _bind_import(self, stmt: ast.stmt, scope: Scope) -> None:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    scope.bind(Binding(alias.asname, "import", stmt, scope, qualname=alias.name))
                else:
                    top = alias.name.split(".")[0]
                    scope.bind(Binding(top, "import", stmt, scope, qualname=top))
        else:
            assert isinstance(stmt, ast.ImportFrom)
            module = ("." * stmt.level) + (stmt.module or "")
            for alias in stmt.names:
                if alias.name == "*":
                    scope.star_imports.append(module)
                    continue
                # `from . import x` stands for `.x`, `from .pkg import x` for `.pkg.x`
                scope.bind(Binding(alias.asname or alias.name, "import", stmt, scope,
                                   qualname=f"{module}.{alias.name}" if stmt.module else module + alias.name))

    def _collect_self_assignments(self, info: ClassInfo, name: str, method: ast.AST) -> None:
        params = [*method.args.posonlyargs, *method.args.args]
        if not params:
            return
        self_name = params[0].arg
        method_scope = self.scope_of.get(method)
        found = info.self_assignments.setdefault(name, [])
        for node in _walk_function_body(method):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and getattr(node, "value", None) is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                            and target.value.id == self_name):
                        found.append((target.attr, node.value, node, method_scope))


_LEAVES = node_classes(ast.Name, ast.Constant)
_ATTRIBUTE = node_classes(ast.Attribute)
_NAME = node_classes(ast.Name)
_INDEXED = (ast.expr, ast.comprehension, ast.keyword, ast.arg, ast.arguments)
#: node fields that never hold an expression, keyword, argument or comprehension (contexts, operators, names)
_NEVER_CHILDREN = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "kind", "type_comment", "conversion",
                             "is_async", "n", "s"})
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _defaults(args: ast.arguments) -> list[ast.expr]:
    return [d for d in [*args.defaults, *args.kw_defaults] if d is not None]


def _walk_function_body(function: ast.AST) -> Iterator[ast.AST]:
    """Statements of a function body, not descending into nested defs, classes or lambdas."""
    stack = list(reversed(function.body))
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (*FUNCTION_NODES, ast.ClassDef, ast.Lambda, ast.expr)):
                stack.append(child)


_COMPREHENSION_NODES = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _calls_in_loops(owner: ast.AST) -> frozenset[int]:
    """:meth:`ModuleIndex.calls_in_loops` (each node of *owner* is visited once: bounded by its size)."""
    body = [owner.body] if isinstance(owner, ast.Lambda) else owner.body
    stack: list[tuple[ast.AST, bool]] = [(node, False) for node in body]
    found: set[int] = set()
    while stack:
        node, looped = stack.pop()
        if isinstance(node, ast.Call) and looped:
            found.add(id(node))
        if isinstance(node, (*FUNCTION_NODES, ast.Lambda)):
            # (its body runs when it is called; its decorators and defaults run here)
            if isinstance(node, FUNCTION_NODES):
                stack.extend((expr, looped) for expr in node.decorator_list)
            stack.extend((expr, looped) for expr in _defaults(node.args))
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            stack += [(node.target, looped), (node.iter, looped), *((s, True) for s in node.body),
                      *((s, looped) for s in node.orelse)]
        elif isinstance(node, ast.While):
            stack += [(node.test, True), *((s, True) for s in node.body), *((s, looped) for s in node.orelse)]
        elif isinstance(node, _COMPREHENSION_NODES):
            first, *rest = node.generators
            stack.append((first.iter, looped))  # (evaluated once, before the first iteration)
            stack += [(first.target, True), *((test, True) for test in first.ifs), *((g, True) for g in rest)]
            stack += [(child, True) for child in ((node.key, node.value) if isinstance(node, ast.DictComp)
                                                  else (node.elt,))]
        else:
            stack.extend((child, looped) for child in ast.iter_child_nodes(node))
    return frozenset(found)


#: Statements looked at when finding the branches of a scope: a bound on pathological inputs.
MAX_BRANCH_STATEMENTS = 5000


def branch_paths(scope: Scope) -> dict[ast.AST, tuple]:
    """For each statement of *scope*'s own code: its path from the scope's node as ((statement, field), ...),
    without entering defs; the first :data:`MAX_BRANCH_STATEMENTS` statements of the walk only.  Found once per
    scope: the names assigned in several branches of a function ask for it at every use."""
    if scope.paths is not None:
        return scope.paths
    out: dict[ast.AST, tuple] = {}
    stack: list[tuple[ast.AST, tuple]] = [(child, ()) for child in getattr(scope.node, "body", [])]
    while stack and len(out) < MAX_BRANCH_STATEMENTS:
        stmt, path = stack.pop()
        out[stmt] = path
        if isinstance(stmt, (*FUNCTION_NODES, ast.ClassDef)):
            continue
        for name in ("body", "orelse", "finalbody"):
            for child in getattr(stmt, name, ()):
                if isinstance(child, ast.stmt):
                    stack.append((child, (*path, (stmt, name))))
        for handler in getattr(stmt, "handlers", ()):
            for child in handler.body:
                stack.append((child, (*path, (stmt, "handlers"))))
    scope.paths = out
    return out


_LEAVES_BLOCK = (ast.Return, ast.Raise, ast.Break, ast.Continue)


def exits_before(scope: Scope, stmt: ast.AST) -> list[ast.If]:
    """The ``if`` statements before *stmt* in its block or an enclosing one (in *scope*'s own code) whose body
    always leaves that block (ends with ``return``, ``raise``, ``break`` or ``continue``): *stmt* runs only where
    their tests do not hold, as in their ``else`` (``if n is None or n == 1: return serial()`` then ``Pool(n)``)."""
    path = branch_paths(scope).get(stmt)
    if path is None:
        return []
    out = []
    block = getattr(scope.node, "body", [])
    for level in range(len(path) + 1):
        child = path[level][0] if level < len(path) else stmt
        for sibling in block:
            if sibling is child:
                break
            if isinstance(sibling, ast.If) and sibling.body and isinstance(sibling.body[-1], _LEAVES_BLOCK):
                out.append(sibling)
        if level < len(path):
            owner, field = path[level]
            block = (getattr(owner, field, ()) if field != "handlers" else
                     next((h.body for h in owner.handlers if (path[level + 1][0] if level + 1 < len(path) else stmt)
                           in h.body), ()))
    return out


def exclusive_branches(first: tuple, second: tuple) -> bool:
    """Whether two paths part in different branches of one ``if`` (so at most one of them runs)."""
    for (stmt_a, field_a), (stmt_b, field_b) in zip(first, second):
        if stmt_a is not stmt_b:
            return False
        if field_a != field_b:
            return isinstance(stmt_a, ast.If)
    return False


def handler_alternatives(first: tuple, second: tuple) -> bool:
    """Whether two paths part in a ``try``'s body (or ``else``) and one of its handlers, so that a use after the
    ``try`` sees the binding of either (``try: f = open(p)`` / ``except OSError: f = None``: the handler's when the
    body fails, the body's when it does not)."""
    for (stmt_a, field_a), (stmt_b, field_b) in zip(first, second):
        if stmt_a is not stmt_b:
            return False
        if field_a != field_b:
            return "handlers" in (field_a, field_b) and "finalbody" not in (field_a, field_b)
    return False
