"""``analysis.scopes``: which scope each name read resolves to, case by case (the fixer's free variables)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from winspawn_lint.analysis.scopes import ScopeTree


def _tree(code: str) -> tuple[ScopeTree, ast.Module]:
    module = ast.parse(textwrap.dedent(code))
    return ScopeTree(module), module


def _def(module: ast.Module, name: str) -> ast.AST:
    return next(n for n in ast.walk(module) if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == name)


def _lambda(module: ast.Module) -> ast.Lambda:
    return next(n for n in ast.walk(module) if isinstance(n, ast.Lambda))


# (code, module-level names the top-level function `work` reads)
MODULE_READS = [
    pytest.param("def work(x):\n    out = x\n    return out\nout = 1\n", set(), id="local-assignment"),
    pytest.param("def work(x):\n    return x * SCALE\n", {"SCALE"}, id="global-read"),
    pytest.param("def work(out):\n    return out\n", set(), id="parameter"),
    pytest.param("def work(*args, key=None, **kw):\n    return args, key, kw\n", set(), id="star-parameters"),
    pytest.param("def work(xs):\n    return [y for y in xs]\n", set(), id="comprehension-variable"),
    pytest.param("def work(xs):\n    return {k: v for k, v in xs if k != LIMIT}\n", {"LIMIT"}, id="dict-comp-global"),
    pytest.param("def work(xs):\n    return [z for y in xs for z in y]\n", set(), id="nested-generators"),
    pytest.param("def work():\n    return [y for y in DATA]\n", {"DATA"}, id="first-iterable"),
    pytest.param("def work(xs):\n    f = lambda y: y + K\n    return f(xs)\n", {"K"}, id="lambda-global"),
    pytest.param("def work(xs):\n    f = lambda xs: xs\n    return f\n", set(), id="lambda-parameter"),
    pytest.param("def work():\n    global COUNT\n    COUNT = 1\n    return COUNT\n", {"COUNT"}, id="global-decl"),
    pytest.param("def work():\n    x = 1\n    def inner():\n        nonlocal x\n        x += 1\n    return x\n",
                 set(), id="nonlocal"),
    pytest.param("def work():\n    x = 1\n    del x\n    return x\n", set(), id="del-is-local"),
    pytest.param("def work(xs):\n    if (n := len(xs)) > 1:\n        return n\n", {"len"}, id="walrus"),
    pytest.param("def work(xs):\n    [last := y for y in xs]\n    return last\n", set(), id="walrus-in-comprehension"),
    pytest.param("def work(p):\n    match p:\n        case [a, *rest]:\n            return a, rest\n"
                 "        case {'k': v, **others}:\n            return v, others\n"
                 "        case Point(x=px) as whole:\n            return px, whole\n", {"Point"}, id="match-captures"),
    pytest.param("def work():\n    try:\n        pass\n    except E as err:\n        return err\n", {"E"}, id="except-as"),
    pytest.param("def work():\n    import os\n    from sys import path as p\n    return os, p\n", set(), id="imports"),
    pytest.param("def work():\n    with open(F) as fh:\n        return fh\n", {"open", "F"}, id="with-as"),
    pytest.param("def work():\n    for i in range(N):\n        pass\n    return i\n", {"range", "N"}, id="for-target"),
    pytest.param("@deco(A)\ndef work(x=B) -> C:\n    return x\n", {"deco", "A", "B", "C"}, id="decorator-default-annotation"),
    pytest.param("def work():\n    def helper():\n        return G\n    return helper\n", {"G"}, id="nested-function"),
    pytest.param("def work():\n    class Inner:\n        attr = 1\n        def m(self):\n            return attr\n"
                 "    return Inner\n", {"attr"}, id="class-body-invisible-to-methods"),
    pytest.param("def work():\n    class Inner:\n        attr = 1\n        other = attr\n    return Inner\n", set(),
                 id="class-body-reads-its-own"),
    pytest.param("def work():\n    class Inner:\n        attr = 1\n        xs = [attr for _ in R]\n    return Inner\n",
                 {"attr", "R"}, id="comprehension-in-class-body"),
]


@pytest.mark.parametrize("code, expected", MODULE_READS)
def test_module_reads_of_a_function(code, expected):
    tree, module = _tree(code)
    assert tree.module_reads([_def(module, "work")]) == expected


def test_class_reads_cover_methods_and_bases():
    tree, module = _tree("class DS(Base, metaclass=Meta):\n    size = N\n    def get(self, i):\n"
                         "        out = i\n        return out * SCALE\n")
    assert tree.module_reads([_def(module, "DS")]) == {"Base", "Meta", "N", "SCALE"}


def test_module_level_statement_reads_and_binds():
    tree, module = _tree("for batch in loader:\n    out = model(batch)\n    ys = [f(v) for v in out]\n")
    (stmt,) = module.body
    assert tree.module_reads([stmt]) == {"loader", "model", "f", "batch", "out"}  # module-level names
    assert tree.module_binds(stmt) == {"batch", "out", "ys"}


def test_module_binds_walrus_in_comprehension_and_nested_def():
    tree, module = _tree("if X:\n    def f():\n        inner = 1\n    ys = [last := y for y in X]\n")
    assert tree.module_binds(module.body[0]) == {"f", "ys", "last"}


@pytest.mark.parametrize("code, expected", [
    pytest.param("def main(k):\n    def work(x):\n        return x * k\n", {"k"}, id="parameter-of-enclosing"),
    pytest.param("def main(images):\n    def work(x):\n        return [image for image in images]\n", {"images"},
                 id="comprehension-variable-is-not-free"),
    pytest.param("def main():\n    def work(x):\n        image = x\n        return image\n    image = 1\n", set(),
                 id="own-local-shadows"),
    pytest.param("def main():\n    total = 0\n    def work(x):\n        return TOTAL + x\n", set(), id="module-name"),
    pytest.param("def main(a):\n    def work(x):\n        global a\n        return a\n", set(), id="declared-global"),
    pytest.param("def main(a):\n    def outer():\n        def work(x):\n            return a + b\n        b = 1\n",
                 {"a", "b"}, id="two-levels"),
    pytest.param("def main(n):\n    class C:\n        n = 2\n        def work(self):\n            return n\n", {"n"},
                 id="class-scope-skipped"),
])
def test_enclosing_reads_of_a_nested_function(code, expected):
    tree, module = _tree(code)
    assert set(tree.enclosing_reads(_def(module, "work"))) == expected


def test_enclosing_reads_of_a_lambda_with_first_read_positions():
    tree, module = _tree("def main(a, b):\n    return lambda x: (b, a, [a for _ in x])\n")
    reads = tree.enclosing_reads(_lambda(module))
    assert sorted(reads, key=lambda name: reads[name][1]) == ["b", "a"]
    assert all(scope.kind == "function" for scope, _ in reads.values())


def test_declares_nonlocal():
    tree, module = _tree("def main():\n    x = 1\n    def work():\n        nonlocal x\n        x = 2\n"
                         "    def fine():\n        y = 1\n        def inner():\n            nonlocal y\n")
    assert tree.declares_nonlocal(_def(module, "work"))
    assert not tree.declares_nonlocal(_def(module, "fine"))


def test_outer_local_reads():
    tree, module = _tree("def main(d):\n    def work(x=d, y=C):\n        return x\n")
    assert tree.outer_local_reads(_def(module, "work")) == {"d"}


def test_deep_nesting_does_not_recurse():
    code = "x = " + "(" * 200 + "1" + ")" * 200 + "\n" + "def f():\n" + "".join(
        "    " * (i + 1) + "if x:\n" for i in range(90)) + "    " * 91 + "return y\n"
    tree, module = _tree(code)
    assert tree.module_reads([_def(module, "f")]) == {"x", "y"}


def test_a_tree_built_within_some_statements_answers_for_them_as_the_whole_one():
    code = textwrap.dedent("""\
        import os

        def helper():
            global COUNT
            COUNT = 1
            return [c for c in os.listdir(".")]

        class Config:
            size = 3

        def main(path):
            loader = open(path)
            def collate(batch):
                return [loader, batch, Config.size, COUNT]
            return collate

        if __name__ == "__main__":
            GUARDED = main("x")
        """)
    module = ast.parse(code)
    whole, part = ScopeTree(module), ScopeTree(module, within=[_def(module, "main")])
    collate = _def(module, "collate")
    assert part.module.bindings == whole.module.bindings
    assert ({name: (scope.node, where) for name, (scope, where) in part.enclosing_reads(collate).items()}
            == {name: (scope.node, where) for name, (scope, where) in whole.enclosing_reads(collate).items()})
    assert part.module_reads([_def(module, "main")]) == whole.module_reads([_def(module, "main")])
    assert _def(module, "helper") in part.scope_of and not part.scope_of[_def(module, "helper")].reads


def _nested(module):
    """Every function, lambda and class nested in a function of ``module``."""
    inner = []
    for top in module.body:
        if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inner += [node for node in ast.walk(top) if node is not top
                      and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))]
    return inner


def _answers(tree, node):
    """What the hoists ask of a scope model about ``node``: what it takes from the functions around it, and where
    those bind each name."""
    reads = tree.enclosing_reads(node)
    return ({name: (scope.node, where, sorted(scope.bindings[name])) for name, (scope, where) in reads.items()},
            tree.declares_nonlocal(node), sorted(tree.outer_local_reads(node)))


def test_a_focused_lean_tree_answers_for_its_focus_as_the_whole_one():
    # The fixture scripts with closures, and a function whose statements bind in every way a statement can.
    from fixture_spec import FIXTURES_DIR

    code = textwrap.dedent("""\
        import os

        def main(path, *args, flag=None, **kwargs):
            import json
            from os import sep as separator
            total: int = 0
            total += 1
            for index, (a, b) in enumerate([]):
                pass
            else:
                late = 1
            while total:
                total -= 1
            with open(path) as handle, open(path) as (other):
                data = handle.read()
            try:
                pass
            except OSError as error:
                caught = error
            finally:
                done = True
            del done
            def helper(x):
                return x + total + late
            class Local:
                size = total
            def collate(batch):
                return [helper(b) + index + len(data) + Local.size for b in batch] + [json, separator, caught]
            return collate
        """)
    sources = [code] + [path.read_text(encoding="utf-8") for path in sorted(FIXTURES_DIR.glob("*.py"))
                        if ":=" not in path.read_text(encoding="utf-8")]
    for source in sources:
        module = ast.parse(source)
        whole = ScopeTree(module)
        for node in _nested(module):
            top = next(t for t in module.body if any(n is node for n in ast.walk(t)))
            lean = ScopeTree(module, within=[top], focus=[node], lean=True)
            assert _answers(lean, node) == _answers(whole, node), ast.dump(node)[:80]
            # A local function it calls, asked about later (the hoist of a chain), answers the same once expanded.
            for name, (scope, _) in lean.enclosing_reads(node).items():
                for child in scope.children:
                    if getattr(child.node, "name", None) == name and not isinstance(child.node, ast.ClassDef):
                        lean.expand(child.node)
                        assert _answers(lean, child.node) == _answers(whole, child.node)
