"""Python's scoping rules, computed on the stdlib ``ast``: which scope each name read resolves to.

One walk builds a :class:`Scope` per module, function, lambda, comprehension and class body, with what
each binds (and where), what it declares ``global`` or ``nonlocal``, and the names it reads.  Resolution
follows the language: a function's own bindings (parameters, assignments, ``del``, imports, ``def``/
``class`` names, ``except ... as``, ``with ... as``, ``for`` targets, match captures, ``:=``) make a name
local unless declared ``global``/``nonlocal``; a comprehension has its own scope for its targets while its
first iterable and any ``:=`` belong to the enclosing function; a class body is invisible to the functions
and comprehensions inside it; decorators, defaults, annotations and base classes are evaluated in the
enclosing scope.

The fixer asks two questions of it: which module-level names the code of a function (and everything nested
in it) reads (:meth:`ScopeTree.module_reads`), and which names a nested function or lambda takes from the
functions around it (:meth:`ScopeTree.enclosing_reads`).
"""

from __future__ import annotations

import ast
import bisect
from typing import Iterable, Optional

from ..io.compact_tree import node_class
from ..records import Record

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)

Position = tuple[int, int]


class Scope(Record):
    __slots__ = ("node", "kind", "parent", "bindings", "globals", "nonlocals", "reads", "children")

    def __init__(self, node: ast.AST, kind: str, parent: Optional["Scope"],
                 bindings: Optional[dict[str, list[Position]]] = None, globals: Optional[set[str]] = None,
                 nonlocals: Optional[set[str]] = None, reads: Optional[dict[str, list[Position]]] = None,
                 children: Optional[list["Scope"]] = None) -> None:
        self.node = node
        self.kind = kind  # "module" | "function" | "lambda" | "comprehension" | "class"
        self.parent = parent
        #: name -> where it is bound in this scope's own code (parameters at the scope's start)
        self.bindings = bindings if bindings is not None else {}
        self.globals = globals if globals is not None else set()
        self.nonlocals = nonlocals if nonlocals is not None else set()
        #: name -> where this scope's own code reads it
        self.reads = reads if reads is not None else {}
        self.children = children if children is not None else []

    def binds(self, name: str) -> bool:
        """``name`` is local to this scope (bound here and not declared global or nonlocal)."""
        return name in self.bindings and name not in self.globals and name not in self.nonlocals

    def bind(self, name: str, node: ast.AST) -> None:
        self.bindings.setdefault(name, []).append(_position(node))

    def walk(self) -> Iterable["Scope"]:
        """This scope and every scope nested in it."""
        stack = [self]
        while stack:
            scope = stack.pop()
            yield scope
            stack.extend(scope.children)


class ScopeTree:
    """The scopes of one module, and where each name read resolves."""

    def __init__(self, tree: ast.Module, within: Optional[Iterable[ast.stmt]] = None,
                 focus: Optional[Iterable[ast.AST]] = None, lean: bool = False) -> None:
        """``within``: the top-level statements whose scopes are asked about; the bodies of the module's other
        functions and classes are then not walked (nothing in them binds a module-level name: ``global`` makes
        a name the module's for reads, but its binding is recorded in the function's scope).  ``focus``: the
        nodes asked about within them; the body of a function, lambda or class that holds none of them is not
        walked either (what binds names in a function is its own code: a nested body binds in its own scope)
        until :meth:`expand` asks for it.  ``lean`` (with ``focus``, for a module with no ``:=``): a statement away
        from the focus is walked for what it binds only (its targets and blocks, not the values it reads)."""
        self.module = Scope(tree, "module", None)
        self.scope_of: dict[ast.AST, Scope] = {tree: self.module}  # def/lambda/comprehension/class -> scope
        self._skip = set() if within is None else {
            id(stmt) for stmt in tree.body if isinstance(stmt, (*FUNCTIONS, ast.ClassDef))} - set(map(id, within))
        self._focus = None if focus is None else sorted({_span(node) for node in focus})
        self._focus_rows = [(start[0], end[0]) for start, end in self._focus or ()]
        self._lean = lean and self._focus is not None
        self._unwalked: dict[int, tuple[ast.AST, Scope]] = {}  # id(node) -> (node, its scope), body not walked
        self._build(tree)
        # Every binding of the module scope, in source order (expand() walks nested bodies, which bind in their
        # own scopes): module_binds() finds a statement's by bisection, not by a scan per statement.
        self._module_bindings = sorted((where, name) for name, places in self.module.bindings.items()
                                       for where in places)
        self._module_binding_places = [where for where, _ in self._module_bindings]

    def expand(self, node: ast.AST) -> None:
        """Walk the body of ``node`` (a definition or lambda) if :attr:`focus` left it out."""
        found = self._unwalked.pop(id(node), None)
        if found is None:
            return
        node, scope = found
        span = _span(node)  # asked about now: walked in full, as the focus is
        self._focus.append(span)
        self._focus_rows.append((span[0][0], span[1][0]))
        stack: list[tuple[ast.AST, Scope]] = [(child, scope) for child in reversed(_body(node))]
        while stack:
            child, owner = stack.pop()
            self._visit(child, owner, stack)

    # -- queries ---------------------------------------------------------------------------------------
    def resolve(self, scope: Scope, name: str) -> Scope:
        """The scope a read of ``name`` in ``scope`` finds it in (the module for globals and builtins)."""
        if name in scope.globals:
            return self.module
        if scope.binds(name):
            return scope
        current = scope.parent
        while current is not None and current is not self.module:
            if current.kind != "class":  # class bodies are invisible to the scopes nested in them
                if name in current.globals:
                    return self.module
                if current.binds(name):
                    return current
            current = current.parent
        return self.module

    def module_reads(self, nodes: Iterable[ast.AST]) -> set[str]:
        """Names that ``nodes`` (module-level statements, or definitions) read from the module scope,
        in their own code and in every function, lambda, comprehension and class nested in them."""
        out: set[str] = set()
        for scope in self._scopes_in(nodes):
            out |= {name for name in scope.reads if self.resolve(scope, name) is self.module}
        return out

    def run_time_reads(self, stmt: ast.stmt) -> set[str]:
        """Names the module-level statement ``stmt`` reads from the module scope when it runs: its own code, a
        definition's decorators, defaults, annotations and bases, and the class bodies and comprehensions it runs
        (not the bodies of the functions and lambdas it defines: they run when called)."""
        if stmt in self.scope_of:
            parts: list[Scope] = [_Part(self._owner_parts(stmt))]
            running = [self.scope_of[stmt]] if self.scope_of[stmt].kind == "class" else []
        else:
            parts = [_Part(self._module_parts(stmt))]
            running = [scope for scope in self._child_scopes(stmt) if scope.kind in _RUN_WITH_IT]
        while running:  # each scope is pushed once, by its parent
            scope = running.pop()
            parts.append(scope)
            running.extend(child for child in scope.children if child.kind in _RUN_WITH_IT)
        return {name for scope in parts for name in scope.reads if self.resolve(scope, name) is self.module}

    def enclosing_reads(self, node: ast.AST) -> dict[str, tuple[Scope, Position]]:
        """Names the function, lambda or class ``node`` (with everything nested in it) reads from the
        function scopes around it: for each, the scope it is found in and where it is first read."""
        own = self.scope_of[node]
        inside = set(map(id, own.walk()))
        out: dict[str, tuple[Scope, Position]] = {}
        for scope in own.walk():
            for name, where in scope.reads.items():
                found = self.resolve(scope, name)
                if id(found) not in inside and found is not self.module:
                    first = min(where) if name not in out else min(min(where), out[name][1])
                    out[name] = (found, first)
        return out

    def outer_local_reads(self, node: ast.AST) -> set[str]:
        """Names the decorators, defaults, annotations or bases of definition ``node`` read from function
        scopes (they are evaluated where the definition is)."""
        around = self.scope_of[node].parent or self.module
        return {name.id for name in self._owner_parts(node) if self.resolve(around, name.id) is not self.module}

    def module_binds(self, stmt: ast.stmt) -> set[str]:
        """Names the module-level statement ``stmt`` binds in the module scope when it runs."""
        start = (stmt.lineno, stmt.col_offset)
        end = (stmt.end_lineno or stmt.lineno, stmt.end_col_offset or 0)
        first = bisect.bisect_left(self._module_binding_places, start)
        last = bisect.bisect_right(self._module_binding_places, end)
        return {name for _, name in self._module_bindings[first:last]}

    def declares_nonlocal(self, node: ast.AST) -> bool:
        """``node``'s scope, or one nested in it, rebinds a name of an enclosing function (``nonlocal``)."""
        own = self.scope_of[node]
        inside = set(map(id, own.walk()))
        return any(id(self.resolve(scope.parent or scope, name)) not in inside
                   for scope in own.walk() for name in scope.nonlocals)

    def enclosing_function(self, node: ast.AST) -> Optional[Scope]:
        """The innermost function or lambda scope around ``node``'s own scope."""
        current = self.scope_of[node].parent
        while current is not None and current.kind not in ("function", "lambda"):
            current = current.parent
        return current

    def unlink(self) -> None:
        """Break the scopes' links to each other (the model is not used after)."""
        for scope in self.scope_of.values():
            scope.parent = None
            scope.children = []

    def _scopes_in(self, nodes: Iterable[ast.AST]) -> Iterable[Scope]:
        """The scopes whose code lies in ``nodes``: the scope owning each node's own parts, and nested ones."""
        for node in nodes:
            if node in self.scope_of and node is not self.module.node:
                # A definition: its decorators and defaults are read by the scope around it.
                yield from self.scope_of[node].walk()
                yield _Part(self._owner_parts(node))
                continue
            yield _Part(self._module_parts(node))
            for child in self._child_scopes(node):
                yield from child.walk()

    # -- building --------------------------------------------------------------------------------------
    def _walked(self, node: ast.AST, scope: Scope) -> bool:
        """Whether the body of ``node`` (a definition or lambda) is walked now: it holds a node of :attr:`focus`,
        or lies in one."""
        if self._focus is None or self._near(node):
            return True
        self._unwalked[id(node)] = (node, scope)
        return False

    def _near(self, node: ast.AST) -> bool:
        """Whether ``node`` holds a node of :attr:`focus`, or lies in one."""
        start, end = _span(node)
        return any(start <= inner_start <= end or inner_start <= start <= inner_end
                   for inner_start, inner_end in self._focus)

    def _bindings_only(self, node: ast.stmt, scope: Scope, push) -> bool:
        """In ``lean`` mode, push only the parts of ``node`` that bind names or hold statements; False when the
        statement shares a row with the focus (walked in full) or is of a kind walked in full anyway."""
        fields = _BINDING_PARTS[node_class(node)]
        first, last = node.lineno, node.end_lineno or node.lineno
        if any(first <= end and start <= last for start, end in self._focus_rows):
            return False
        parts: list[ast.AST] = []
        for name in fields:
            value = getattr(node, name)
            parts.extend(value if isinstance(value, list) else [value] if value is not None else [])
        if isinstance(node, (ast.With, ast.AsyncWith)):
            parts = [item.optional_vars for item in node.items if item.optional_vars is not None] + node.body
        elif isinstance(node, ast.Match):
            parts = [part for case in node.cases for part in (case.pattern, *case.body)]
        for child in reversed(parts):
            push((child, scope))
        return True

    def _build(self, tree: ast.Module) -> None:
        # (node, scope) pairs; iterative so deeply nested code cannot exhaust the C stack here.
        stack: list[tuple[ast.AST, Scope]] = [(stmt, self.module) for stmt in reversed(tree.body)]
        while stack:
            node, scope = stack.pop()
            self._visit(node, scope, stack)

    def _new(self, node: ast.AST, kind: str, parent: Scope) -> Scope:
        scope = Scope(node, kind, parent)
        parent.children.append(scope)
        self.scope_of[node] = scope
        return scope

    def _visit(self, node: ast.AST, scope: Scope, stack: list) -> None:
        push = stack.append
        kind = node_class(node)
        if kind is ast.Name:  # the most frequent node, first
            if type(node.ctx) is ast.Load:
                scope.reads.setdefault(node.id, []).append((node.lineno, node.col_offset))
            else:
                scope.bind(node.id, node)
            return
        if kind in _BINDING_PARTS and self._lean and self._bindings_only(node, scope, push):
            return
        if kind in _PLAIN:  # nothing to record: its children, in order (not its Load/Store context)
            children = []
            for field_name in node._fields:
                value = getattr(node, field_name, None)
                if type(value) is list:
                    children.extend(item for item in value if isinstance(item, ast.AST))
                elif isinstance(value, ast.AST) and not isinstance(value, ast.expr_context):
                    children.append(value)
            for child in reversed(children):
                push((child, scope))
            return
        if isinstance(node, FUNCTIONS) or isinstance(node, ast.Lambda):
            outer = _outer_parts(node)
            if not isinstance(node, ast.Lambda):
                scope.bind(node.name, node)
            inner = self._new(node, "lambda" if isinstance(node, ast.Lambda) else "function", scope)
            for arg in _params(node.args):
                inner.bindings.setdefault(arg.arg, []).append(_position(node))
            body = [] if id(node) in self._skip or not self._walked(node, inner) else _body(node)
            for child in reversed(body):
                push((child, inner))
            for child in outer:
                push((child, scope))
            return
        if isinstance(node, ast.ClassDef):
            scope.bind(node.name, node)
            inner = self._new(node, "class", scope)
            for child in reversed([] if id(node) in self._skip or not self._walked(node, inner) else node.body):
                push((child, inner))
            for child in _outer_parts(node):
                push((child, scope))
            return
        if isinstance(node, COMPREHENSIONS):
            inner = self._new(node, "comprehension", scope)
            first, *rest = node.generators
            push((first.iter, scope))  # the first iterable is evaluated in the enclosing scope
            parts: list[ast.AST] = [first.target, *first.ifs]
            for generator in rest:
                parts.extend([generator.target, generator.iter, *generator.ifs])
            parts.extend([node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt])
            for child in reversed(parts):
                push((child, inner))
            return
        if isinstance(node, ast.NamedExpr):
            # `:=` in a comprehension binds in the enclosing function (or module), never the comprehension.
            target = scope
            while target.kind == "comprehension" and target.parent is not None:
                target = target.parent
            target.bind(node.target.id, node.target)
            if target is not scope:  # reads of it in the comprehension find it where it is bound
                (scope.globals if target.kind == "module" else scope.nonlocals).add(node.target.id)
            push((node.value, scope))
            return
        if isinstance(node, ast.Global):
            scope.globals.update(node.names)
            return
        if isinstance(node, ast.Nonlocal):
            scope.nonlocals.update(node.names)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name != "*":
                    scope.bind(alias.asname or alias.name.split(".")[0], node)
            return
        if isinstance(node, ast.ExceptHandler) and node.name:
            scope.bind(node.name, node)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            scope.bind(node.name, node)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            scope.bind(node.rest, node)
        for child in reversed(list(ast.iter_child_nodes(node))):
            push((child, scope))

    def _owner_parts(self, node: ast.AST) -> list[ast.Name]:
        return [n for part in _outer_parts(node) for n in _names_in_scope(part, self)]

    def _module_parts(self, node: ast.AST) -> list[ast.Name]:
        return _names_in_scope(node, self)

    def _child_scopes(self, node: ast.AST) -> list[Scope]:
        out, stack = [], [node]
        while stack:
            current = stack.pop()
            if current in self.scope_of and current is not node:
                out.append(self.scope_of[current])
                if isinstance(current, COMPREHENSIONS):
                    stack.append(current.generators[0].iter)
                else:
                    stack.extend(_outer_parts(current))
                continue
            stack.extend(ast.iter_child_nodes(current))
        return out


class _Part(Scope):
    """The reads of some code evaluated in the module scope (a module-level statement outside its nested
    scopes, or a definition's decorators and defaults), as a scope of its own for :meth:`module_reads`."""

    def __init__(self, names: list[ast.Name]) -> None:
        super().__init__(None, "part", None)
        for name in names:
            self.reads.setdefault(name.id, []).append(_position(name))


def _names_in_scope(node: ast.AST, tree: ScopeTree) -> list[ast.Name]:
    """Names read by ``node`` outside the scopes nested in it."""
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        if current in tree.scope_of and current is not node:
            if isinstance(current, COMPREHENSIONS):
                stack.append(current.generators[0].iter)
            else:
                stack.extend(_outer_parts(current))
            continue
        if isinstance(current, ast.Name) and isinstance(current.ctx, ast.Load):
            out.append(current)
        stack.extend(ast.iter_child_nodes(current))
    return out


_RUN_WITH_IT = ("class", "comprehension")

#: statement kind -> its parts that bind names or hold statements (what a ``lean`` walk visits of a statement away
#: from the focus); the values it reads are left out (with no ``:=`` in the module, nothing in them binds)
_BINDING_PARTS: dict[type, tuple[str, ...]] = {
    ast.Assign: ("targets",), ast.AugAssign: ("target",), ast.AnnAssign: ("target",), ast.Expr: (), ast.Return: (),
    ast.For: ("target", "body", "orelse"), ast.AsyncFor: ("target", "body", "orelse"), ast.While: ("body", "orelse"),
    ast.If: ("body", "orelse"), ast.With: ("body",), ast.AsyncWith: ("body",), ast.Raise: (), ast.Assert: (),
    ast.Delete: ("targets",), ast.Match: (),
}  # scopes whose code runs when the code around them does

# Node types _visit records nothing for (it visits their children): every other kind binds, reads, or opens a
# scope.  Built from the kinds it handles, so a new kind of node is never skipped by mistake.
_SPECIAL = (*FUNCTIONS, ast.Lambda, ast.ClassDef, *COMPREHENSIONS, ast.Name, ast.NamedExpr, ast.Global, ast.Nonlocal,
            ast.Import, ast.ImportFrom, ast.ExceptHandler, ast.MatchAs, ast.MatchStar, ast.MatchMapping)
_PLAIN = frozenset(kind for kind in vars(ast).values()
                   if isinstance(kind, type) and issubclass(kind, ast.AST) and not issubclass(kind, _SPECIAL)
                   and not issubclass(kind, ast.expr_context))


def _outer_parts(node: ast.AST) -> list[ast.AST]:
    """The parts of a definition evaluated in the scope around it: decorators, defaults, annotations, bases."""
    if isinstance(node, ast.ClassDef):
        return [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]
    args = node.args
    parts: list[ast.AST] = [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
    if isinstance(node, FUNCTIONS):
        parts[:0] = node.decorator_list
        parts.extend(a.annotation for a in _params(args) if a.annotation is not None)
        if node.returns is not None:
            parts.append(node.returns)
    return parts


def _span(node: ast.AST) -> tuple[Position, Position]:
    """Where a node starts (its first decorator's row, for a decorated definition) and ends."""
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
    start = (first, node.col_offset if first == node.lineno else 0)
    return start, (node.end_lineno or node.lineno, node.end_col_offset or 0)


def _body(node: ast.AST) -> list[ast.AST]:
    return [node.body] if isinstance(node, ast.Lambda) else node.body


def _params(args: ast.arguments) -> list[ast.arg]:
    out = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    if args.vararg:
        out.append(args.vararg)
    if args.kwarg:
        out.append(args.kwarg)
    return out


def _position(node: ast.AST) -> Position:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)
