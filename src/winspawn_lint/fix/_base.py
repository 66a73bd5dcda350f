"""What every winspawn-lint codemod shares.

A codemod is a plain class with libcst's ``transform_module(tree) -> tree`` shape, not a libcst
``CodemodCommand``: that base pulls in ``libcst.codemod`` and with it ``libcst.matchers`` (0.3–2.5 s of
import on every ``--fix`` run that has something to fix).  Through ``--fix`` a codemod receives the findings
to fix; run on its own through libcst's command line, it is given those of a check with every rule enabled
(:mod:`.commands`, an adapter imported only by that route).

No codemod asks libcst for positions (``PositionProvider`` renders the whole module once per tree: most of
what ``--fix`` cost): nodes are found through the ``ast`` of the same text, or by their order in the source.
The hoisting codemods and the guard wrap (``ON_TEXT``) use no libcst at all: they edit the module's rows at
``ast`` positions (:mod:`.lines`), giving the text the libcst edit they replace gave.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass, field
from typing import ClassVar, Optional, Sequence

from ..analysis.positions import Positions
from ..analysis.scopes import ScopeTree
from ..finding import Finding
from ..io.line_length import DEFAULT_MAX_LINE_LENGTH
from ..rules import Rule
from . import _cst as cst
from ._tree import Names, find_node, module_names, parents, top_level_statement
from .imports import add_imports, add_imports_to_text


@dataclass
class Context:
    """The file a codemod works on and the warnings it gave (the part of libcst's ``CodemodContext`` used)."""

    filename: Optional[str] = None
    warnings: list[str] = field(default_factory=list)
    #: the project's maximum line length (see :mod:`winspawn_lint.io.line_length`): code written keeps to it
    line_length: int = DEFAULT_MAX_LINE_LENGTH


class WinspawnCodemod:
    """Base: holds the findings this codemod fixes and the notes on those it could not.

    A subclass implements ``transform_module_impl(tree) -> tree`` and returns ``tree`` itself when it changes
    nothing (the driver then does not render it again); or, with ``ON_TEXT``, ``transform_text_impl(text) ->
    text``, rewriting rows at ``ast`` positions (:mod:`.lines`) with no libcst tree of the module.
    """

    #: the codemod rewrites the text (the driver parses no libcst tree for it)
    ON_TEXT: ClassVar[bool] = False

    #: the rules this codemod fixes, from the catalogue
    FIXES: ClassVar[tuple[Rule, ...]] = ()
    DESCRIPTION: ClassVar[str] = ""
    #: what fixing one finding does, as an editor's quick fix names it
    TITLE: ClassVar[str] = ""

    @staticmethod
    def wants(finding: Finding) -> bool:
        """Whether this codemod can act on ``finding`` at all (the driver skips it otherwise)."""
        return True

    @classmethod
    def title(cls, finding: Finding) -> str:
        """What fixing ``finding`` does (an editor's quick fix)."""
        return cls.TITLE

    @staticmethod
    def unit(finding: Finding) -> object:
        """Findings with the same unit (not None) are fixed together: a fix of one alone would hide the others
        from the check (methods written for a class cover only the files they name).  None: fixed alone."""
        return None

    def __init__(self, filename: Optional[str], findings: Sequence[Finding], unsafe: bool = True,
                 line_length: int = DEFAULT_MAX_LINE_LENGTH) -> None:
        self.context = Context(filename, line_length=line_length)
        self._given = findings
        self.unsafe = unsafe
        self.notes: list[str] = []
        #: (finding, why) for each finding this codemod leaves; the driver reports them at on-disk positions
        self.declined: list[tuple[Finding, str]] = []
        self.applied: list[Finding] = []
        self._imports: list[tuple[str, Optional[str]]] = []
        #: the text of the tree given to transform_module, when the caller has it
        self.source_text: Optional[str] = None
        #: an ``ON_TEXT`` codemod moved a statement of the module's leading import block (imports are then
        #: placed by the ``ast`` of its output, not of its input)
        self.import_block_changed = False

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        raise NotImplementedError

    def transform_module(self, tree: cst.Module) -> cst.Module:
        if self.ON_TEXT:
            text = self.source_text if self.source_text is not None else tree.code
            new = self.transform_text(text)
            return tree if new == text else cst.parse_module(new)
        self._imports = []
        tree = self.transform_module_impl(tree)
        return add_imports(tree, self._imports) if self._imports else tree

    def transform_text_impl(self, text: str) -> str:
        raise NotImplementedError

    def transform_text(self, text: str) -> str:
        """``text`` rewritten (``ON_TEXT`` codemods); ``text`` itself when nothing changes."""
        self._imports = []
        self.source_text = text
        new = self.transform_text_impl(text)
        if not self._imports or new == text:
            return new
        return add_imports_to_text(new, syntax_tree(new if self.import_block_changed else text), self._imports)

    def warn(self, message: str) -> None:
        self.context.warnings.append(message)

    def add_import(self, module: str, name: Optional[str] = None) -> None:
        """Schedule ``import module`` or ``from module import name`` (see :mod:`.imports`)."""
        self._imports.append((module, name))

    # -- findings -------------------------------------------------------------------------------------
    def findings_for(self, text: str) -> list[Finding]:
        """The findings given (chosen by the driver, which knows the file's fix safety) that this codemod fixes."""
        return [f for f in self._given if f.rule in self.FIXES]

    def note(self, finding: Finding, why: str) -> None:
        self.declined.append((finding, why))
        self.notes.append(f"{finding.line}:{finding.col + 1}: {finding.code} not fixed: {why}")
        self.warn(self.notes[-1])

    # -- source helpers -------------------------------------------------------------------------------
    def prepare(self, tree: cst.Module) -> tuple[str, ast.Module, Positions]:
        """The module's text, ``ast`` and positions; the driver passes the text it parsed (rendering a big
        tree again costs more than the codemod), and one text is analysed once for all the codemods."""
        text = self.source_text if self.source_text is not None else tree.code
        return text, syntax_tree(text), positions_of(text)

    def scopes(self, module: ast.Module, within: Optional[Sequence[ast.stmt]] = None) -> ScopeTree:
        """The scope model of ``module`` (a tree from :meth:`prepare`), built once per text; ``within``: the
        only top-level statements asked about (the others' functions and classes are not walked)."""
        return _scopes(module, None if within is None else tuple(within))

    def locate(self, text: str, kinds: tuple, hint: str) -> Located:
        """The nodes of ``kinds`` the findings' fix hints point at (``finding.fix_hint[hint]``), and what a hoist
        asks about them: their parents, the scope model of their top-level statements, the module's names."""
        module = syntax_tree(text)
        found = [(finding, find_node(module, kinds, finding.fix_hint[hint]["line"], finding.fix_hint[hint]["col"]))
                 for finding in self.findings_for(text) if finding.fix_hint.get(hint)]
        parent = parents(module)
        tops = sorted({top_level_statement(node, parent) for _, node in found if node}, key=lambda stmt: stmt.lineno)
        return Located(module, parent, [(f, node) for f, node in found if node is not None], self.scopes(module, tops),
                       module_names(module, text))

    def parse_statements(self, tree: cst.Module, code: str) -> list[cst.BaseStatement]:
        """Statements from ``code`` (``\\n`` line ends; indents already in ``tree.default_indent``)."""
        code = code.replace("\r\n", "\n").replace("\r", "\n").replace("\n", tree.default_newline)
        parsed = cst.parse_module(code, config=tree.config_for_parsing)
        return list(parsed.body)

    def partial_ref(self, tree: ast.Module) -> str:
        """How to spell ``functools.partial`` here, scheduling the import when needed."""
        spelling = existing_spelling(tree, "functools", "partial")
        if spelling is None:
            self.add_import("functools")
            spelling = "functools.partial"
        return spelling


@dataclass
class Located:
    """What :meth:`WinspawnCodemod.locate` found."""

    module: ast.Module
    parent: dict[ast.AST, ast.AST]  # see :func:`._tree.parents`
    found: list[tuple[Finding, ast.AST]]  # each finding whose node was found, and the node
    scopes: ScopeTree  # of the found nodes' top-level statements
    taken: Names  # the module's identifiers, for new names


def syntax_tree(text: str) -> ast.Module:
    """The ``ast`` of ``text``: parsed once for the driver (compile, check) and every codemod that reads it."""
    tree = _TREES.get(text)
    if tree is None:
        tree = ast.parse(text)
        remember_tree(text, tree)
    return tree


def remember_tree(text: str, tree: ast.Module) -> None:
    """Keep ``tree`` as the ``ast`` of ``text`` (the check's, which the fixer need not parse again)."""
    _TREES[text] = tree
    while len(_TREES) > 4:
        del _TREES[next(iter(_TREES))]


_TREES: dict[str, ast.Module] = {}  # the last texts parsed, oldest first


def forget_texts() -> None:
    """Drop what is kept per text (trees, positions, scope models, indexes): the fixer is done with a file."""
    from ._tree import forget_index

    _TREES.clear()
    positions_of.cache_clear()
    # A scope model's scopes refer to their parents and children: unlinked, each is freed by reference counting
    # with the tree it holds, not left for the cyclic collector to traverse after every fixed file.
    for scopes in _SCOPES.values():
        scopes.unlink()
    _SCOPES.clear()
    forget_index()


@functools.lru_cache(maxsize=4)
def positions_of(text: str) -> Positions:
    """The position model of ``text``, made once for every codemod that reads it."""
    return Positions.of(text)


def _scopes(module: ast.Module, within: Optional[tuple]) -> ScopeTree:
    key = (module, within)
    if key not in _SCOPES:
        while len(_SCOPES) >= 4:
            _SCOPES.pop(next(iter(_SCOPES))).unlink()
        _SCOPES[key] = ScopeTree(module, within)
    return _SCOPES[key]


_SCOPES: dict[tuple, ScopeTree] = {}  # the scope models of the last texts' modules, oldest first


def existing_spelling(tree: ast.Module, module: str, name: str):
    """How the module already spells ``module.name`` at top level (``from module import name as x`` or
    ``import module as m``), or None when it imports neither."""
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == module and node.level == 0:
            for alias in node.names:
                if alias.name == name:
                    return alias.asname or name
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == module:
                    return f"{alias.asname or module}.{name}"
    return None


def blank_lines(count: int) -> list[cst.EmptyLine]:
    return [cst.EmptyLine(indent=False) for _ in range(count)]


def statement_groups(tree: cst.Module, module: ast.Module) -> list[list[ast.stmt]]:
    """For each top-level libcst statement, its ast statements.  The two trees list the same statements in
    the same order; a libcst line of simple statements (``a = 1; b = 2``) is one ast statement each.  (No
    PositionProvider: computing positions renders the whole module, most of a codemod's time.)"""
    groups, at = [], 0
    for statement in tree.body:
        count = len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
        groups.append(module.body[at:at + count])
        at += count
    return groups


def statement_texts(tree: cst.Module, text: str, module: ast.Module) -> dict[int, tuple]:
    """id(top-level statement) -> (statement, (indent, newline), its text in ``text``), the text ``tree`` was
    parsed from, without rendering it: a statement's text starts at its first line in ``module`` less its
    leading lines, and runs to the next one's.  Empty when a check fails (then statements are rendered)."""
    if not tree.has_trailing_newline or not tree.body:
        return {}
    starts = [0, *(match.end() for match in _NEWLINE.finditer(text))]  # line n starts at starts[n - 1]
    bounds: list[int] = []
    for statement, group in zip(tree.body, statement_groups(tree, module)):
        decorators = getattr(group[0], "decorator_list", None) if group else None
        first = decorators[0].lineno if decorators else group[0].lineno if group else 0
        line = first - len(statement.leading_lines)
        if line < 1 or first > len(starts):
            return {}
        code = starts[first - 1]
        # The ast gives a decorator's expression, not its `@` (`@\` may end a line): the line must start there.
        if text[code:code + 1] in ("", " ", "\t", "\f", "\r", "\n", "#") or (decorators and text[code] != "@"):
            return {}
        offset = starts[line - 1]
        if (bounds and offset <= bounds[-1]) or not text.startswith(
                "".join(tree.code_for_node(empty) for empty in statement.leading_lines), offset):
            return {}
        bounds.append(offset)
    footer = "".join(tree.code_for_node(empty) for empty in tree.footer)
    end = len(text) - len(footer)
    if text[:bounds[0]] != "".join(tree.code_for_node(empty) for empty in tree.header) or end < bounds[-1] or \
            not text.endswith(footer):
        return {}
    style = (tree.default_indent, tree.default_newline)
    return {id(statement): (statement, style, text[start:stop])
            for statement, start, stop in zip(tree.body, bounds, [*bounds[1:], end])}


_NEWLINE = re.compile(r"\r\n|\r|\n")


DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def definition_order(module: ast.Module) -> dict[int, int]:
    """id(def or class node) -> its index in source order, which is the order a libcst visitor enters them."""
    found = [node for node in ast.walk(module) if isinstance(node, DEFINITIONS)]
    found.sort(key=lambda node: (node.lineno, node.col_offset))
    return {id(node): index for index, node in enumerate(found)}
