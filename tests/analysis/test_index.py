"""analysis/index.py: one walk records where each call runs, and the scopes and bindings names resolve in."""

from __future__ import annotations

from analysed import analyse


# --- where a call runs ------------------------------------------------------------------------------------

def test_a_module_level_call_runs_at_import_time():
    site = analyse("Pool(2)\n").call("Pool(2)")[1]
    assert site.import_time and not site.guarded and site.function is None


def test_a_call_under_the_main_guard_does_not():
    site = analyse('''
        if __name__ == "__main__":
            Pool(2)
    ''').call("Pool(2)")[1]
    assert site.guarded and not site.import_time


def test_the_else_of_the_main_guard_runs_at_import_time_in_every_worker():
    site = analyse('''
        if __name__ == "__main__":
            main()
        else:
            Pool(2)
    ''').call("Pool(2)")[1]
    assert site.import_time and not site.guarded


def test_a_call_in_a_function_runs_when_the_function_is_called():
    module = analyse('''
        def main():
            Pool(2)
    ''')
    site = module.call("Pool(2)")[1]
    assert not site.import_time and site.function is module.function("main")
    assert site.top_stmt is module.tree.body[0]  # the def: what a fix moves


def test_a_class_body_runs_at_import_time_but_its_methods_do_not():
    module = analyse('''
        class Job:
            pool = Pool(2)

            def run(self):
                Pool(4)
    ''')
    assert module.call("Pool(2)")[1].import_time
    assert not module.call("Pool(4)")[1].import_time


def test_a_lambda_body_runs_later_in_its_own_scope():
    module = analyse("f = lambda: Pool(2)\n")
    site = module.call("Pool(2)")[1]
    assert not site.import_time and site.scope.kind == "lambda" and site.function is site.scope


def test_the_body_of_a_typod_guard_runs_nowhere_so_not_at_import_time():
    module = analyse('''
        if __name__ == "main":
            Pool(2)
    ''')
    assert not module.call("Pool(2)")[1].import_time
    assert module.index.main_guards == [] and len(module.index.module_ifs) == 1


def test_a_try_that_catches_runtime_error_is_noted():
    module = analyse('''
        try:
            set_start_method("spawn")
        except RuntimeError:
            pass
        try:
            Pool(1)
        except (ValueError, Exception):
            pass
        try:
            Pool(2)
        except ValueError:
            pass
    ''')
    assert module.call('set_start_method("spawn")')[1].catches_runtime_error
    assert module.call("Pool(1)")[1].catches_runtime_error  # Exception catches RuntimeError too
    assert not module.call("Pool(2)")[1].catches_runtime_error


# --- calls that run once per iteration (a reader heavy only in a loop, WSP103) ---------------------------------

def _looped(source: str, owner: str = "") -> list[str]:
    """The source of the calls of *owner* (a def's name; the module when empty) that run once per iteration."""
    module = analyse(source)
    node = module.function(owner).node if owner else module.tree
    looped = module.index.calls_in_loops(node)
    return sorted(module.text(call) for call, _ in module.index.calls if id(call) in looped)


def test_a_loop_body_and_a_while_test_run_per_iteration_the_iterable_and_the_else_once():
    assert _looped('''
        for path in listdir(root()):
            read(path)
        else:
            done()
        while more():
            pass
    ''') == ["more()", "read(path)"]


def test_a_comprehension_runs_its_element_and_conditions_per_item_its_first_iterable_once():
    assert _looped('''
        images = [read(p) for p in listdir(root()) if ok(p)]
        pairs = {key(p): read(q) for p in first() for q in inner(p)}
    ''') == ["inner(p)", "key(p)", "ok(p)", "read(p)", "read(q)"]


def test_a_def_in_a_loop_runs_its_body_when_called_not_per_iteration():
    source = '''
        def load(paths):
            for path in paths:
                @register(path)
                def reader():
                    return read(path)
            return [lambda: read(p) for p in paths]
    '''
    assert _looped(source, "load") == ["register(path)"]
    assert _looped(source) == []  # (the module's own code only defines load)


# --- what the walk collects ----------------------------------------------------------------------------------

def test_main_guards_and_module_level_ifs_are_listed():
    module = analyse('''
        if DEBUG:
            pass
        if __name__ == "__main__":
            main()
    ''')
    assert [node.lineno for node in module.index.module_ifs] == [2, 4]
    assert [node.lineno for node in module.index.main_guards] == [4]


def test_loops_and_comprehensions_are_iterations():
    module = analyse('''
        for batch in loader:
            pass
        sizes = [len(b) for b in other]
    ''')
    assert [module.text(iterable) for iterable, _, _ in module.index.iterations] == ["loader", "other"]


def test_a_def_with_yield_is_a_generator_function_and_a_nested_yield_is_not_its_own():
    module = analyse('''
        def gen():
            yield 1

        def outer():
            def inner():
                yield 2
            return inner
    ''')
    names = {node.name for node in module.index.generator_functions}
    assert names == {"gen", "inner"}


def test_a_class_knows_its_methods_and_what_they_store_on_self():
    module = analyse('''
        class Data:
            def __init__(this, path):
                this.file = open(path)
                this.size: int = 3
                other.x = 1

            def reopen(self):
                self.file = open(self.path)
    ''')
    (info,) = module.index.classes.values()
    assert list(info.methods) == ["__init__", "reopen"]
    assert [(attribute, module.text(value)) for attribute, value, _, _ in info.self_assignments["__init__"]] == [
        ("file", "open(path)"), ("size", "3")]
    assert [attribute for attribute, *_ in info.self_assignments["reopen"]] == ["file"]


# --- scopes and bindings --------------------------------------------------------------------------------------

def bindings(module, scope=None) -> dict[str, list[tuple[str, int]]]:
    scope = scope or module.index.module_scope
    return {name: [(b.kind, b.line) for b in found] for name, found in scope.bindings.items()}


def test_imports_bind_the_name_they_introduce_to_what_it_stands_for():
    module = analyse('''
        import torch.utils.data
        import numpy as np
        from torch.utils.data import DataLoader as DL
        from . import sibling
        from ..pkg import helper
        from os import *
    ''')
    scope = module.index.module_scope
    assert {name: found[0].qualname for name, found in scope.bindings.items()} == {
        "torch": "torch", "np": "numpy", "DL": "torch.utils.data.DataLoader", "sibling": ".sibling",
        "helper": "..pkg.helper"}


def test_each_assignment_is_a_binding_at_its_line():
    module = analyse('''
        n = 1
        n = n + 1
        a, b = 2, f()
        first, *rest = items
        with open(p) as fh:
            pass
        for i in range(3):
            pass
    ''')
    assert bindings(module) == {
        "n": [("assign", 2), ("assign", 3)], "a": [("assign", 4)], "b": [("assign", 4)],
        "first": [("other", 5)], "rest": [("other", 5)], "fh": [("with", 6)], "i": [("for", 8)]}
    a, b = (module.index.module_scope.bindings[name][0] for name in "ab")
    assert (module.text(a.value), module.text(b.value)) == ("2", "f()")  # tuples are paired element by element


def test_parameters_bind_in_the_function_and_global_sends_a_binding_to_the_module():
    module = analyse('''
        def setup(a, /, b=1, *args, c, **kw):
            global pool
            pool = Pool(2)
            local = 3
    ''')
    assert set(bindings(module, module.function("setup"))) == {"a", "b", "args", "c", "kw", "local"}
    assert bindings(module)["pool"] == [("assign", 4)]


def test_a_walrus_binds_in_the_enclosing_function_not_the_comprehension():
    module = analyse('''
        def f(xs):
            return [y for x in xs if (y := x * 2)]
    ''')
    assert "y" in module.function("f").bindings


def test_nested_scopes_chain_to_their_parents():
    module = analyse('''
        class Outer:
            def method(self):
                def inner():
                    pass
    ''')
    inner = module.function("inner")
    assert [s.kind for s in (inner, inner.parent, inner.parent.parent, inner.parent.parent.parent)] == [
        "function", "function", "class", "module"]
    assert inner.parent.parent.function_scope() is None  # a class body is not a function
