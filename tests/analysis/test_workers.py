"""analysis/workers.py: which operations start worker processes, and which values travel to them."""

from __future__ import annotations

from analysed import analyse
from winspawn_lint.analysis.workers import function_returns, instance_class, resolve_callee

# --- starts ---------------------------------------------------------------------------------------------------


def test_calling_a_pool_starts_workers_and_its_initializer_travels():
    module = analyse('''
        from multiprocessing import Pool
        pool = Pool(2, initializer=setup)
    ''')
    assert module.starts() == ["Pool(2, initializer=setup)"]
    assert module.payloads() == ["setup"]


def test_a_process_starts_at_start_not_at_construction():
    module = analyse('''
        from multiprocessing import Process
        proc = Process(target=work, args=(1,))
        proc.start()
    ''')
    assert module.starts() == ["proc.start()"]
    assert module.payloads() == ["work", "(1,)"]


def test_a_dataloader_starts_workers_where_it_is_iterated():
    module = analyse('''
        from torch.utils.data import DataLoader
        loader = DataLoader(ds, num_workers=2, collate_fn=merge)
        for batch in loader:
            pass
        first = next(iter(loader))
        pairs = list(enumerate(loader))
    ''')
    assert sorted({event.node.lineno for event in module.model.starts}) == [4, 6, 7]  # each way of iterating
    assert module.payloads() == ["ds", "merge"]


def test_a_dataloader_without_workers_starts_nothing_and_sends_nothing():
    module = analyse('''
        from torch.utils.data import DataLoader
        loader = DataLoader(ds, collate_fn=lambda b: b)
        for batch in loader:
            pass
    ''')
    assert module.starts() == [] and module.payloads() == []


def test_an_unresolved_count_follows_the_policy():
    source = '''
        from torch.utils.data import DataLoader
        for batch in DataLoader(ds, num_workers=args.workers):
            pass
    '''
    assert len(analyse(source).starts()) == 1
    assert analyse(source, assume_workers=False).starts() == []


def test_pool_methods_send_their_function_and_data_with_each_task():
    module = analyse('''
        from multiprocessing import Pool
        with Pool(2) as pool:
            pool.map(square, numbers)
    ''')
    assert module.payloads() == ["square", "numbers"]
    assert [p.task for p in module.model.payloads] == [True, True]


def test_an_executor_starts_at_its_first_submit_and_sends_every_further_argument():
    module = analyse('''
        from concurrent.futures import ProcessPoolExecutor
        executor = ProcessPoolExecutor(max_workers=2)
        executor.submit(work, item, flag)
    ''')
    assert module.starts() == ["executor.submit(work, item, flag)"]
    assert module.payloads() == ["work", "item", "flag"]


def test_datasets_map_with_num_proc_is_recognised_by_its_keyword_on_any_receiver():
    module = analyse('''
        tokenized = raw.map(tokenize, num_proc=4)
        same = raw.map(tokenize)
    ''')
    assert module.starts() == ["raw.map(tokenize, num_proc=4)"]
    assert module.payloads() == ["tokenize"]


def test_a_factory_function_returning_a_loader_is_followed():
    module = analyse('''
        from torch.utils.data import DataLoader

        def make_loader():
            return DataLoader(ds, num_workers=2)

        for batch in make_loader():
            pass
    ''')
    assert module.starts() == ["for batch in make_loader():\n    pass"]


def test_a_worker_object_built_and_dropped_sends_nothing():
    module = analyse('''
        from multiprocessing import Process

        def main():
            Process(target=lambda: None)
            unused = Process(target=lambda: 1)
            kept = Process(target=lambda: 2)
            kept.start()
    ''')
    assert module.payloads() == ["lambda: 2"]


def test_a_module_level_worker_object_may_be_used_by_an_importer():
    module = analyse("from multiprocessing import Process\nproc = Process(target=lambda: None)\n")
    assert module.payloads() == ["lambda: None"]


def test_an_explicit_fork_context_starts_nothing_we_report():
    module = analyse('''
        import multiprocessing as mp
        pool = mp.get_context("fork").Pool(2, initializer=lambda: None)
    ''')
    assert module.starts() == [] and module.payloads() == []


# --- callees and classes -----------------------------------------------------------------------------------


def test_resolve_callee_finds_the_function_or_the_init_a_call_runs():
    module = analyse('''
        class Job:
            def __init__(self):
                pass

            def run(self):
                pass

        def helper():
            pass

        def main():
            job = Job()
            job.run()
            helper()
            unknown()
    ''')

    def callee(text):
        call, site = module.call(text)
        found = resolve_callee(call, site, module.index, module.resolver)
        return found.name if found is not None else None

    assert [callee(text) for text in ("Job()", "job.run()", "helper()", "unknown()")] == [
        "__init__", "run", "helper", None]


def test_instance_class_knows_self_instances_and_the_class_itself():
    module = analyse('''
        class Data:
            def load(self):
                use(self)

        data = Data()
        use(data)
        use(Data)
        use(other)
    ''')

    def cls(text):
        call, site = module.call(text)
        info = instance_class(call.args[0], site.scope, module.index, module.resolver)
        return info.node.name if info is not None else None

    assert [cls(text) for text in ("use(self)", "use(data)", "use(Data)", "use(other)")] == [
        "Data", "Data", "Data", None]


def test_function_returns_are_its_own_not_those_of_nested_functions():
    module = analyse('''
        def outer(flag):
            def inner():
                return "inner"
            if flag:
                return "a"
            for x in range(3):
                return "b"
            return
    ''')
    outer = next(node for node in module.index.functions if node.name == "outer")
    assert sorted(module.text(value) for value in function_returns(outer)) == ['"a"', '"b"']
