"""Registry entries proposed by the pool-library survey (issue 22, item 6): data for ``spawn_apis.py``, not yet in it.

    python benchmarks/pools/registry_proposal.py     # checks that every entry builds a SpawnAPI (or says why not)

``PROPOSED_APIS``: one dict per API that ``BUILTIN_APIS`` lacks, with ``SpawnAPI``'s field names.  Spelling of the
values that are objects in ``spawn_apis.py``: ``Arg`` is ``{"keyword", "position", "kind", "rest"}``, ``WorkerCount``
is ``{"keyword", "position", "no_workers"}``, ``ABSENT`` is the string ``"ABSENT"``, the pickler and context are
their strings.  Keys starting with ``_`` are not fields:

* ``_evidence``: the rows of ``benchmarks/pools/RESULTS.md`` (library / API / payload, start method) that show it;
* ``_source``: where the library decides it (upstream repository file:line at the commit named in
  ``docs/pool-libraries.md``; ``installed`` means the file of the version measured here);
* ``_needs``: a model feature the registry lacks, without which the entry is only approximate (see ``NEW_FIELDS``).

``PROPOSED_CONTEXTS``: contexts to add to ``CONTEXTS``.  ``CORRECTIONS``: existing entries (and one docstring) that
the measurements contradict, each with the measurement.  Nothing here is imported by the linter.
"""

from __future__ import annotations

WINDOWS, MACOS, LINUX_314, LINUX_313 = "windows", "macos", "linux>=3.14", "linux<=3.13"

PROPOSED_CONTEXTS = {
    # mpire's start_method default: 'fork' wherever fork exists (Linux of any version, macOS), 'spawn' on Windows
    # (mpire/context.py:49).  The same mapping as "multiprocess", under a name that does not say dill.
    "fork-unless-windows": {WINDOWS: "spawn", MACOS: "fork", LINUX_314: "fork", LINUX_313: "fork"},
}

_FN = {"keyword": "func", "position": 0, "kind": "callable"}


def _fn(keyword, position=0):
    return {"keyword": keyword, "position": position, "kind": "callable"}


def _iterables(position=1):
    return {"keyword": None, "position": position, "kind": "args", "rest": True}


PROPOSED_APIS = [
    # -- pathos / p_tqdm ---------------------------------------------------------------------------------------
    {
        "key": "pathos.ProcessPool",
        "names": ["pathos.pools.ProcessPool", "pathos.multiprocessing.ProcessPool", "pathos.pools._ProcessPool"],
        "label": "pathos `ProcessPool`",
        "kind": "call",
        # the count is `nodes`, `ncpus` or `processes` (keywords) or the first positional argument
        "count": {"keyword": "nodes", "position": 0, "no_workers": []},
        "payload": [{"keyword": "initializer", "position": None, "kind": "callable"},
                    {"keyword": "initargs", "position": None, "kind": "args"}],
        "method_payload": {
            "map": [_fn("f"), _iterables()], "imap": [_fn("f"), _iterables()], "uimap": [_fn("f"), _iterables()],
            "amap": [_fn("f"), _iterables()], "pipe": [_fn("f"), _iterables()], "apipe": [_fn("f"), _iterables()],
        },
        "pickler": "dill",
        "context": "multiprocess",
        "_evidence": "pathos / ProcessPool: lambda, nested_fn, local_class, closure_lock ok under all three; "
                     "notebook_global NameError under spawn and forkserver; count nodes=0 ValueError",
        "_source": "uqfoundation/pathos pathos/multiprocessing.py:96-112 (nodes/ncpus/processes), :148-190 "
                   "(map(f, *args) -> Pool.map(star(f), zip(*args)); pipe -> Pool.apply); "
                   "pathos/helpers/__init__.py:14-15 (multiprocess.Pool)",
        "_needs": "count keyword aliases (`ncpus`, `processes`); pools are cached per (nodes, id): a second "
                  "ProcessPool(nodes=n) reuses the first one's workers",
    },
    {
        "key": "pathos.ParallelPool",
        "names": ["pathos.pools.ParallelPool", "pathos.parallel.ParallelPool", "pathos.pp.ParallelPool"],
        "label": "pathos `ParallelPool`",
        "kind": "call",
        "count": {"keyword": "nodes", "position": 0, "no_workers": []},
        "method_payload": {"map": [_fn("f"), _iterables()], "imap": [_fn("f"), _iterables()],
                           "uimap": [_fn("f"), _iterables()], "amap": [_fn("f"), _iterables()],
                           "pipe": [_fn("f"), _iterables()], "apipe": [_fn("f"), _iterables()]},
        # ppft ships the function's *source text* (dill.source) and its arguments pickled: neither pickle nor
        # dill describes it; dill is the nearer of the two for arguments
        "pickler": "dill",
        "reimports_main": False,
        "context": "spawn",
        "_evidence": "pathos / ParallelPool: workers are fresh interpreters that never run the script "
                     "(all methods); a lambda written inside an expression hangs the pool (SyntaxError in "
                     "ppworker), one alone on its line works; local_class hangs; closure_lock error; nodes=0 hangs",
        "_source": "uqfoundation/pathos pathos/parallel.py:64-85 (source must be found), :196-205 (ncpus=0 allowed)",
        "_needs": "a 'source' pickler (function shipped as source text); low priority: rare in ML code",
    },
    {
        "key": "p_tqdm.p_map",
        "names": ["p_tqdm.p_map", "p_tqdm.p_imap", "p_tqdm.p_umap", "p_tqdm.p_uimap", "p_tqdm.p_tqdm.p_map",
                  "p_tqdm.p_tqdm.p_imap", "p_tqdm.p_tqdm.p_umap", "p_tqdm.p_tqdm.p_uimap"],
        "label": "`p_tqdm.p_map`",
        "kind": "call",
        "count": {"keyword": "num_cpus", "position": None, "no_workers": []},
        "payload": [_fn("function"), _iterables()],
        "pickler": "dill",
        "context": "multiprocess",
        "_evidence": "pathos / p_tqdm.p_map: as pathos ProcessPool (lambda ok everywhere, notebook_global NameError "
                     "under spawn/forkserver); num_cpus=0 ValueError",
        "_source": "swansonk14/p_tqdm p_tqdm/p_tqdm.py:15 (pathos ProcessPool), :33-39 (num_cpus: int, or float "
                   "fraction of cpu_count), :52",
    },
    # -- pebble ------------------------------------------------------------------------------------------------
    {
        "key": "pebble.ProcessPool",
        "names": ["pebble.ProcessPool", "pebble.pool.ProcessPool", "pebble.pool.process.ProcessPool"],
        "label": "pebble `ProcessPool`",
        "kind": "object",
        "start_methods": ["schedule", "submit", "map"],
        # max_workers=0 is accepted and the pool never runs a task (measured: hang), so no value means "no worker"
        "count": {"keyword": "max_workers", "position": 0, "no_workers": []},
        "payload": [{"keyword": "initializer", "position": 2, "kind": "callable"},
                    {"keyword": "initargs", "position": 3, "kind": "args"}],
        "method_payload": {
            "schedule": [_fn("function"), {"keyword": "args", "position": 1, "kind": "args"},
                         {"keyword": "kwargs", "position": 2, "kind": "kwargs"}],
            "submit": [_fn("function"), {"keyword": None, "position": 2, "kind": "object", "rest": True}],
            "map": [_fn("function"), _iterables()],
        },
        "pickler": "pickle",
        "context": "default",
        "_evidence": "pebble / ProcessPool.map, ProcessPool.schedule: lambda, nested_fn, local_class fail under "
                     "fork too (tasks); notebook_fn: BrokenProcessPool under spawn/forkserver; max_workers=0 hangs",
        "_source": "noxdafox/pebble pebble/pool/process.py:56-60 (max_workers=cpu_count(), context=multiprocessing)",
        "_needs": "the `context=` keyword (a context object) as the explicit start method",
    },
    {
        "key": "pebble.concurrent.process",
        "names": ["pebble.concurrent.process", "pebble.concurrent.process.process"],
        "label": "pebble `@concurrent.process`",
        # a decorator: the decorated function is the payload, each call of the wrapper starts one process
        "kind": "call",
        "payload": [{"keyword": None, "position": 0, "kind": "callable"}],
        "pickler": "pickle",
        "context": "default",
        "_evidence": "pebble / concurrent.process: under fork every payload works (inherited); under spawn and "
                     "forkserver a function is looked up by __qualname__ in its module (trampoline): lambda, "
                     "nested_fn, closure_lock, notebook_fn fail with AttributeError, local_class with the pickling "
                     "error; '@process at module level' ok; 'process(mp_context=spawn)' is IGNORED (forked under "
                     "fork), 'process(context=spawn)' is honoured",
        "_source": "noxdafox/pebble pebble/common/shared.py:66 (reads kwargs 'context', while the signature in "
                   "pebble/concurrent/process.py:39 documents `mp_context`), pebble/common/process.py:133 "
                   "(_trampoline)",
        "_needs": "kind 'decorator' (payload = the decorated definition; its calls start the process); "
                  "explicit start method from the `context=` keyword only",
    },
    # -- mpire -------------------------------------------------------------------------------------------------
    {
        "key": "mpire.WorkerPool",
        "names": ["mpire.WorkerPool", "mpire.pool.WorkerPool"],
        "label": "mpire `WorkerPool`",
        "kind": "object",
        "start_methods": ["map", "map_unordered", "imap", "imap_unordered", "apply", "apply_async"],
        # n_jobs=None and n_jobs=0 both mean cpu_count() (`n_jobs or cpu_count()`); start_method='threading' runs
        # threads in the main process
        "count": {"keyword": "n_jobs", "position": 0, "no_workers": []},
        "payload": [{"keyword": "shared_objects", "position": 3, "kind": "object"}],
        "method_payload": {
            method: [_fn("func"), {"keyword": "iterable_of_args", "position": 1, "kind": "args"},
                     {"keyword": "worker_init", "position": None, "kind": "callable"},
                     {"keyword": "worker_exit", "position": None, "kind": "callable"}]
            for method in ("map", "map_unordered", "imap", "imap_unordered")
        } | {method: [_fn("func"), {"keyword": "args", "position": 1, "kind": "args"},
                      {"keyword": "kwargs", "position": 2, "kind": "kwargs"}] for method in ("apply", "apply_async")},
        "pickler": "pickle",
        "context": "fork-unless-windows",
        "_evidence": "mpire / WorkerPool under spawn and forkserver emulation: forked workers, every payload ok "
                     "(the emulator does not reach it); WorkerPool(start_method='spawn'): lambda etc. "
                     "'Can't pickle local object', notebook_fn hangs; use_dill=True: all ok but notebook_global "
                     "(NameError); n_jobs=0 starts cpu_count() workers; start_method='threading' runs in the main "
                     "process",
        "_source": "sybrenjansen/mpire mpire/context.py:40-49 (contexts bound at import; DEFAULT_START_METHOD = "
                   "'fork' if available), mpire/params.py:42 (`n_jobs or cpu_count()`), mpire/pool.py:87-93",
        "_needs": "start method from the `start_method=` keyword ('threading' = no worker process); pickler dill "
                  "when `use_dill=True`; the function of map() reaches workers at their start (inherited under "
                  "fork), not with every task",
    },
    # -- joblib / loky -----------------------------------------------------------------------------------------
    {
        "key": "joblib.Parallel",
        "names": ["joblib.Parallel", "joblib.parallel.Parallel", "sklearn.utils.parallel.Parallel"],
        "label": "`joblib.Parallel`",
        "kind": "object",
        "start_methods": ["__call__"],
        # n_jobs None (absent) and 1 run the calls in the main process (SequentialBackend); 0 raises ValueError
        "count": {"keyword": "n_jobs", "position": 0, "no_workers": ["ABSENT", None, 1]},
        # the iterable of `delayed(f)(*args)` calls: each carries f and its arguments
        "method_payload": {"__call__": [{"keyword": "iterable", "position": 0, "kind": "args"}]},
        "pickler": "cloudpickle",
        "reimports_main": False,
        "context": "spawn",
        "_evidence": "joblib / Parallel (loky): fresh workers that never run the script, under all three; lambda, "
                     "nested_fn, local_class, notebook_fn, notebook_global ok; closure_lock PicklingError; "
                     "n_jobs=1 and n_jobs=None in the main process; n_jobs=0 ValueError",
        "_source": "joblib/joblib joblib/parallel.py:51-64 (DEFAULT_BACKEND 'loky'), :970 (n_jobs == 1 -> "
                   "sequential), joblib/_parallel_backends.py:287 (n_jobs == 0 has no meaning)",
        "_needs": "variants by the `backend=` value: 'multiprocessing' -> pickler pickle, reimports_main True, "
                  "context 'default' (measured: lambda fails, notebook_fn hangs under spawn/forkserver); "
                  "'threading'/'sequential' -> no worker process; also `prefer='threads'` and a surrounding "
                  "`parallel_config(backend=...)` / `parallel_backend(...)`",
    },
    {
        "key": "loky.get_reusable_executor",
        "names": ["loky.get_reusable_executor", "loky.reusable_executor.get_reusable_executor",
                  "loky.ProcessPoolExecutor", "loky.process_executor.ProcessPoolExecutor",
                  "joblib.externals.loky.get_reusable_executor"],
        "label": "loky executor",
        "kind": "object",
        "start_methods": ["submit", "map"],
        "count": {"keyword": "max_workers", "position": 0, "no_workers": []},
        "payload": [{"keyword": "initializer", "position": None, "kind": "callable"},
                    {"keyword": "initargs", "position": None, "kind": "args"}],
        "method_payload": {"submit": [_fn("fn"), {"keyword": None, "position": 1, "kind": "object", "rest": True}],
                           "map": [_fn("fn"), _iterables()]},
        "pickler": "cloudpickle",
        "reimports_main": False,
        "context": "spawn",
        "_evidence": "loky / get_reusable_executor().map, .submit: fresh workers, main not re-imported, under all "
                     "three; all payloads ok but closure_lock (PicklingError); max_workers=0 ValueError; "
                     "context='loky_init_main': main re-imported",
        "_source": "joblib/loky loky/backend/context.py:44 (default method 'loky'), loky/backend/reduction.py:84 "
                   "(cloudpickle by default, LOKY_PICKLER to change), loky/backend/process.py:24 "
                   "(init_main_module=False), :41-44 (popen_loky_posix: fork+exec; win32: spawn)",
        "_needs": "`context='loky_init_main'` re-imports the main module (reimports_main True)",
    },
    # -- dask --------------------------------------------------------------------------------------------------
    {
        "key": "dask.compute(scheduler='processes')",
        "names": ["dask.compute", "dask.base.compute", "dask.multiprocessing.get", "dask.persist"],
        "label": "dask's processes scheduler",
        "kind": "call",
        "method_names": ["compute", "persist"],
        "required_keyword": "scheduler",
        "count": {"keyword": "num_workers", "position": None, "no_workers": []},
        "pickler": "cloudpickle",
        "context": "spawn",
        "_evidence": "dask / compute(scheduler='processes') and bag.map().compute() (default scheduler): fresh "
                     "workers that re-import the main module under fork emulation too; lambda, nested_fn, "
                     "local_class, notebook_fn, notebook_global ok; closure_lock TypeError (cannot pickle lock); "
                     "scheduler='threads' in the main process",
        "_source": "dask/dask dask/multiprocessing.py:32 (cloudpickle.dumps), :133-137 (get_context: config "
                   "'multiprocessing.context', default 'spawn'; win32: multiprocessing itself)",
        "_needs": "a keyword *value* test (scheduler in {'processes', 'multiprocessing'}); dask.bag collections "
                  "compute with this scheduler by default (Bag.__dask_scheduler__ = dask.multiprocessing.get), "
                  "so `bag.compute()` with no scheduler starts spawned workers too",
    },
    {
        "key": "distributed.LocalCluster",
        "names": ["distributed.LocalCluster", "dask.distributed.LocalCluster", "distributed.Client",
                  "dask.distributed.Client"],
        "label": "dask.distributed `LocalCluster`",
        # LocalCluster(...) starts its worker processes when built; Client() with no address builds one
        "kind": "call",
        "count": {"keyword": "n_workers", "position": None, "no_workers": []},
        "method_payload": {"submit": [_fn("func"), {"keyword": None, "position": 1, "kind": "object", "rest": True}],
                           "map": [_fn("func"), _iterables()]},
        "pickler": "cloudpickle",
        "context": "spawn",
        "_evidence": "dask / distributed.LocalCluster(processes=True): worker re-imports the main module under all "
                     "three emulations; lambda, nested_fn, local_class, notebook_fn, notebook_global ok; "
                     "closure_lock 'Could not serialize'; processes=False runs in the main process",
        "_source": "dask/distributed distributed/distributed.yaml:90 (multiprocessing-method: spawn), "
                   "distributed/utils.py:117, distributed/protocol/pickle.py:50-80 (pickle, then cloudpickle for "
                   "__main__ and what pickle refuses)",
        "_needs": "`processes=False` means no worker process (a keyword value, not a count); Client(address) "
                  "connects to an existing cluster and starts nothing",
    },
    # -- tqdm --------------------------------------------------------------------------------------------------
    {
        "key": "tqdm.contrib.concurrent.process_map",
        "names": ["tqdm.contrib.concurrent.process_map"],
        "label": "`tqdm.contrib.concurrent.process_map`",
        "kind": "call",
        "count": {"keyword": "max_workers", "position": None, "no_workers": []},
        "payload": [_fn("fn"), _iterables()],
        "pickler": "pickle",
        "context": "default",
        "payload_with_tasks": True,
        "_evidence": "tqdm / contrib.concurrent.process_map: as ProcessPoolExecutor (lambda etc. fail under fork "
                     "too; notebook_fn BrokenProcessPool under spawn/forkserver); max_workers=0 ValueError",
        "_source": "tqdm/tqdm tqdm/contrib/concurrent.py:72-105 (ProcessPoolExecutor(max_workers=...))",
    },
    # -- ray ---------------------------------------------------------------------------------------------------
    {
        "key": "ray.remote",
        "names": ["ray.remote"],
        "label": "`ray.remote`",
        # a decorator or a call on a function/class; `.remote(*args)` sends a task to a raylet-started worker
        "kind": "call",
        "payload": [{"keyword": None, "position": 0, "kind": "callable"}],
        "pickler": "cloudpickle",
        "reimports_main": False,
        "context": "spawn",
        "_evidence": "ray / ray.remote: fresh workers (raylet's default_worker.py) that never run the script, under "
                     "all three emulations; lambda, nested_fn, local_class, notebook_fn, notebook_global ok; "
                     "closure_lock 'Could not serialize the function'",
        "_source": "ray-project/ray python/ray/_private/serialization.py:10 (import ray.cloudpickle as pickle)",
        "_needs": "kind 'decorator'; arguments of `f.remote(...)` are payload too (serialized with the same "
                  "cloudpickle)",
    },
    {
        "key": "ray.util.multiprocessing.Pool",
        "names": ["ray.util.multiprocessing.Pool", "ray.util.multiprocessing.pool.Pool"],
        "label": "ray `Pool`",
        "kind": "call",
        "count": {"keyword": "processes", "position": 0, "no_workers": []},
        "payload": [{"keyword": "initializer", "position": 1, "kind": "callable"},
                    {"keyword": "initargs", "position": 2, "kind": "args"}],
        "method_payload": {"map": [_fn("func"), {"keyword": "iterable", "position": 1, "kind": "args"}],
                           "imap": [_fn("func"), {"keyword": "iterable", "position": 1, "kind": "args"}],
                           "imap_unordered": [_fn("func"), {"keyword": "iterable", "position": 1, "kind": "args"}],
                           "starmap": [_fn("func")], "apply": [_fn("func")], "apply_async": [_fn("func")],
                           "map_async": [_fn("func"), {"keyword": "iterable", "position": 1, "kind": "args"}]},
        "pickler": "cloudpickle",
        "reimports_main": False,
        "context": "spawn",
        "_evidence": "ray / util.multiprocessing.Pool: as ray.remote; processes=0 ValueError",
        "_source": "installed ray 2.60.0 ray/util/multiprocessing/pool.py:580 (processes), :638 (must be > 0)",
    },
]

CORRECTIONS = [
    {
        "entry": "concurrent.futures.ProcessPoolExecutor",
        "change": "when `max_tasks_per_child` is given and `mp_context` is not, the context is "
                  "get_context('spawn') on every OS: start_methods('spawn') for that call, not CONTEXTS['default']",
        "measured": "multiprocessing / ProcessPoolExecutor(max_tasks_per_child=1) under fork emulation: "
                    "'fresh worker, main re-imported', notebook_fn BrokenProcessPool (plain ProcessPoolExecutor "
                    "under fork: forked worker, notebook_fn ok)",
        "source": "CPython 3.11 Lib/concurrent/futures/process.py:672-675",
    },
    {
        "entry": "torch.multiprocessing.spawn",
        "change": "count no_workers=(0,): nprocs=0 starts no process and pickles nothing (it returns at once); "
                  "and `start_processes(..., start_method=...)` (position 5) names its context, 'spawn' when absent",
        "measured": "torch / multiprocessing.spawn 'count nprocs=0': 'nothing ran' under all three",
        "source": "pytorch/pytorch torch/multiprocessing/spawn.py (spawn() -> start_processes(start_method='spawn'));"
                  " installed 2.13.0 lines 230-236, 300, 340",
    },
    {
        "entry": "multiprocess.Pool",
        "change": "drop 'pathos.multiprocessing.ProcessPool' and 'pathos.pools.ProcessPool' from its names: they are "
                  "another class (count `nodes`, methods map/imap/uimap/amap/pipe/apipe with *iterables): the "
                  "'pathos.ProcessPool' entry above.  'pathos.multiprocessing.Pool' is multiprocess.Pool and stays",
        "measured": "pathos / ProcessPool 'count nodes=0': ValueError from multiprocess.Pool (the count is nodes)",
        "source": "uqfoundation/pathos pathos/multiprocessing.py:76 (Pool = multiprocess.Pool), :84-112",
    },
    {
        "entry": "trl.SFTTrainer",
        "change": "no_workers should be (ABSENT, None), and 0 if trl passes it on unchanged: dataset_num_proc=1 "
                  "reaches Dataset.map(num_proc=1), which starts a one-worker pool",
        "measured": "datasets / Dataset.map 'module_fn' with num_proc=1: a worker process under all three (forked "
                    "under fork, fresh and re-importing the main module under spawn/forkserver); trl itself is not "
                    "installed here, so its hand-over is read from source, not measured",
        "source": "huggingface/trl trl/trainer/sft_trainer.py:1399-1400 (map_kwargs['num_proc'] = "
                  "args.dataset_num_proc); huggingface/datasets src/datasets/arrow_dataset.py:3536 (num_proc >= 1 "
                  "-> Pool)",
    },
    {
        "entry": "analysis/checks/notebook_definitions.py (docstring and the pickler test of WSP206)",
        "change": "dill ships a __main__ function by value but looks its globals up in the worker's __main__: a "
                  "notebook function that reads a notebook global, or a module imported in a notebook cell, fails "
                  "with NameError in a spawned/forkserver worker of multiprocess (datasets, pathos, p_tqdm, mpire "
                  "use_dill).  cloudpickle (loky, joblib, dask, ray) captures those globals and is not concerned",
        "measured": "notebook (ipykernel) / multiprocess.Pool: nb_global and nb_import NameError under spawn and "
                    "forkserver, nb_fn ok; the guarded-definition emulation in every dill probe: notebook_global "
                    "NameError, notebook_fn ok",
        "source": "installed dill 0.4.1 dill/_dill.py:1090-1094 (_locate_function: a __main__ function is saved "
                  "by value), :1245-1249 (save_module_dict: __main__.__dict__ is saved as a reference to the "
                  "unpickling process's __main__); dill.settings['recurse'] (off by default, and multiprocess "
                  "does not set it) would capture the globals instead",
    },
]

#: Model features the entries above would need (named in their ``_needs``).
NEW_FIELDS = {
    "start_method_keyword": "a keyword whose constant value names the start method or context: mpire "
                            "`start_method=`, torch `start_processes(start_method=)`, pebble `context=`, "
                            "ProcessPoolExecutor `mp_context=`, DataLoader `multiprocessing_context=`, loky `context=`",
    "pickler_keyword": "a keyword that switches the pickler: mpire `use_dill=True` -> dill",
    "variants": "overrides chosen by a keyword's constant value: joblib `backend=`, dask `scheduler=`, "
                "LocalCluster `processes=False`, ProcessPoolExecutor `max_tasks_per_child=` (present -> spawn)",
    "decorator kind": "the decorated definition is the payload and each call of the result starts or feeds "
                      "workers: pebble `@concurrent.process`, ray `@ray.remote`",
    "start-time method payload": "arguments of a method that reach workers when the method starts them (inherited "
                                 "under fork), unlike tasks: mpire `map(func, ...)`'s func",
}


def check() -> list[str]:
    """Build a SpawnAPI from each proposed entry; return the problems."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
    from winspawn_lint import spawn_apis as sa

    contexts = {**sa.CONTEXTS, **PROPOSED_CONTEXTS}

    def arg(spec):
        return sa.Arg(spec.get("keyword"), spec.get("position"), kind=spec.get("kind", "object"),
                      rest=spec.get("rest", False))

    problems = []
    keys = {api.key for api in sa.BUILTIN_APIS}
    known = {name for api in sa.BUILTIN_APIS for name in api.names}
    for entry in PROPOSED_APIS:
        fields = {k: v for k, v in entry.items() if not k.startswith("_")}
        try:
            if fields["key"] in keys:
                raise ValueError("already in BUILTIN_APIS")
            clash = known.intersection(fields["names"])
            if clash and not any(c["entry"] == "multiprocess.Pool" for c in CORRECTIONS):
                raise ValueError(f"names already registered: {sorted(clash)}")
            if fields.get("context", "default") not in contexts:
                raise ValueError(f"unknown context {fields['context']!r}")
            if fields.get("pickler", "pickle") not in (sa.PICKLE, sa.DILL, sa.CLOUDPICKLE):
                raise ValueError(f"unknown pickler {fields['pickler']!r}")
            count = fields.get("count")
            if count is not None:
                count = sa.WorkerCount(count["keyword"], count.get("position"), no_workers=tuple(
                    sa.ABSENT if value == "ABSENT" else value for value in count.get("no_workers", ())))
            sa.SpawnAPI(
                key=fields["key"], names=tuple(fields["names"]), label=fields["label"], kind=fields.get("kind", "call"),
                start_methods=tuple(fields.get("start_methods", ())), count=count,
                payload=tuple(arg(a) for a in fields.get("payload", ())),
                method_payload={m: tuple(arg(a) for a in specs)
                                for m, specs in fields.get("method_payload", {}).items()},
                pickler=fields.get("pickler", sa.PICKLE), reimports_main=fields.get("reimports_main", True),
                method_names=tuple(fields.get("method_names", ())), required_keyword=fields.get("required_keyword"),
                context="default" if fields.get("context") in PROPOSED_CONTEXTS else fields.get("context", "default"),
                payload_with_tasks=fields.get("payload_with_tasks", False),
            )
        except Exception as exc:  # noqa: BLE001 -- reported
            problems.append(f"{entry.get('key')}: {type(exc).__name__}: {exc}")
    return problems


if __name__ == "__main__":
    found = check()
    print("\n".join(found) if found else f"{len(PROPOSED_APIS)} proposed entries build SpawnAPI objects; "
          f"{len(CORRECTIONS)} corrections, {len(PROPOSED_CONTEXTS)} new context(s).")
    raise SystemExit(1 if found else 0)
