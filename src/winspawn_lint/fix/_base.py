"""The fixer's one edit model, and what every codemod shares.

A codemod is given a text and the findings it is to fix, and returns a :class:`Fix`: the :class:`Edit` s to make
(each replaces ``text[start:end]``, offsets in characters of the text it was given, as ruff's ``Edit``), the
findings they fix with the safety of each one's fix, the findings it declines with why, and the imports the
edited code needs.  It never applies anything itself: the driver (:mod:`winspawn_lint.fix`) applies the edits,
adds the imports, verifies the result (it compiles, adds no finding, hides none) and runs the codemods again
until nothing changes; the check-time fixability (:func:`winspawn_lint.fix.fixable`) reads the same plans without
applying them.

A codemod finds what to rewrite through the ``ast`` of the text (the findings' ``fix_hint`` gives ``ast``
positions) and edits its rows through :class:`.lines.Lines`, which turns row and node positions into offsets.
A codemod that needs a concrete syntax tree may parse the text with libcst and emit edits all the same (none
does today: each rewrite touches a few statements, and parsing a large script with libcst costs more than
checking it).  The public libcst commands (:mod:`.commands`) are adapters over :meth:`Codemod.plan`.
"""

from __future__ import annotations

import ast
import functools
import re
from typing import ClassVar, Optional, Sequence

from ..analysis.positions import Positions
from ..analysis.scopes import ScopeTree
from ..finding import Finding
from ..io.line_length import DEFAULT_MAX_LINE_LENGTH
from ..records import Record, Value
from ..rules import FixSafety, Rule
from ._tree import Names, find_node, module_names, parents, top_level_statement


class CannotEdit(Exception):
    """The rows cannot be rewritten as asked (indentation that does not nest, tokens that do not split, edits that
    overlap)."""


class Edit(Value):
    """``text[start:end]`` becomes ``content`` (in the text's own line endings)."""

    __slots__ = ("start", "end", "content")

    def __init__(self, start: int, end: int, content: str) -> None:
        self.start = start
        self.end = end
        self.content = content


class Fix(Record):
    """What one codemod plans for one text (ruff's ``Fix``, for every finding the codemod fixes in the pass)."""

    __slots__ = ("edits", "fixed", "declined", "remarks", "imports")

    def __init__(self, edits: Optional[list[Edit]] = None, fixed: Optional[list[tuple[Finding, FixSafety, str]]] = None,
                 declined: Optional[list[tuple[Finding, str]]] = None,
                 remarks: Optional[list[tuple[Finding, str]]] = None,
                 imports: Optional[list[tuple[str, Optional[str]]]] = None) -> None:
        self.edits = edits if edits is not None else []
        #: each finding the edits fix, with the safety of its fix (the driver allows the least safe of it and the
        #: finding's own grade) and, for an unsafe one, why it is unsafe
        self.fixed = fixed if fixed is not None else []
        #: each finding left as it is, and why (said in the note, at the finding's place in the original text)
        self.declined = declined if declined is not None else []
        #: (finding, what the reader should know about its applied fix): what gets pickled, what to add by hand
        self.remarks = remarks if remarks is not None else []
        #: ``(module, name)`` for ``import module`` (name None) or ``from module import name``, added where isort would
        self.imports = imports if imports is not None else []


def line_ref(row: int) -> str:
    """``line N`` for a reason or remark: the driver says it as the row's number in the text on disk (a codemod
    may run on a text an earlier fix already changed)."""
    return f"line {_LINE_MARK}{row}{_LINE_MARK}"


_LINE_MARK = "\x00"
LINE_REF = re.compile(f"{_LINE_MARK}(\\d+){_LINE_MARK}")


def as_said(text: str) -> str:
    """A reason or remark of a codemod that ran on the text on disk, as the user reads it."""
    return LINE_REF.sub(r"\1", text)


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    """``text`` with every edit made (insertions at one offset keep their order, before a replacement that starts
    there).  Raises :class:`CannotEdit` when two edits overlap."""
    out: list[str] = []
    at = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):  # sorted() is stable
        if edit.start < at:
            raise CannotEdit("two of its edits overlap")
        if not 0 <= edit.start <= edit.end <= len(text):
            raise CannotEdit("an edit lies outside the text")
        out.append(text[at:edit.start])
        out.append(edit.content)
        at = edit.end
    out.append(text[at:])
    return "".join(out)


class Codemod:
    """Base: holds the findings a codemod is given and what it plans for them.

    A subclass sets ``FIXES`` (the catalogue rules it fixes) and implements :meth:`edit`, which returns the edits
    for a text and reports through :meth:`fixes`, :meth:`note`, :meth:`remark` and
    :meth:`add_import`.
    """

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
                 line_length: int = DEFAULT_MAX_LINE_LENGTH, decide: bool = False) -> None:
        self.filename = filename
        self._given = findings
        self.unsafe = unsafe
        #: only which findings are fixed, how safely, and which are declined, is asked (the check-time plan): a
        #: codemod may stop before writing its edits, once nothing it does after can decline a finding
        self.decide = decide
        #: the project's maximum line length (:mod:`winspawn_lint.io.line_length`): code written keeps to it
        self.line_length = line_length
        self._fix = Fix()

    def plan(self, text: str) -> Fix:
        """What this codemod would do to ``text``."""
        self._fix = Fix()
        self._fix.edits = list(self.edit(text))
        fix, self._fix = self._fix, Fix()
        if not fix.edits and not self.decide:  # nothing to apply: what it meant to fix stays
            fix.fixed, fix.imports, fix.remarks = [], [], []
        return fix

    def edit(self, text: str) -> list[Edit]:
        raise NotImplementedError

    # -- what the plan says -----------------------------------------------------------------------------
    def findings_for(self, text: str) -> list[Finding]:
        """The findings given (chosen by the driver, which knows the file's fix safety) that this codemod fixes."""
        return [f for f in self._given if f.rule in self.FIXES]

    def fixes(self, findings: Sequence[Finding], safety: FixSafety = FixSafety.SAFE, why: str = "") -> None:
        """``findings`` are fixed by the edits, by a fix of ``safety`` (no safer than the rule's own grade); ``why``:
        what makes an unsafe one unsafe, said when a safe run leaves it."""
        self._fix.fixed.extend((finding, safety, why) for finding in findings)

    def note(self, finding: Finding, why: str) -> None:
        self._fix.declined.append((finding, why))

    def remark(self, finding: Finding, what: str) -> None:
        self._fix.remarks.append((finding, what))

    def add_import(self, module: str, name: Optional[str] = None) -> None:
        """Schedule ``import module`` or ``from module import name`` (see :mod:`.imports`)."""
        self._fix.imports.append((module, name))

    # -- source helpers -------------------------------------------------------------------------------
    def scopes(self, module: ast.Module, within: Optional[Sequence[ast.stmt]] = None,
               focus: Optional[Sequence[ast.AST]] = None, lean: bool = False) -> ScopeTree:
        """The scope model of ``module`` (:func:`syntax_tree`), built once per text; ``within``: the only top-level
        statements asked about (the others' functions and classes are not walked); ``focus``, ``lean``: the nodes
        asked about in them, and whether code away from them is walked for its bindings only (see
        :class:`ScopeTree`)."""
        return _scopes(module, None if within is None else tuple(within), None if focus is None else tuple(focus),
                       lean)

    def locate(self, text: str, kinds: tuple, hint: str) -> Located:
        """The nodes of ``kinds`` the findings' fix hints point at (``finding.fix_hint[hint]``), and what a hoist
        asks about them: their parents, the scope model of their top-level statements, the module's names."""
        module = syntax_tree(text)
        found = [(finding, find_node(module, kinds, finding.fix_hint[hint]["line"], finding.fix_hint[hint]["col"]))
                 for finding in self.findings_for(text) if finding.fix_hint.get(hint)]
        parent = parents(module)
        nodes = [node for _, node in found if node is not None]
        tops = sorted({top_level_statement(node, parent) for node in nodes}, key=lambda stmt: stmt.lineno)
        return Located(module, parent, [(f, node) for f, node in found if node is not None],
                       self.scopes(module, tops, nodes, lean=":=" not in text), module_names(module, text))

    def partial_ref(self, tree: ast.Module) -> str:
        """How to spell ``functools.partial`` here, scheduling the import when needed."""
        spelling = existing_spelling(tree, "functools", "partial")
        if spelling is None:
            self.add_import("functools")
            spelling = "functools.partial"
        return spelling


class Located(Record):
    """What :meth:`Codemod.locate` found."""

    __slots__ = ("module", "parent", "found", "scopes", "taken")

    def __init__(self, module: ast.Module, parent: dict[ast.AST, ast.AST], found: list[tuple[Finding, ast.AST]],
                 scopes: ScopeTree, taken: Names) -> None:
        self.module = module
        self.parent = parent  # see :func:`._tree.parents`
        self.found = found  # each finding whose node was found, and the node
        self.scopes = scopes  # of the found nodes' top-level statements
        self.taken = taken  # the module's identifiers, for new names


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
    from . import lines
    from ._tree import forget_index

    lines.forget()
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


def _scopes(module: ast.Module, within: Optional[tuple], focus: Optional[tuple], lean: bool) -> ScopeTree:
    key = (module, within, focus, lean)
    if key not in _SCOPES:
        while len(_SCOPES) >= 4:
            _SCOPES.pop(next(iter(_SCOPES))).unlink()
        _SCOPES[key] = ScopeTree(module, within, focus, lean)
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


DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
