"""analysis/names.py: what a name or attribute stands for, through imports, aliases and assignments; None when
unsure."""

from __future__ import annotations

import pytest

from analysed import analyse
from winspawn_lint.analysis.names import MAX_DEPTH, is_local_definition


def qualname(source: str, call: str):
    module = analyse(source)
    node, site = module.call(call)
    return module.resolver.qualname(node.func, site.scope)


@pytest.mark.parametrize("source, call, expected", [
    ("import multiprocessing\nmultiprocessing.Pool(2)\n", "multiprocessing.Pool(2)", "multiprocessing.Pool"),
    ("import multiprocessing as mp\nmp.Pool(2)\n", "mp.Pool(2)", "multiprocessing.Pool"),
    ("from multiprocessing import Pool as P\nP(2)\n", "P(2)", "multiprocessing.Pool"),
    ("import torch.utils.data\ntorch.utils.data.DataLoader(ds)\n", "torch.utils.data.DataLoader(ds)",
     "torch.utils.data.DataLoader"),
    ("from torch.utils import data\ndata.DataLoader(ds)\n", "data.DataLoader(ds)", "torch.utils.data.DataLoader"),
])
def test_imports_and_aliases_resolve_to_the_qualified_name(source, call, expected):
    assert qualname(source, call) == expected


def test_an_assigned_alias_is_followed():
    assert qualname("import multiprocessing as mp\nmake = mp.Pool\nmake(2)\n", "make(2)") == "multiprocessing.Pool"


@pytest.mark.parametrize("method", ['"spawn"', '"forkserver"', "", 'method="spawn"'])
def test_a_context_object_stands_for_its_module(method):
    source = f"import multiprocessing as mp\nctx = mp.get_context({method})\nctx.Pool(2)\n"
    assert qualname(source, "ctx.Pool(2)") == "multiprocessing.Pool"


@pytest.mark.parametrize("method", ['"fork"', 'method="fork"'])
def test_an_explicit_fork_context_resolves_to_nothing(method):
    # A fork child neither re-imports the main module nor unpickles its target: no rule of ours applies.
    source = f"import multiprocessing as mp\nctx = mp.get_context({method})\nctx.Pool(2)\n"
    assert qualname(source, "ctx.Pool(2)") is None


def test_builtins_and_module_level_definitions_have_names_of_their_own():
    source = "def work():\n    pass\nprint(work())\n"
    assert qualname(source, "print(work())") == "builtins.print"
    assert qualname(source, "work()") == "<module>.work"


@pytest.mark.parametrize("source, call", [
    ("unknown_name(1)\n", "unknown_name(1)"),  # neither bound nor a builtin
    ("def f(make):\n    make(2)\n", "make(2)"),  # a parameter could be anything
    ("def f():\n    def g():\n        pass\n    g()\n", "g()"),  # a local def has no importable name
    ("x = get()\nx.y(1)\n", "x.y(1)"),  # what get() returns is not known
])
def test_what_cannot_be_told_is_none(source, call):
    assert qualname(source, call) is None


def test_a_shadowed_builtin_is_not_the_builtin():
    assert qualname("from mylib import open\nopen(p)\n", "open(p)") == "mylib.open"


def test_in_a_function_the_binding_before_the_use_is_the_one_seen():
    source = '''
        import multiprocessing
        import concurrent.futures

        def main():
            Make = multiprocessing.Pool
            Make(1)
            Make = concurrent.futures.ProcessPoolExecutor
            Make(2)
    '''
    assert qualname(source, "Make(1)") == "multiprocessing.Pool"
    assert qualname(source, "Make(2)") == "concurrent.futures.ProcessPoolExecutor"


_FALLBACK = '''
    try:
        from multiprocess import Pool
    except ImportError:
        from multiprocessing import Pool
        Pool(1)
    Pool(2)

    def main():
        Pool(3)
'''


@pytest.mark.parametrize("call, expected", [
    ("Pool(1)", "multiprocessing.Pool"),  # in the handler: the fallback has run
    ("Pool(2)", "multiprocess.Pool"),  # after the try: the import Python tries first
    ("Pool(3)", "multiprocess.Pool"),
])
def test_a_name_imported_with_a_fallback_stands_for_the_import_tried_first(call, expected):
    assert qualname(_FALLBACK, call) == expected


def test_an_import_in_the_handler_of_another_name_is_no_fallback():
    source = "try:\n    from multiprocess import Queue\nexcept ImportError:\n    from multiprocessing import Pool\nPool(2)\n"
    assert qualname(source, "Pool(2)") == "multiprocessing.Pool"


def test_a_method_does_not_see_its_class_body_names():
    source = '''
        from multiprocessing import Pool

        class Job:
            Pool = None

            def run(self):
                Pool(2)
    '''
    assert qualname(source, "Pool(2)") == "multiprocessing.Pool"


def test_a_chain_of_aliases_longer_than_max_depth_is_given_up():
    chain = "".join(f"a{i + 1} = a{i}\n" for i in range(MAX_DEPTH + 2))
    source = f"from multiprocessing import Pool as a0\n{chain}a{MAX_DEPTH + 2}(2)\n"
    assert qualname(source, f"a{MAX_DEPTH + 2}(2)") is None
    assert qualname("from multiprocessing import Pool as a0\na1 = a0\na1(2)\n", "a1(2)") == "multiprocessing.Pool"


def test_definition_follows_plain_renames_to_a_def_or_class():
    module = analyse('''
        def work(x):
            return x

        job = work
        run(job)
    ''')
    call, site = module.call("run(job)")
    binding = module.resolver.definition(call.args[0], site.scope)
    assert binding.kind == "def" and binding.node.name == "work"


def test_value_of_follows_assignments_and_with_targets_to_the_expression():
    module = analyse('''
        def main():
            loader = DataLoader(ds, num_workers=2)
            same = loader
            with open(p) as fh:
                use(same, fh)
    ''')
    call, site = module.call("use(same, fh)")
    assert module.text(module.resolver.value_of(call.args[0], site.scope)[0]) == "DataLoader(ds, num_workers=2)"
    assert module.text(module.resolver.value_of(call.args[1], site.scope)[0]) == "open(p)"


@pytest.mark.parametrize("source, name, local", [
    ("def work():\n    pass\n", "work", False),
    ("class Data:\n    pass\n", "Data", False),
    ("class Data:\n    def method(self):\n        pass\n", "method", False),  # pickled by reference: fine
    ("def main():\n    def work():\n        pass\n", "work", True),
    ("def main():\n    class Data:\n        pass\n", "Data", True),
    ("if True:\n    def work():\n        pass\n", "work", False),  # module level, conditionally
])
def test_a_definition_made_while_a_function_runs_is_local(source, name, local):
    module = analyse(source)
    scopes = [module.index.module_scope, *module.index.functions.values(),
              *(info.body_scope for info in module.index.classes.values())]
    (binding,) = [b for scope in scopes for b in scope.bindings.get(name, []) if b.kind in ("def", "class")]
    assert is_local_definition(binding) is local


def test_a_name_asked_about_without_a_node_is_answered_as_its_use_there_and_kept_once():
    module = analyse("import multiprocessing as mp\nfrom torch.utils.data import DataLoader\nx = 1\n")
    resolver, scope = module.resolver, module.index.module_scope
    answers = [resolver.name_qualname("mp", scope, 3), resolver.name_qualname("DataLoader", scope),
               resolver.name_qualname("len", scope), resolver.name_qualname("unknown", scope)]
    kept = len(resolver._qualnames)
    for _ in range(100):  # (the taint engine asks for each import it follows, once per use)
        resolver.name_qualname("mp", scope, 3)
    assert answers == ["multiprocessing", "torch.utils.data.DataLoader", "builtins.len", None]
    assert len(resolver._qualnames) == kept
