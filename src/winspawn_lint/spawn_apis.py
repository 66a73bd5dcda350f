"""The registry of APIs that start worker processes, as data.

Each entry says how to recognise the API, when it actually starts workers,
how the worker count is given and which values mean "no workers", which
arguments travel to the workers, and which pickler carries them.  The facts
were measured by running the fixtures under an emulated spawn start method
(see ``tests/fixtures``); re-measure before changing one.

Users extend the registry from configuration (``[tool.winspawn-lint]``
``spawn-api`` tables, see :func:`from_config`): data, never code.
"""

from __future__ import annotations

import enum
import weakref
from functools import lru_cache
from typing import Any, Iterable, Mapping, Optional

from .records import Value

# -- the platform model: which start method a worker API uses where ---------------------------------------
#: Platforms a finding can break on.  Linux is split by Python version: 3.14 made forkserver its default.
WINDOWS, MACOS, LINUX_314, LINUX_313 = "windows", "macos", "linux>=3.14", "linux<=3.13"
PLATFORMS = (WINDOWS, MACOS, LINUX_314, LINUX_313)
PLATFORM_LABELS = {WINDOWS: "Windows", MACOS: "macOS", LINUX_314: "Linux ≥3.14", LINUX_313: "Linux ≤3.13"}

#: Start method per platform, by the context a worker API takes its processes from.
CONTEXTS: Mapping[str, Mapping[str, str]] = {
    # multiprocessing's default context (torch.multiprocessing, DataLoader, ProcessPoolExecutor share it):
    # spawn on Windows and on macOS since 3.8, forkserver on Linux since 3.14, fork before.
    "default": {WINDOWS: "spawn", MACOS: "spawn", LINUX_314: "forkserver", LINUX_313: "fork"},
    # multiprocess (dill; datasets' `num_proc`) keeps fork as its default on macOS and on Linux 3.14
    # (multiprocess 0.70.19 context.py: "_concrete_contexts['fork']) #FIXME: spawn"); Windows has only spawn.
    "multiprocess": {WINDOWS: "spawn", MACOS: "fork", LINUX_314: "fork", LINUX_313: "fork"},
    # torch.multiprocessing.spawn, get_context("spawn"), datasets' save_to_disk/push_to_hub: spawn everywhere
    "spawn": {WINDOWS: "spawn", MACOS: "spawn", LINUX_314: "spawn", LINUX_313: "spawn"},
    # mpire's default start method: fork wherever fork exists, spawn on Windows (mpire/context.py: measured in
    # benchmarks/pools/, docs/pool-libraries.md)
    "fork-unless-windows": {WINDOWS: "spawn", MACOS: "fork", LINUX_314: "fork", LINUX_313: "fork"},
    # stable-baselines3's SubprocVecEnv: forkserver wherever it exists, spawn on Windows (subproc_vec_env.py 2.9)
    "forkserver-unless-windows": {WINDOWS: "spawn", MACOS: "forkserver", LINUX_314: "forkserver",
                                  LINUX_313: "forkserver"},
}

#: When a hazard strikes, by start method (a rule's ``breaks``, or a finding's own)
NOT_FORK = "not-fork"  # pickling at process start, or the main module's re-import: spawn and forkserver
SPAWN_ONLY = "spawn"  # a cost paid per spawned worker (forkserver imports the script once, in its server)
EVERYWHERE = "everywhere"  # e.g. a task sent to a running pool: pickled under every start method
WINDOWS_ONLY = "windows"  # frozen Windows executables
UNKNOWN = "unknown"  # portability notes: nothing breaks as written


def start_methods(context: str, explicit: "str | None" = None) -> Mapping[str, str]:
    """Start method per platform for a worker API's context, or an explicit ``get_context(method)``."""
    if explicit in ("spawn", "forkserver", "fork"):
        return {platform: explicit for platform in PLATFORMS}
    return CONTEXTS.get(context, CONTEXTS["default"])


def breaks_on(condition: str, methods: Mapping[str, str]) -> "tuple[str, ...] | None":
    """The platforms where a hazard of this kind breaks, given the start method used on each (None: unknown)."""
    if condition == UNKNOWN:
        return None
    if condition == EVERYWHERE:
        return PLATFORMS
    if condition == WINDOWS_ONLY:
        return (WINDOWS,)
    if condition == SPAWN_ONLY:
        return tuple(p for p in PLATFORMS if methods[p] == "spawn")
    return tuple(p for p in PLATFORMS if methods[p] != "fork")


def platform_suffix(platforms: "tuple[str, ...] | None") -> str:
    """``[Windows, macOS, Linux ≥3.14]``; both Linux versions read as ``Linux``; '' when unknown."""
    if not platforms:
        return ""
    labels = [PLATFORM_LABELS[p] for p in PLATFORMS if p in platforms]
    if LINUX_314 in platforms and LINUX_313 in platforms:
        labels = [label for label in labels if not label.startswith("Linux")] + ["Linux"]
    return "[" + ", ".join(labels) + "]"


PICKLE = "pickle"
DILL = "dill"
CLOUDPICKLE = "cloudpickle"


class _Marker(enum.Enum):
    """Markers that keep their identity when pickled (settings travel to a parallel run's workers: a plain
    ``object()`` arrives there as a new object, and ``is ABSENT`` was then false in every worker)."""

    ABSENT = "absent"

    def __repr__(self) -> str:
        return self.name


#: Marker for "the parameter was not given".
ABSENT = _Marker.ABSENT


class Arg(Value):
    """An argument of a call: by keyword and/or position. ``position`` counts after any bound receiver."""

    __slots__ = ("keyword", "position", "kind", "rest", "with_tasks")

    def __init__(self, keyword: str | None = None, position: int | None = None, kind: str = "object",
                 rest: bool = False, with_tasks: bool = False) -> None:
        self.keyword = keyword
        self.position = position
        #: "callable" (a function run in the worker), "object" (pickled as data),
        #: "args" (a tuple/list whose items are pickled), "kwargs" (a dict whose values are)
        self.kind = kind
        #: also every further positional argument (``submit(fn, *args)``)
        self.rest = rest
        #: it goes with every task, pickled under fork too, where the API's other arguments go once under spawn
        #: only (Gluon's `batchify_fn`; :attr:`SpawnAPI.payload_with_tasks` says it of every argument)
        self.with_tasks = with_tasks

    def describe(self) -> str:
        return f"`{self.keyword}`" if self.keyword else f"argument {self.position + 1}"


class WorkerCount(Value):
    """How a call says how many workers it starts."""

    __slots__ = ("keyword", "position", "no_workers", "via")

    def __init__(self, keyword: str, position: int | None = None, no_workers: tuple[Any, ...] = (),
                 via: tuple[Arg, str] | None = None) -> None:
        self.keyword = keyword
        self.position = position
        #: values that provably mean no worker process (``ABSENT``: the argument is not given)
        self.no_workers = no_workers
        #: the count is a keyword of the object another argument was built from
        #: (``Trainer(args=TrainingArguments(dataloader_num_workers=2))``): (argument, its constructor's keyword)
        self.via = via


class SpawnAPI(Value):
    """A callable (function, constructor, or method) that starts or feeds worker processes."""

    __slots__ = ("key", "names", "label", "kind", "start_methods", "count", "payload", "method_payload", "pickler",
                 "reimports_main", "method_names", "required_keyword", "training", "context", "payload_with_tasks",
                 "returns", "sends_subclass", "threads")

    def __init__(self, key: str, names: tuple[str, ...], label: str, kind: str = "call",
                 start_methods: tuple[str, ...] = (), count: WorkerCount | None = None, payload: tuple[Arg, ...] = (),
                 method_payload: Mapping[str, tuple[Arg, ...]] | None = None, pickler: str = PICKLE,
                 reimports_main: bool = True, method_names: tuple[str, ...] = (),
                 required_keyword: str | None = None, training: bool = False, context: str = "default",
                 payload_with_tasks: bool = False, returns: str | None = None, sends_subclass: bool = False,
                 threads: str | None = None) -> None:
        self.key = key  # stable identifier, shown in messages
        self.names = names  # qualified names of the callable
        self.label = label  # how messages name it
        #: "call": calling it starts workers; "object": it returns an object whose
        #: ``start_methods`` (or iteration, "__iter__") start them
        self.kind = kind
        self.start_methods = start_methods
        self.count = count
        self.payload = payload  # arguments of the constructor/call that reach workers
        #: methods of the returned object that send work: name -> arguments that reach workers
        self.method_payload = method_payload if method_payload is not None else {}
        self.pickler = pickler
        #: spawned workers re-import the main module (False for loky/joblib workers)
        self.reimports_main = reimports_main
        #: matched by method name on any receiver when this keyword is present
        #: (``ds.map(fn, num_proc=4)``: ``num_proc`` is particular to HF datasets)
        self.method_names = method_names
        self.required_keyword = required_keyword
        #: its start methods train a model: heavy work as well as a worker start (WSP103)
        self.training = training
        #: where its processes come from: a key of :data:`CONTEXTS`
        self.context = context
        #: its payload travels with every job, pickled under fork too (measured: datasets' `map(num_proc=...)`
        #: fails on a captured sqlite connection under fork as under spawn)
        self.payload_with_tasks = payload_with_tasks
        #: the key of another API whose object this call returns (``SFTTrainer(...)`` maps with workers when it
        #: is built, and is a ``transformers.Trainer`` whose ``train()`` starts DataLoader workers)
        self.returns = returns
        #: an instance of a subclass is itself pickled when started, with everything its ``__init__`` stores on
        #: ``self`` (``Process.start()`` under spawn sends the process object to the child)
        self.sends_subclass = sends_subclass
        #: a keyword that, given True, makes its workers threads of this process (``thread_pool=True``): then it
        #: starts no process, as a worker count its ``no_workers`` holds (0) says
        self.threads = threads
        if threads is not None and (count is None or 0 not in count.no_workers):
            raise ValueError(f"{key}: a worker API with a threads keyword needs a count that 0 means none of")


_FN = Arg("func", 0, kind="callable")
_POOL_METHODS: dict[str, tuple[Arg, ...]] = {
    "map": (_FN, Arg("iterable", 1, kind="args")),
    "map_async": (_FN, Arg("iterable", 1, kind="args")),
    "imap": (_FN, Arg("iterable", 1, kind="args")),
    "imap_unordered": (_FN, Arg("iterable", 1, kind="args")),
    "starmap": (_FN, Arg("iterable", 1, kind="args")),  # (tuples of arguments: the items of each are pickled)
    "starmap_async": (_FN, Arg("iterable", 1, kind="args")),
    "apply": (_FN, Arg("args", 1, kind="args"), Arg("kwds", 2, kind="kwargs")),
    "apply_async": (_FN, Arg("args", 1, kind="args"), Arg("kwds", 2, kind="kwargs")),
}
_EXECUTOR_METHODS: dict[str, tuple[Arg, ...]] = {
    "submit": (Arg("fn", 0, kind="callable"), Arg(None, 1, rest=True)),
    "map": (Arg("fn", 0, kind="callable"), Arg(None, 1, kind="args", rest=True)),
}
_DATASETS_MAP = (Arg("function", 0, kind="callable"), Arg("fn_kwargs", None, kind="kwargs"))
# datasets 5.x: None/absent runs in-process, and so does 0 (normalised to None); 1 starts a one-worker pool.
_NUM_PROC_NONE = WorkerCount("num_proc", None, no_workers=(ABSENT, None, 0))


def _mp(*names: str) -> tuple[str, ...]:
    """The same callable in multiprocessing, its context objects, torch.multiprocessing and multiprocess."""
    out = []
    for name in names:
        out += [f"multiprocessing.{name}", f"torch.multiprocessing.{name}"]
    return tuple(out)


BUILTIN_APIS: tuple[SpawnAPI, ...] = (
    SpawnAPI(
        "multiprocessing.Pool",
        _mp("Pool", "pool.Pool"),
        "`multiprocessing.Pool`",
        kind="call",
        count=WorkerCount("processes", 0),
        payload=(Arg("initializer", 1, kind="callable"), Arg("initargs", 2, kind="args")),
        method_payload=_POOL_METHODS,
    ),
    SpawnAPI(
        "multiprocess.Pool",
        ("multiprocess.Pool", "multiprocess.pool.Pool", "pathos.multiprocessing.Pool"),
        "`multiprocess.Pool`",
        kind="call",
        count=WorkerCount("processes", 0),
        payload=(Arg("initializer", 1, kind="callable"), Arg("initargs", 2, kind="args")),
        method_payload=_POOL_METHODS,
        pickler=DILL,
        context="multiprocess",
    ),
    SpawnAPI(
        "multiprocessing.Process",
        _mp("Process", "process.BaseProcess"),
        "`multiprocessing.Process`",
        kind="object",
        start_methods=("start",),
        payload=(Arg("target", 1, kind="callable"), Arg("args", 3, kind="args"), Arg("kwargs", 4, kind="kwargs")),
        sends_subclass=True,
    ),
    SpawnAPI(
        "multiprocess.Process",
        ("multiprocess.Process",),
        "`multiprocess.Process`",
        kind="object",
        start_methods=("start",),
        payload=(Arg("target", 1, kind="callable"), Arg("args", 3, kind="args"), Arg("kwargs", 4, kind="kwargs")),
        pickler=DILL,
        context="multiprocess",
        sends_subclass=True,
    ),
    SpawnAPI(
        "multiprocessing.Manager",
        # A manager is a server process, started when it is made; it is sent nothing.  Measured: a module-level
        # `Manager()` in a script (or in a module the script imports) makes the server re-import the script and
        # make another manager while it bootstraps: RuntimeError in the child, EOFError in the parent, under
        # spawn; fine under fork (tests/fixtures/wsp101_manager_at_import.py).
        _mp("Manager"),
        "`multiprocessing.Manager`",
        kind="call",
    ),
    SpawnAPI(
        "multiprocess.Manager",
        ("multiprocess.Manager",),
        "`multiprocess.Manager`",
        kind="call",
        pickler=DILL,
        context="multiprocess",
    ),
    SpawnAPI(
        "concurrent.futures.ProcessPoolExecutor",
        ("concurrent.futures.ProcessPoolExecutor", "concurrent.futures.process.ProcessPoolExecutor"),
        "`ProcessPoolExecutor`",
        kind="object",
        # Workers start at the first submit (3.9+), not at construction: measured.
        start_methods=("submit", "map"),
        count=WorkerCount("max_workers", 0),
        payload=(Arg("initializer", 2, kind="callable"), Arg("initargs", 3, kind="args")),
        method_payload=_EXECUTOR_METHODS,
    ),
    SpawnAPI(
        "torch.multiprocessing.spawn",
        ("torch.multiprocessing.spawn", "torch.multiprocessing.spawn.spawn",
         "torch.multiprocessing.start_processes", "torch.multiprocessing.spawn.start_processes"),
        "`torch.multiprocessing.spawn`",
        kind="call",
        # nprocs=0 starts nothing and returns at once (measured)
        count=WorkerCount("nprocs", 2, no_workers=(0,)),
        payload=(Arg("fn", 0, kind="callable"), Arg("args", 1, kind="args")),
        context="spawn",
    ),
    SpawnAPI(
        "torch.utils.data.DataLoader",
        # webdataset's WebLoader is a DataLoader subclass that passes its arguments on unchanged; so is
        # schnetpack's AtomsLoader (1.x and 2.x: the same positions, its own default `collate_fn`; read in its
        # source, not run).
        ("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader", "webdataset.WebLoader",
         "webdataset.compat.WebLoader", "schnetpack.data.AtomsLoader", "schnetpack.data.loader.AtomsLoader",
         "schnetpack.AtomsLoader"),
        "`DataLoader`",
        kind="object",
        # Workers start when the loader is iterated; its sampler and batch_sampler stay in the main process.
        start_methods=("__iter__",),
        count=WorkerCount("num_workers", 5, no_workers=(ABSENT, 0)),
        payload=(
            Arg("dataset", 0),
            Arg("collate_fn", 6, kind="callable"),
            Arg("worker_init_fn", 10, kind="callable"),
        ),
    ),
    SpawnAPI(
        "mxnet.gluon.data.DataLoader",
        # MXNet Gluon's DataLoader (1.9.1, measured; the last release): `num_workers > 0` builds a
        # `multiprocessing.Pool` when the loader is built, with the dataset in its initializer's arguments (1.3 and
        # earlier: `Process(args=(dataset, ..., batchify_fn))` when it is iterated), so the dataset is pickled
        # under spawn (a lambda its `.transform()` keeps: "Can't pickle local object"), and `batchify_fn` goes
        # with every batch (a lambda fails under fork too); `thread_pool=True` uses threads.  Workers are taken
        # to start when it is iterated, which every release does.
        ("mxnet.gluon.data.DataLoader", "mxnet.gluon.data.dataloader.DataLoader"),
        "`gluon.data.DataLoader`",
        kind="object",
        start_methods=("__iter__",),
        count=WorkerCount("num_workers", 7, no_workers=(ABSENT, 0)),
        payload=(Arg("dataset", 0), Arg("batchify_fn", 6, kind="callable", with_tasks=True)),
        threads="thread_pool",
    ),
    SpawnAPI(
        "neat.ParallelEvaluator",
        # neat-python's ParallelEvaluator (2.0.0, measured by hand under emulated spawn: neat is not a probe here)
        # makes a `multiprocessing.Pool` when it is made, and `evaluate(genomes, config)` sends `eval_function` with
        # each genome by `apply_async`: a lambda fails under fork too, and a global the function reads that only
        # the script's `main()` filled is its import-time value in a spawned worker.
        ("neat.ParallelEvaluator", "neat.parallel.ParallelEvaluator"),
        "`neat.ParallelEvaluator`",
        kind="call",
        count=WorkerCount("num_workers", 0),
        payload=(Arg("eval_function", 1, kind="callable", with_tasks=True), Arg("initializer", 3, kind="callable"),
                 Arg("initargs", 4, kind="args")),
    ),
    SpawnAPI(
        "chainer.iterators.MultiprocessIterator",
        # Chainer's MultiprocessIterator (7.8.1, measured by hand under emulated spawn: chainer is not a probe here)
        # starts a `multiprocessing.Pool` with the dataset in its initializer's arguments when it is first
        # advanced (`next(it)`, a loop, an updater's `it.next()`), so the dataset is pickled under spawn ("Can't
        # pickle local object" for a lambda it keeps).  `n_processes=None` (and 0) means one per CPU.
        ("chainer.iterators.MultiprocessIterator", "chainer.iterators.multiprocess_iterator.MultiprocessIterator"),
        "`chainer.iterators.MultiprocessIterator`",
        kind="object",
        start_methods=("__iter__", "__next__", "next"),
        count=WorkerCount("n_processes", 4, no_workers=()),
        payload=(Arg("dataset", 0),),
    ),
    SpawnAPI(
        "monai.data.DataLoader",
        # MONAI's DataLoader: a torch DataLoader whose second argument is the worker count (`DataLoader(dataset,
        # num_workers=0, **kwargs)`), the rest passed on by keyword (monai 1.6).
        ("monai.data.DataLoader", "monai.data.dataloader.DataLoader"),
        "`monai.data.DataLoader`",
        kind="object",
        start_methods=("__iter__",),
        count=WorkerCount("num_workers", 1, no_workers=(ABSENT, 0)),
        payload=(
            Arg("dataset", 0),
            Arg("collate_fn", None, kind="callable"),
            Arg("worker_init_fn", None, kind="callable"),
        ),
    ),
    SpawnAPI(
        "torch_geometric.loader.DataLoader",
        # PyTorch Geometric's DataLoader: a torch DataLoader that drops a `collate_fn` it is given (its own
        # collater batches graphs) and passes the rest on by keyword (torch_geometric 2.8.1, measured: a local
        # dataset class fails to pickle for its workers, and iterating it unguarded re-enters the bootstrapping).
        ("torch_geometric.loader.DataLoader", "torch_geometric.loader.dataloader.DataLoader",
         "torch_geometric.data.DataLoader"),
        "`torch_geometric.loader.DataLoader`",
        kind="object",
        start_methods=("__iter__",),
        count=WorkerCount("num_workers", None, no_workers=(ABSENT, 0)),
        payload=(Arg("dataset", 0), Arg("worker_init_fn", None, kind="callable")),
    ),
    SpawnAPI(
        "datasets.Dataset.map",
        (),
        "`Dataset.map(num_proc=...)`",
        kind="call",
        count=_NUM_PROC_NONE,
        payload=_DATASETS_MAP,
        pickler=DILL,
        method_names=("map", "filter"),
        required_keyword="num_proc",
        context="multiprocess",
        payload_with_tasks=True,
    ),
    SpawnAPI(
        "datasets.Dataset.save_to_disk",
        (),
        "`save_to_disk/push_to_hub(num_proc=...)`",
        kind="call",
        # datasets 5.x shards with `multiprocess.get_context("spawn").Pool(num_proc)` for any num_proc >= 1,
        # on every OS: a fresh interpreter re-imports the main module even on Linux (measured).
        count=_NUM_PROC_NONE,
        pickler=DILL,
        method_names=("save_to_disk", "push_to_hub"),
        required_keyword="num_proc",
        context="spawn",
    ),
    SpawnAPI(
        "datasets.load_dataset",
        ("datasets.load_dataset",),
        "`load_dataset(num_proc=...)`",
        kind="call",
        count=_NUM_PROC_NONE,
        pickler=DILL,
        context="multiprocess",
    ),
    SpawnAPI(
        "transformers.Trainer",
        # trl's trainers subclass it and build their loaders through it (trl/trainer/base_trainer.py).
        ("transformers.Trainer", "transformers.trainer.Trainer", "transformers.Seq2SeqTrainer",
         *(f"trl{module}.{name}" for name in ("DPOTrainer", "GRPOTrainer", "KTOTrainer", "RewardTrainer",
                                              "RLOOTrainer") for module in ("", ".trainer"))),
        "`Trainer.train()`",
        kind="object",
        start_methods=("train", "evaluate", "predict"),
        count=WorkerCount(
            "dataloader_num_workers", None, no_workers=(ABSENT, 0), via=(Arg("args", 1), "dataloader_num_workers")
        ),
        # Its DataLoaders get the datasets and `collate_fn=data_collator` (Trainer.get_train_dataloader).
        payload=(Arg("data_collator", 2, kind="callable"), Arg("train_dataset", 3), Arg("eval_dataset", 4)),
        training=True,
    ),
    SpawnAPI(
        "trl.SFTTrainer",
        ("trl.SFTTrainer", "trl.trainer.SFTTrainer"),
        "`SFTTrainer`",
        kind="call",  # it maps the dataset with `dataset_num_proc` workers in its constructor
        # dataset_num_proc=1 reaches Dataset.map(num_proc=1), which starts a one-worker pool (measured)
        count=WorkerCount("dataset_num_proc", None, no_workers=(ABSENT, None),
                          via=(Arg("args", 1), "dataset_num_proc")),
        pickler=DILL,
        context="multiprocess",
        returns="transformers.Trainer",
    ),
    SpawnAPI(
        "lightning.Trainer",
        ("lightning.Trainer", "lightning.pytorch.Trainer", "pytorch_lightning.Trainer"),
        "Lightning `Trainer`",
        kind="object",
        start_methods=("fit", "validate", "test", "predict"),
        training=True,
    ),
    SpawnAPI(
        "fastNLP.Trainer",
        # fastNLP 0.5 (measured by hand with 0.5.5 under emulated spawn: fastNLP is not a probe here):
        # `Trainer(train_data, model, ..., num_workers=2)` iterates a torch DataLoader of `train_data` in `train()`;
        # unguarded, spawn fails "bootstrapping phase" in each worker, fork trains; without `num_workers`, both run.
        # (Its `dev_data` is tested in the process: its Tester is made without workers.)
        ("fastNLP.Trainer", "fastNLP.core.Trainer", "fastNLP.core.trainer.Trainer"),
        "fastNLP `Trainer`",
        kind="object",
        start_methods=("train",),
        count=WorkerCount("num_workers", 8, no_workers=(ABSENT, 0)),
        payload=(Arg("train_data", 0),),
        training=True,
    ),
    SpawnAPI(
        "fastNLP.Tester",
        # (measured as its Trainer: `Tester(data, model, metrics, num_workers=2).test()` unguarded fails under spawn)
        ("fastNLP.Tester", "fastNLP.core.Tester", "fastNLP.core.tester.Tester"),
        "fastNLP `Tester`",
        kind="object",
        start_methods=("test",),
        count=WorkerCount("num_workers", 4, no_workers=(ABSENT, 0)),
        payload=(Arg("data", 0),),
    ),
    # -- process-pool libraries, each measured in benchmarks/pools/ (docs/pool-libraries.md) ----------------
    SpawnAPI(
        "pathos.ProcessPool",
        # not multiprocess.Pool: its count is `nodes`, and its map(f, *iterables) family differs
        ("pathos.pools.ProcessPool", "pathos.multiprocessing.ProcessPool", "pathos.pools._ProcessPool"),
        "pathos `ProcessPool`",
        kind="call",
        count=WorkerCount("nodes", 0),
        payload=(Arg("initializer", None, kind="callable"), Arg("initargs", None, kind="args")),
        method_payload={method: (Arg("f", 0, kind="callable"), Arg(None, 1, kind="args", rest=True))
                        for method in ("map", "imap", "uimap", "amap", "pipe", "apipe")},
        pickler=DILL,
        context="multiprocess",
    ),
    SpawnAPI(
        "p_tqdm.p_map",
        tuple(f"p_tqdm{module}.{name}" for module in ("", ".p_tqdm")
              for name in ("p_map", "p_imap", "p_umap", "p_uimap")),
        "`p_tqdm.p_map`",
        kind="call",
        count=WorkerCount("num_cpus", None),
        payload=(Arg("function", 0, kind="callable"), Arg(None, 1, kind="args", rest=True)),
        pickler=DILL,
        context="multiprocess",
    ),
    # QuTiP's parallel loops over a multiprocessing pool, the standard pickler: `parfor` (QuTiP 3 and 4 only) on
    # `multiprocessing.Pool()`, the default context; `parallel_map` on it in QuTiP 4 and, in QuTiP 5, on a
    # `ProcessPoolExecutor` whose context is fork on Linux and macOS and the default (spawn) on Windows (read in
    # qutip 5.3.1 `solver/parallel.py` and qutip 4's `parallel.py`): `parallel_map` is taken as spawning on Windows
    # only, which both versions do.
    SpawnAPI(
        "qutip.parfor",
        ("qutip.parfor", "qutip.parallel.parfor"),
        "QuTiP `parfor`",
        kind="call",
        payload=(Arg("func", 0, kind="callable"), Arg(None, 1, kind="args", rest=True)),
        payload_with_tasks=True,  # (the function goes with each task, under fork too)
    ),
    SpawnAPI(
        "qutip.parallel_map",
        ("qutip.parallel_map", "qutip.parallel.parallel_map", "qutip.solver.parallel.parallel_map"),
        "QuTiP `parallel_map`",
        kind="call",
        payload=(Arg("task", 0, kind="callable"), Arg("values", 1, kind="args"), Arg("task_args", 2, kind="args"),
                 Arg("task_kwargs", 3, kind="kwargs")),
        context="fork-unless-windows",
        payload_with_tasks=True,
    ),
    SpawnAPI(
        "pebble.ProcessPool",
        ("pebble.ProcessPool", "pebble.pool.ProcessPool", "pebble.pool.process.ProcessPool"),
        "pebble `ProcessPool`",
        kind="object",
        start_methods=("schedule", "submit", "map"),
        count=WorkerCount("max_workers", 0),
        payload=(Arg("initializer", 2, kind="callable"), Arg("initargs", 3, kind="args")),
        method_payload={
            "schedule": (Arg("function", 0, kind="callable"), Arg("args", 1, kind="args"),
                         Arg("kwargs", 2, kind="kwargs")),
            "submit": (Arg("function", 0, kind="callable"), Arg(None, 2, rest=True)),
            "map": (Arg("function", 0, kind="callable"), Arg(None, 1, kind="args", rest=True)),
        },
    ),
    SpawnAPI(
        "mpire.WorkerPool",
        ("mpire.WorkerPool", "mpire.pool.WorkerPool"),
        "mpire `WorkerPool`",
        kind="object",
        start_methods=("map", "map_unordered", "imap", "imap_unordered", "apply", "apply_async"),
        # n_jobs=None and 0 both mean cpu_count()
        count=WorkerCount("n_jobs", 0),
        payload=(Arg("shared_objects", 3),),
        method_payload={
            **{method: (Arg("func", 0, kind="callable"), Arg("iterable_of_args", 1, kind="args"),
                        Arg("worker_init", None, kind="callable"), Arg("worker_exit", None, kind="callable"))
               for method in ("map", "map_unordered", "imap", "imap_unordered")},
            **{method: (Arg("func", 0, kind="callable"), Arg("args", 1, kind="args"), Arg("kwargs", 2, kind="kwargs"))
               for method in ("apply", "apply_async")},
        },
        context="fork-unless-windows",
    ),
    SpawnAPI(
        "tqdm.contrib.concurrent.process_map",
        ("tqdm.contrib.concurrent.process_map",),
        "`tqdm.contrib.concurrent.process_map`",
        kind="call",
        count=WorkerCount("max_workers", None),
        payload=(Arg("fn", 0, kind="callable"), Arg(None, 1, kind="args", rest=True)),
        # a ProcessPoolExecutor underneath: the function goes with every task, under fork too
        payload_with_tasks=True,
    ),
    SpawnAPI(
        "loky.get_reusable_executor",
        ("loky.get_reusable_executor", "loky.reusable_executor.get_reusable_executor", "loky.ProcessPoolExecutor",
         "loky.process_executor.ProcessPoolExecutor", "joblib.externals.loky.get_reusable_executor"),
        "loky executor",
        kind="object",
        start_methods=("submit", "map"),
        count=WorkerCount("max_workers", 0),
        payload=(Arg("initializer", None, kind="callable"), Arg("initargs", None, kind="args")),
        method_payload={"submit": (Arg("fn", 0, kind="callable"), Arg(None, 1, rest=True)),
                        "map": (Arg("fn", 0, kind="callable"), Arg(None, 1, kind="args", rest=True))},
        pickler=CLOUDPICKLE,
        reimports_main=False,
        context="spawn",
    ),
    SpawnAPI(
        "ray.util.multiprocessing.Pool",
        ("ray.util.multiprocessing.Pool", "ray.util.multiprocessing.pool.Pool"),
        "ray `Pool`",
        kind="call",
        count=WorkerCount("processes", 0),
        payload=(Arg("initializer", 1, kind="callable"), Arg("initargs", 2, kind="args")),
        method_payload=_POOL_METHODS,
        pickler=CLOUDPICKLE,
        reimports_main=False,
        context="spawn",
    ),
    SpawnAPI(
        "stable_baselines3.common.vec_env.SubprocVecEnv",
        # One process per environment factory, started when it is built, each factory shipped with cloudpickle
        # (lambdas and local functions travel).  Measured (stable-baselines3 2.9.2, gymnasium 1.4.0): built at
        # import time it fails on Linux too, where it takes forkserver ("bootstrapping phase" in the children),
        # and under spawn; `start_method="fork"` is the way out on Linux and macOS.
        ("stable_baselines3.common.vec_env.SubprocVecEnv",
         "stable_baselines3.common.vec_env.subproc_vec_env.SubprocVecEnv"),
        "`SubprocVecEnv`",
        kind="call",
        payload=(Arg("env_fns", 0, kind="args"),),
        pickler=CLOUDPICKLE,
        context="forkserver-unless-windows",
    ),
    SpawnAPI(
        "gymnasium.vector.AsyncVectorEnv",
        # Gymnasium's (and gym's) AsyncVectorEnv: a process per environment factory, started when it is built,
        # from multiprocessing's default context (`context=` names another), each factory shipped with
        # cloudpickle.  Measured (gymnasium 1.4.0): built at import time it runs under fork and fails under spawn
        # ("bootstrapping phase").
        ("gymnasium.vector.AsyncVectorEnv", "gymnasium.vector.async_vector_env.AsyncVectorEnv",
         "gym.vector.AsyncVectorEnv", "gym.vector.async_vector_env.AsyncVectorEnv"),
        "`AsyncVectorEnv`",
        kind="call",
        payload=(Arg("env_fns", 0, kind="args"),),
        pickler=CLOUDPICKLE,
    ),
    SpawnAPI(
        "ultralytics.YOLO",
        ("ultralytics.YOLO",),
        "`YOLO(...).train()`",
        kind="object",
        start_methods=("train", "val", "tune"),
        training=True,
    ),
)

#: Calls that return a namespace with the same process API as a module:
#: ``mp.get_context("spawn").Pool(2)`` is ``multiprocessing.Pool``.
CONTEXT_FACTORIES: Mapping[str, str] = {
    "multiprocessing.get_context": "multiprocessing",
    "torch.multiprocessing.get_context": "multiprocessing",
    "multiprocess.get_context": "multiprocess",
}

#: Keywords by which a worker API is given its start method or context (``DataLoader(multiprocessing_context=)``,
#: ``ProcessPoolExecutor(mp_context=)``, pebble's ``ProcessPool(context=)``, ``SubprocVecEnv(start_method=)``).
CONTEXT_KEYWORDS = frozenset({"multiprocessing_context", "mp_context", "context", "start_method"})

#: Qualified-name prefixes that are the same module under another name.
MODULE_ALIASES: Mapping[str, str] = {
    "multiprocessing.context.SpawnContext": "multiprocessing",
    "multiprocessing.context.ForkServerContext": "multiprocessing",
}

SET_START_METHOD = frozenset(
    {"multiprocessing.set_start_method", "torch.multiprocessing.set_start_method", "multiprocess.set_start_method"}
)
FREEZE_SUPPORT = frozenset(
    {"multiprocessing.freeze_support", "torch.multiprocessing.freeze_support", "multiprocess.freeze_support"}
)

#: Library classes whose instances hold an unpicklable handle from construction on
#: (torchvision's LSUN opens lmdb environments in ``__init__``).
EAGER_HANDLE_CLASSES: Mapping[str, str] = {
    "torchvision.datasets.LSUN": "an lmdb environment (torchvision `LSUN` opens it in `__init__`)",
    "torchvision.datasets.LSUNClass": "an lmdb environment (torchvision `LSUNClass` opens it in `__init__`)",
}

#: Readers whose result holds an open file when they are given ``backed=`` (anything but ``None``/``False``): a
#: backed AnnData keeps its HDF5 file open ("h5py objects cannot be pickled"; measured with anndata 0.12.19, and
#: an AnnData read into memory pickles; `anndata.read` is the name older releases gave `read_h5ad`).  scanpy's
#: readers are anndata's.
BACKED_READERS: Mapping[str, str] = {
    name: "a backed AnnData (`backed=` keeps its HDF5 file open)"
    for name in ("anndata.read_h5ad", "anndata.read", "anndata.io.read_h5ad", "scanpy.read", "scanpy.read_h5ad")
}


class Keeper(Value):
    """A constructor whose result keeps some of its arguments: they travel to workers wherever it goes.

    ``torchvision.transforms.Compose([...])`` keeps its list, ``ImageFolder(root, transform=t)`` keeps ``t``,
    ``Subset(ds, idx)`` keeps ``ds``.  Only arguments the library really stores are listed: ``ImageFolder``'s
    ``is_valid_file`` is used in ``__init__`` and dropped, so a lambda there never travels.
    """

    __slots__ = ("names", "keywords", "positions", "every", "transparent")

    def __init__(self, names: tuple[str, ...], keywords: tuple[str, ...] = (),
                 positions: tuple[tuple[int, str], ...] = (), every: bool = False, transparent: bool = False) -> None:
        self.names = names  # qualified names; one ending in "." covers every callable under that prefix
        #: the keywords of the arguments it keeps, each stored on the object under that name (``self.transform``)
        self.keywords = keywords
        #: the positions of the arguments it keeps, with the keyword each is (and the attribute it is stored as)
        self.positions = positions
        self.every = every  # every argument is kept
        #: a transform or a wrapper: what it keeps is said to be stored on the dataset that holds it
        self.transparent = transparent


_TRANSFORM_KEYWORDS = ("transform", "target_transform", "transforms")

KEEPERS: tuple[Keeper, ...] = (
    Keeper(("torchvision.transforms.",), every=True, transparent=True),
    # (`albu.Lambda(image=f, mask=g)` keeps `f` and `g` as attributes; `albu.Compose([...])` its transforms)
    Keeper(("albumentations.",), every=True, transparent=True),
    Keeper(("torch.utils.data.ConcatDataset", "torch.utils.data.ChainDataset", "torch.utils.data.Subset",
            "torch.utils.data.StackDataset", "torch.utils.data.dataset."),
           every=True, transparent=True),
    # (each split is a `Subset` of the dataset and its indices: the `generator=` that drew them is not kept, measured)
    Keeper(("torch.utils.data.random_split", "torch.utils.data.dataset.random_split"), keywords=("dataset",),
           positions=((0, "dataset"),), transparent=True),
    Keeper(("torchvision.datasets.ImageFolder", "torchvision.datasets.folder.ImageFolder"),
           keywords=(*_TRANSFORM_KEYWORDS, "loader"),
           positions=((1, "transform"), (2, "target_transform"), (3, "loader"))),
    Keeper(("torchvision.datasets.DatasetFolder", "torchvision.datasets.folder.DatasetFolder"),
           keywords=(*_TRANSFORM_KEYWORDS, "loader"),
           positions=((1, "loader"), (3, "transform"), (4, "target_transform"))),
    # (the base class: `VisionDataset.__init__(root, transforms=None, transform=None, target_transform=None)` keeps all
    # three, so `super().__init__(root, None, t)` stores `t` as `self.transform`; read in torchvision's source and
    # its typeshed stub: torchvision is not installed here)
    Keeper(("torchvision.datasets.VisionDataset", "torchvision.datasets.vision.VisionDataset"),
           keywords=_TRANSFORM_KEYWORDS, positions=((1, "transforms"), (2, "transform"), (3, "target_transform"))),
    Keeper(("torchvision.datasets.",), keywords=_TRANSFORM_KEYWORDS),
    # MONAI's transforms keep what they are given (`Lambdad(keys, func=f)` calls `f` in the worker), and its
    # datasets their `data` and `transform`, the first two arguments (measured, monai 1.6.1: a lambda in `Lambdad`
    # fails to pickle with the dataset, and so does a dataset given as another's `data`, as pathology pipelines give
    # a `CSVDataset` to a `PatchWSIDataset`).
    Keeper(("monai.transforms.",), every=True, transparent=True),
    # Gluon's batchify functions keep the functions they combine (`Tuple(Stack(), f)` keeps `(Stack(), f)` as
    # `_fn`: read in GluonCV's, GluonNLP's and MXNet 2's sources, not run), and go with every batch of a
    # `gluon.data.DataLoader` as its `batchify_fn`.
    Keeper(("gluoncv.data.batchify.", "gluonnlp.data.batchify.", "mxnet.gluon.data.batchify."), every=True,
           transparent=True),
    # (each also by the module that defines it, as tutorials write it: `monai.data.dataset.Dataset(data, transform)`)
    Keeper(tuple(f"monai.data.{module}{name}" for module in ("", "dataset.")
                 for name in ("Dataset", "CacheDataset", "PersistentDataset", "SmartCacheDataset", "LMDBDataset",
                              "ZipDataset")),
           keywords=("data", "transform"), positions=((0, "data"), (1, "transform"))),
    Keeper(("monai.data.PatchWSIDataset", "monai.data.wsi_datasets.PatchWSIDataset"),
           keywords=("data", "transform"), positions=((0, "data"), (3, "transform"))),
    Keeper(("monai.data.CSVDataset", "monai.data.dataset.CSVDataset"), keywords=("transform",),
           positions=((5, "transform"),)),
    # A `WebDataset` keeps the functions it is given as stages of its pipeline (measured, webdataset 0.2.111: a lambda
    # as `handler`, `nodesplitter`, `workersplitter`, `select_files` or `rename_files` fails "Can't pickle <lambda>";
    # `url_to_name` is not kept, and a module-level function pickles).  Its methods' stages: PIPELINE_METHODS.
    Keeper(("webdataset.WebDataset", "webdataset.compat.WebDataset"),
           keywords=("handler", "nodesplitter", "workersplitter", "select_files", "rename_files")),
    # A vector environment keeps the functions that make its environments (`self.env_fns = env_fns`, gym 0.26 and
    # gymnasium 1.4): measured, one in a process's state fails "Can't pickle local object" when a factory's local
    # function is among them.
    Keeper(("gym.vector.SyncVectorEnv", "gym.vector.sync_vector_env.SyncVectorEnv", "gymnasium.vector.SyncVectorEnv",
            "gymnasium.vector.sync_vector_env.SyncVectorEnv"), keywords=("env_fns",), positions=((0, "env_fns"),)),
)

#: Methods that give back the objects they are given, made ready for a device or for processes: a loader among
#: them still starts the same workers when iterated, with the same payload.  Measured with accelerate 1.16:
#: `Accelerator.prepare(loader)` returns a `DataLoaderShard` whose iteration in an unguarded script crashes under
#: spawn ("DataLoader worker ... exited unexpectedly"), and which, iterated once per epoch for 3 epochs with 2
#: workers, imports the script 7 times.  Several arguments come back as a tuple, in order.
PREPARING_METHODS: Mapping[str, frozenset[str]] = {
    "accelerate.Accelerator": frozenset({"prepare", "prepare_data_loader"}),
    "accelerate.accelerator.Accelerator": frozenset({"prepare", "prepare_data_loader"}),
}

#: Library base classes whose framework calls hooks of the instance after constructing it and before it asks the
#: instance for its loaders: what the hooks store on ``self`` is on the instance when ``train_dataloader()`` builds
#: a ``DataLoader`` from it.  Lightning runs ``setup(stage)`` of a ``LightningDataModule`` (and of a
#: ``LightningModule``) in ``Trainer.fit/validate/test/predict`` before the ``*_dataloader()`` hooks (its
#: documented order; Lightning is not installed here to run it).
SETUP_HOOKS: Mapping[str, frozenset[str]] = {
    name: frozenset({"setup"}) for prefix in ("lightning", "lightning.pytorch", "pytorch_lightning")
    for name in (f"{prefix}.LightningDataModule", f"{prefix}.LightningModule",
                 f"{prefix}.core.LightningDataModule", f"{prefix}.core.LightningModule",
                 f"{prefix}.core.datamodule.LightningDataModule", f"{prefix}.core.module.LightningModule")
}

#: Library functions that iterate the iterable they are given (a loader's workers start there): MONAI's ``first``
#: (``for i in iterable: return i``), which its tutorials call on a loader at the top level (``check_data =
#: first(train_loader)``).
ITERATING_CALLS = frozenset({"monai.utils.first", "monai.utils.misc.first"})

#: The loader hooks a framework's trainer calls on the instances it is given, by the trainer's API and method: what
#: ``trainer.fit(model, datamodule)`` hands Lightning, Lightning asks for its loaders (``train_dataloader()`` and
#: ``val_dataloader()`` of the data module, or of the model when it is given alone) and iterates them with their
#: workers.  The instances are found where the call is made, with what their constructors were given there.
LOADER_HOOKS: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "lightning.Trainer": {"fit": ("train_dataloader", "val_dataloader"), "validate": ("val_dataloader",),
                          "test": ("test_dataloader",), "predict": ("predict_dataloader",)},
}
#: The keywords of those methods that give the loaders, or a data module that makes them (the model, their first
#: argument, makes its own only when none of these nor a later positional argument is given).
LOADER_HOOK_KEYWORDS = frozenset({"train_dataloaders", "val_dataloaders", "dataloaders", "datamodule"})

#: Dataset pipelines built by method chains (``wds.WebDataset(urls).map(fn).batched(n, collation_fn=c)``): each
#: stage keeps the arguments of the method that added it, and the whole pipeline goes to the loader's workers.
PIPELINE_ROOTS = frozenset({"webdataset.WebDataset", "webdataset.compat.WebDataset", "webdataset.DataPipeline",
                            "webdataset.pipeline.DataPipeline"})
PIPELINE_METHODS = frozenset({"map", "select", "batched", "decode", "map_dict", "map_tuple", "compose", "to_tuple",
                              "shuffle", "with_epoch", "with_length", "unbatched", "rename", "listed", "then"})

#: Keywords by which a dataset class this analysis cannot see (imported from elsewhere) is given callables
#: that it keeps: by convention every ``Dataset`` stores its ``transform``.
DATASET_TRANSFORM_KEYWORDS = frozenset(_TRANSFORM_KEYWORDS)


#: By convention a library's ``Compose`` keeps the transforms it is given, to apply them when called: torchvision,
#: albumentations, monai, torchio, torchsample, torch_geometric and the copies of torchvision's in research code
#: all store the list (``self.transforms = transforms``), so a lambda in it travels with the dataset that keeps it.
_COMPOSE = Keeper(("Compose",), every=True, transparent=True)


def keeper(name: str | None) -> Keeper | None:
    """The :class:`Keeper` entry for a qualified name (an exact name before the longest prefix), or by
    convention a ``Compose``'s."""
    if not name:
        return None
    best, best_length = None, -1
    for entry in KEEPERS:
        for candidate in entry.names:
            if name == candidate:
                return entry
            if candidate.endswith(".") and name.startswith(candidate) and len(candidate) > best_length:
                best, best_length = entry, len(candidate)
    if best is None and name.rsplit(".", 1)[-1] == "Compose":
        return _COMPOSE
    return best


#: Decorators that, put on a class, replace it with a function or wrapper object: pickle then finds that object
#: under the class's name and refuses the instances ("it's not the same object as __main__.C"; measured).
#: Matched written as ``@torch.no_grad()`` or as ``@torch.no_grad``.
CLASS_REPLACING_DECORATORS = frozenset({
    "torch.no_grad", "torch.enable_grad", "torch.inference_mode", "torch.autograd.no_grad",
    "torch.autograd.enable_grad", "torch.autograd.inference_mode", "torch.autograd.grad_mode.no_grad",
    "torch.autograd.grad_mode.enable_grad", "torch.autograd.grad_mode.inference_mode",
    "functools.lru_cache", "functools.cache",
})


#: Heavy work that each spawned worker repeats when it re-imports a module that does it at import time.
HEAVY_CALLS: Mapping[str, str] = {name: "" for name in (
    "torch.load", "torch.hub.load", "torch.jit.load", "torch.hub.load_state_dict_from_url",
    "numpy.load", "numpy.loadtxt", "numpy.genfromtxt", "numpy.fromfile",
    "datasets.load_dataset", "datasets.load_from_disk",
    "joblib.load", "pickle.load", "safetensors.torch.load_file", "safetensors.numpy.load_file",
    "transformers.pipeline", "sentence_transformers.SentenceTransformer", "timm.create_model",
    "tensorflow.keras.models.load_model", "keras.models.load_model", "keras.saving.load_model",
    "scipy.io.loadmat", "spacy.load", "open_clip.create_model_and_transforms", "whisper.load_model",
    # word vectors: each reads (and the first time downloads) hundreds of megabytes
    "torchtext.vocab.GloVe", "torchtext.vocab.FastText", "torchtext.vocab.CharNGram", "torchtext.vocab.Vectors",
    "gensim.downloader.load", "gensim.models.KeyedVectors.load", "gensim.models.KeyedVectors.load_word2vec_format",
    "gensim.models.Word2Vec.load", "fasttext.load_model",
    # networks a metric or a face tool builds from weights on disk: LPIPS (a VGG or AlexNet and its own layers),
    # dlib's landmark, face-recognition and CNN detector models (tens to a hundred megabytes each)
    "lpips.LPIPS", "dlib.shape_predictor", "dlib.face_recognition_model_v1", "dlib.cnn_face_detection_model_v1",
)} | {
    # Not heavy but worse: a worker that re-joins the process group at import blocks in the rendezvous.
    "torch.distributed.init_process_group": " (joining the process group)",
    "deepspeed.init_distributed": " (joining the process group)",
} | {
    # Not heavy either: each worker makes another writer, with an event file (and folder) of its own, or starts
    # another run (measured: tests/fixtures/wsp103_summary_writer_at_import.py, wsp103_wandb_init_at_import.py,
    # wsp103_mlflow_start_run_at_import.py).
    name: " (a new TensorBoard event file)" for name in (
        "torch.utils.tensorboard.SummaryWriter", "torch.utils.tensorboard.writer.SummaryWriter",
        "tensorboardX.SummaryWriter", "tensorboardX.writer.SummaryWriter")
} | {
    "wandb.init": " (a new W&B run)",
    "mlflow.start_run": " (a new MLflow run)",
} | {
    # each worker fetches the file again, or at least asks the server whether its copy is current (measured with
    # a `file://` URL: tests/fixtures/wsp103_download_at_import.py)
    name: " (a download)" for name in (
        "urllib.request.urlretrieve", "gdown.download", "gdown.download_folder", "gdown.cached_download",
        "wget.download", "torch.hub.download_url_to_file", "huggingface_hub.hf_hub_download",
        "huggingface_hub.snapshot_download", "torchvision.datasets.utils.download_url",
        "torchvision.datasets.utils.download_and_extract_archive",
        "torchvision.datasets.utils.download_file_from_google_drive")
}
HEAVY_PREFIXES = ("pandas.read_", "polars.read_", "pyarrow.parquet.read_")
#: Methods heavy whatever their receiver: Hugging Face's `from_pretrained`, and Lightning's `load_from_checkpoint`, a
#: classmethod of a project's `LightningModule` (measured, lightning 2.6.6: at import in a script whose loader has two
#: workers, spawn loads the checkpoint three times, fork once)
HEAVY_METHODS = frozenset({"from_pretrained", "load_from_checkpoint"})
#: A keyword's value in :data:`HEAVY_WITH_KEYWORD` that matches anything but the constant None.
GIVEN = Ellipsis
#: Calls that are heavy only with a keyword set to a constant: (qualified name or prefix ending in ".", keyword,
#: value).  ``torchvision.datasets.MNIST(root, download=True)`` checks or fetches the files on every import;
#: ``h5py.File(path, driver="core")`` reads the whole file into memory.
HEAVY_WITH_KEYWORD: tuple[tuple[str, str, object], ...] = (
    ("torchvision.datasets.", "download", True),
    ("h5py.File", "driver", "core"),
    # a model-zoo builder given its pretrained weights reads (the first time downloads) them: tens to hundreds of MB
    ("torchvision.models.", "pretrained", True),
    ("timm.create_model", "pretrained", True),  # (read in timm's source: `load_pretrained` fetches from the Hub)
    ("torchvision.models.", "weights", GIVEN),
)


#: Readers of one image, sound or scan: cheap once, heavy in a loop, where a dataset's ``__init__`` or a script's
#: top level reads every file of a folder into memory (``for p in paths: self.images.append(cv2.imread(p))``,
#: ``[Image.open(p).convert("RGB") for p in files]``).  Only a call that runs once per iteration of a loop or
#: comprehension of its own function counts (:meth:`.analysis.index.ModuleIndex.calls_in_loops`).
HEAVY_IN_LOOP = frozenset({
    "cv2.imread", "PIL.Image.open", "imageio.imread", "imageio.v2.imread", "imageio.v3.imread", "skimage.io.imread",
    "matplotlib.pyplot.imread", "matplotlib.image.imread", "torchvision.io.read_image", "tifffile.imread",
    "nibabel.load", "SimpleITK.ReadImage", "pydicom.dcmread", "pydicom.read_file", "librosa.load", "soundfile.read",
    "torchaudio.load", "scipy.io.wavfile.read",
})


def same_constant(one: object, other: object) -> bool:
    """Whether two constants are the same: equal, and of one type (``True == 1`` and ``0 == 0.0`` are not)."""
    return type(one) is type(other) and one == other


def heavy_call(name: str | None, keywords: Iterable[tuple[str | None, Any]] = ()) -> str | None:
    """Why a call of *name* is heavy (a suffix for the message, possibly empty), or None.

    *keywords*: (keyword, constant value, or :data:`GIVEN` for a value that is not a constant) of the call, for
    the keyword-gated entries.
    """
    if not name:
        return None
    if name in HEAVY_CALLS:
        return HEAVY_CALLS[name]
    if name.startswith(HEAVY_PREFIXES):
        return ""
    for pattern, keyword, value in HEAVY_WITH_KEYWORD:
        if name == pattern or (pattern.endswith(".") and name.startswith(pattern)):
            if value is GIVEN and any(k == keyword and v is not None for k, v in keywords):
                return f" (with `{keyword}=`)"
            if any(k == keyword and same_constant(v, value) for k, v in keywords):
                return f" (with `{keyword}={value!r}`)"
    return None


#: the registries alive, by the representation of what they are made of (see :meth:`Registry.of`)
_REGISTRIES: "weakref.WeakValueDictionary[str, Registry]" = weakref.WeakValueDictionary()


class Registry:
    """Lookup tables built once from a sequence of :class:`SpawnAPI` (the sinks) and the calls whose results cannot
    be pickled (sources: :data:`UNPICKLABLE_CALLS` and the configuration's ``unpicklable``)."""

    def __init__(self, apis: Iterable[SpawnAPI], unpicklable: Optional[Mapping[str, Unpicklable]] = None) -> None:
        self.apis = tuple(apis)
        self.unpicklable: Mapping[str, Unpicklable] = UNPICKLABLE_CALLS if unpicklable is None else unpicklable
        self.by_name: dict[str, SpawnAPI] = {}
        self.by_key: dict[str, SpawnAPI] = {api.key: api for api in self.apis}
        self.by_method: dict[str, list[SpawnAPI]] = {}
        for api in self.apis:
            for name in api.names:
                self.by_name[name] = api
            for method in api.method_names:
                self.by_method.setdefault(method, []).append(api)

    @classmethod
    def of(cls, apis: Iterable[SpawnAPI], unpicklable: Optional[Mapping[str, Unpicklable]] = None) -> "Registry":
        """The registry of *apis* and *unpicklable*: the same object for equal ones while one is alive.

        The analysis keeps facts under the registry they were found with and compares registries by identity
        (a lookup per fact asked for, thousands per file, must not hash or compare a hundred APIs), so equal
        settings must share one: every directory the language server reads a configuration for, every buffer
        it checks with the defaults, every parallel worker's copy of the run's settings."""
        apis = tuple(apis)
        unpicklable = UNPICKLABLE_CALLS if unpicklable is None else unpicklable
        # (a representation, as a key: a SpawnAPI holds dicts, so it has no hash; the repr of equal values is
        # equal, and the lookup confirms equality, so a repr that two different values shared would cost a
        # registry, not a wrong answer)
        key = repr((apis, sorted(unpicklable.items())))
        found = _REGISTRIES.get(key)
        if found is None or found.apis != apis or found.unpicklable != unpicklable:
            found = _REGISTRIES[key] = cls(apis, unpicklable)
        return found

    def __reduce__(self) -> tuple:
        return (Registry.of, (self.apis, self.unpicklable))

    def tokens(self) -> frozenset[str]:
        """Identifiers whose absence from a file's text proves it uses none of these APIs."""
        tokens = set()
        for api in self.apis:
            tokens.update(name.rsplit(".", 1)[-1] for name in api.names)
            if api.required_keyword:
                tokens.add(api.required_keyword)
        return frozenset(tokens)


_CONFIG_KEYS = {"name", "label", "kind", "start-methods", "workers", "workers-position", "no-workers",
                "payload", "pickler", "method-payload", "context", "threads"}


def from_config(entries: Iterable[Mapping[str, Any]], where: str = "spawn-api") -> tuple[SpawnAPI, ...]:
    """Registry entries from configuration tables; raises ValueError naming the bad key."""
    if isinstance(entries, (str, bytes, Mapping)) or not isinstance(entries, Iterable):
        raise ValueError(f"{where}: expected an array of tables, e.g. [{{name = \"mylib.run\", payload = [\"fn:0\"]}}]")
    apis = []
    for index, entry in enumerate(entries):
        place = f"{where}[{index}]"
        if not isinstance(entry, Mapping):
            raise ValueError(f"{place}: expected a table")
        unknown = set(entry) - _CONFIG_KEYS
        if unknown:
            raise ValueError(f"{place}: unknown key {sorted(unknown)[0]!r}")
        names = entry.get("name")
        if isinstance(names, str):
            names = [names]
        if not names or not all(isinstance(n, str) and n for n in names):
            raise ValueError(f"{place}.name: expected a qualified name or a list of them")
        kind = entry.get("kind", "call")
        if kind not in ("call", "object"):
            raise ValueError(f"{place}.kind: expected 'call' or 'object', got {kind!r}")
        pickler = entry.get("pickler", PICKLE)
        if pickler not in (PICKLE, DILL, CLOUDPICKLE):
            raise ValueError(f"{place}.pickler: expected 'pickle', 'dill' or 'cloudpickle', got {pickler!r}")
        context = entry.get("context", "default")
        if context not in CONTEXTS:
            raise ValueError(f"{place}.context: expected one of {', '.join(map(repr, CONTEXTS))}, got {context!r}")
        for key in ("payload", "start-methods", "no-workers"):
            if key in entry and not isinstance(entry[key], list):
                raise ValueError(f"{place}.{key}: expected an array, got {entry[key]!r}")
        if not all(isinstance(method, str) for method in entry.get("start-methods", [])):
            raise ValueError(f"{place}.start-methods: expected method names, got {entry['start-methods']!r}")
        if "method-payload" in entry and not (
            isinstance(entry["method-payload"], Mapping)
            and all(isinstance(specs, list) for specs in entry["method-payload"].values())
        ):
            raise ValueError(f"{place}.method-payload: expected a table of method = [arguments]")
        for key, kinds in (("workers", str), ("label", str), ("workers-position", int), ("threads", str)):
            if key in entry and (not isinstance(entry[key], kinds) or isinstance(entry[key], bool)):
                raise ValueError(f"{place}.{key}: expected {'an integer' if kinds is int else 'a string'}, "
                                 f"got {entry[key]!r}")
        count = None
        if "workers" in entry:
            no_workers = tuple(entry.get("no-workers", [0]))
            count = WorkerCount(str(entry["workers"]), entry.get("workers-position"), no_workers=no_workers)
        if "threads" in entry and (count is None or 0 not in count.no_workers):
            raise ValueError(f"{place}.threads: needs `workers` with 0 among its `no-workers` (what the threads "
                             "keyword's True stands for)")
        payload = tuple(_arg_from_config(spec, f"{place}.payload") for spec in entry.get("payload", []))
        method_payload = {
            str(method): tuple(_arg_from_config(spec, f"{place}.method-payload.{method}") for spec in specs)
            for method, specs in dict(entry.get("method-payload", {})).items()
        }
        starts = tuple(entry.get("start-methods", []))
        if kind == "object" and not starts:
            raise ValueError(f"{place}.start-methods: an 'object' API needs the methods that start its workers")
        apis.append(
            SpawnAPI(
                key=names[0], names=tuple(names), label=f"`{entry.get('label', names[0])}`", kind=kind,
                start_methods=starts, count=count, payload=payload, method_payload=method_payload, pickler=pickler,
                context=context, threads=entry.get("threads"),
            )
        )
    return tuple(apis)


def unpicklable_from_config(entries: Any, where: str = "unpicklable") -> tuple[tuple[str, str], ...]:
    """(qualified name, what it makes) from ``unpicklable`` entries: a name, or a table ``{name, what}``; raises
    ValueError naming the bad entry."""
    if isinstance(entries, (str, bytes, Mapping)) or not isinstance(entries, Iterable):
        raise ValueError(f"{where}: expected an array, e.g. [\"mylab.db.connect\"] or "
                         f"[{{name = \"mylab.db.connect\", what = \"a database connection\"}}]")
    out = []
    for index, entry in enumerate(entries):
        place = f"{where}[{index}]"
        if isinstance(entry, str):
            entry = {"name": entry}
        if not isinstance(entry, Mapping):
            raise ValueError(f"{place}: expected a qualified name or a table")
        unknown = set(entry) - {"name", "what"}
        if unknown:
            raise ValueError(f"{place}: unknown key {sorted(unknown)[0]!r}")
        name, what = entry.get("name"), entry.get("what")
        if not isinstance(name, str) or not name.strip() or " " in name.strip():
            raise ValueError(f"{place}.name: expected a qualified name, got {name!r}")
        if what is not None and (not isinstance(what, str) or not what.strip()):
            raise ValueError(f"{place}.what: expected a description such as 'a database connection', got {what!r}")
        out.append((name.strip(), what.strip() if what else f"the result of `{name.strip()}(...)`"))
    return tuple(out)


def _arg_from_config(spec: Any, place: str) -> Arg:
    # "fn" (a keyword), "0" (a position), or "fn:0" (both); callables by default.
    if not isinstance(spec, (str, int)):
        raise ValueError(f"{place}: expected 'keyword', 'position' or 'keyword:position', got {spec!r}")
    text = str(spec)
    keyword, _, position = text.partition(":")
    if keyword.isdigit() and not position:
        return Arg(None, int(keyword), kind="callable")
    if position and not position.isdigit():
        raise ValueError(f"{place}: bad position in {text!r}")
    return Arg(keyword or None, int(position) if position else None, kind="callable")


class Unpicklable(Value):
    """A value that cannot travel to a worker. ``dill_ok``: dill re-creates it (measured)."""

    __slots__ = ("what", "dill_ok")

    def __init__(self, what: str, dill_ok: bool) -> None:
        self.what = what
        self.dill_ok = dill_ok


#: Constructors of values the standard pickler refuses.  Not sockets: multiprocessing's
#: ForkingPickler ships them to workers as duplicated handles (measured).
UNPICKLABLE_CALLS: Mapping[str, Unpicklable] = {
    "builtins.open": Unpicklable("an open file", True),
    "io.open": Unpicklable("an open file", True),
    "gzip.open": Unpicklable("an open gzip file", False),
    "bz2.open": Unpicklable("an open bz2 file", False),
    "lzma.open": Unpicklable("an open lzma file", False),
    "tarfile.open": Unpicklable("an open tar file", False),
    "zipfile.ZipFile": Unpicklable("an open zip file", False),
    "threading.Lock": Unpicklable("a `threading.Lock`", True),
    "threading.RLock": Unpicklable("a `threading.RLock`", True),
    "threading.Condition": Unpicklable("a `threading.Condition`", True),
    "threading.Event": Unpicklable("a `threading.Event`", True),
    "threading.Semaphore": Unpicklable("a `threading.Semaphore`", True),
    "threading.Thread": Unpicklable("a `threading.Thread`", False),
    "sqlite3.connect": Unpicklable("an sqlite3 connection", False),
    "lmdb.open": Unpicklable("an lmdb environment", False),
    "lmdb.Environment": Unpicklable("an lmdb environment", False),
    "h5py.File": Unpicklable("an h5py file", False),
    # (measured: opencv-python-headless 5.1.0, av 18.1.0, soundfile 0.14.0, tables 3.11.1, pandas 3.1.1; pickle and
    # dill both refuse each, except an open wave file, which dill re-opens)
    "cv2.VideoCapture": Unpicklable("an OpenCV `VideoCapture`", False),
    "cv2.VideoWriter": Unpicklable("an OpenCV `VideoWriter`", False),
    "av.open": Unpicklable("a PyAV container", False),
    "soundfile.SoundFile": Unpicklable("an open `soundfile.SoundFile`", False),
    "wave.open": Unpicklable("an open wave file", True),
    "tables.open_file": Unpicklable("a PyTables file", False),
    "pandas.HDFStore": Unpicklable("a pandas `HDFStore` (a PyTables file)", False),
    "torch.utils.tensorboard.SummaryWriter": Unpicklable("a `SummaryWriter`", False),
    "tensorboardX.SummaryWriter": Unpicklable("a `SummaryWriter`", False),
    "psycopg2.connect": Unpicklable("a database connection", False),
    "pymysql.connect": Unpicklable("a database connection", False),
    "sqlalchemy.create_engine": Unpicklable("a database engine", False),
    "redis.Redis": Unpicklable("a Redis client", False),
    # Cloud and database clients (measured: boto3 1.44.18, pymongo 4.20.1, google-cloud-storage 3.17.1, netCDF4
    # 1.7.5, pickle and dill, no network): a boto3 client or resource "Can't pickle <class 'botocore.client.S3'>",
    # and dill "cannot pickle 'SSLContext' object"; a boto3 Session and a MongoClient ("cannot pickle
    # '_thread.lock'") only dill pickles; google-cloud's clients refuse on purpose ("Pickling client objects is
    # explicitly not supported"); "netCDF4.Dataset is not picklable".  (A faiss index pickles: not listed.)
    "boto3.client": Unpicklable("a boto3 client", False),
    "boto3.resource": Unpicklable("a boto3 resource", False),
    "boto3.Session": Unpicklable("a boto3 `Session`", True),
    "boto3.session.Session": Unpicklable("a boto3 `Session`", True),
    "pymongo.MongoClient": Unpicklable("a `MongoClient` (it holds locks)", True),
    "pymongo.mongo_client.MongoClient": Unpicklable("a `MongoClient` (it holds locks)", True),
    "google.cloud.storage.Client": Unpicklable("a Google Cloud Storage client", False),
    "google.cloud.storage.client.Client": Unpicklable("a Google Cloud Storage client", False),
    "netCDF4.Dataset": Unpicklable("a netCDF4 `Dataset` (an open file)", False),
    # (measured the same way: duckdb 2.0.1 "cannot pickle 'DuckDBPyConnection' object"; rasterio 1.4.4 "self._hds
    # cannot be converted to a Python object for pickling"; openslide-python 1.4.7 on a tiled TIFF and decord
    # 0.6.0 on an mp4, "ctypes objects containing pointers cannot be pickled"; pickle and dill alike.
    # `openslide.open_slide` gives an `OpenSlide` for a whole-slide image (its documentation; what pathology
    # pipelines open it for) and an `ImageSlide`, which pickles, for a plain image: listed as the former.)
    "duckdb.connect": Unpicklable("a DuckDB connection", False),
    "rasterio.open": Unpicklable("an open rasterio dataset", False),
    "openslide.OpenSlide": Unpicklable("an `OpenSlide` slide", False),
    "openslide.open_slide": Unpicklable("an `OpenSlide` slide", False),
    "decord.VideoReader": Unpicklable("a decord `VideoReader`", False),
    # (measured, safetensors 0.8.0: "cannot pickle 'builtins.safe_open' object", pickle and dill alike)
    "safetensors.safe_open": Unpicklable("a safetensors `safe_open` handle", False),
    # TypeError: cannot pickle 'SSLContext' object, under fork too when pickled (measured: pickle, dill)
    "ssl.create_default_context": Unpicklable("an `ssl.SSLContext`", False),
    "ssl.SSLContext": Unpicklable("an `ssl.SSLContext`", False),
    "http.client.HTTPSConnection": Unpicklable("an HTTPS connection (it holds an `ssl.SSLContext`)", False),
    "urllib3.PoolManager": Unpicklable("a `urllib3.PoolManager` (it holds a lock)", True),
    # HTTP and API clients on httpx (measured: httpx 0.29.0, openai 3.63.0, anthropic 2.17.0): pickle refuses
    # them ("cannot pickle '_thread.RLock' object"), dill too ("cannot pickle 'SSLContext' object").  (A
    # `requests.Session` pickles: not listed.)
    **{name: Unpicklable(what, False) for name, what in (
        ("httpx.Client", "an httpx `Client` (it holds a lock and an SSL context)"),
        ("httpx.AsyncClient", "an httpx `AsyncClient` (it holds a lock and an SSL context)"),
        ("openai.OpenAI", "an OpenAI client (an httpx client: a lock and an SSL context)"),
        ("openai.AsyncOpenAI", "an OpenAI client (an httpx client: a lock and an SSL context)"),
        ("openai.AzureOpenAI", "an OpenAI client (an httpx client: a lock and an SSL context)"),
        ("openai.AsyncAzureOpenAI", "an OpenAI client (an httpx client: a lock and an SSL context)"),
        ("anthropic.Anthropic", "an Anthropic client (an httpx client: a lock and an SSL context)"),
        ("anthropic.AsyncAnthropic", "an Anthropic client (an httpx client: a lock and an SSL context)"))},
    # Handlers hold an RLock: "cannot pickle '_thread.RLock' object"; dill pickles them (measured).  Loggers
    # from `getLogger` pickle by name (3.7+), whatever handlers they have: not listed.
    "logging.FileHandler": Unpicklable("a logging handler (it holds a lock)", True),
    "logging.StreamHandler": Unpicklable("a logging handler (it holds a lock)", True),
    "logging.handlers.RotatingFileHandler": Unpicklable("a logging handler (it holds a lock)", True),
    "logging.handlers.TimedRotatingFileHandler": Unpicklable("a logging handler (it holds a lock)", True),
    "logging.handlers.WatchedFileHandler": Unpicklable("a logging handler (it holds a lock)", True),
    "threading.local": Unpicklable("a `threading.local`", False),
    # Measured (pickle; dill where noted): "cannot pickle '_thread.lock'", "'_queue.SimpleQueue'"; a Manager's
    # authentication key "is disallowed for security reasons" (its proxies, `Manager().dict()`, pickle fine).
    "queue.Queue": Unpicklable("a `queue.Queue` (it holds a lock)", True),
    "queue.LifoQueue": Unpicklable("a `queue.LifoQueue` (it holds a lock)", True),
    "queue.PriorityQueue": Unpicklable("a `queue.PriorityQueue` (it holds a lock)", True),
    "queue.SimpleQueue": Unpicklable("a `queue.SimpleQueue`", False),
    "logging.handlers.QueueListener": Unpicklable("a logging `QueueListener` (it holds a lock and a thread)", False),
    "logging.handlers.QueueHandler": Unpicklable("a logging handler (it holds a lock)", True),
    "concurrent.futures.ThreadPoolExecutor": Unpicklable("a `ThreadPoolExecutor`", False),
    "concurrent.futures.thread.ThreadPoolExecutor": Unpicklable("a `ThreadPoolExecutor`", False),
    "multiprocessing.Manager": Unpicklable("a `multiprocessing.Manager` (its authentication key cannot be pickled)",
                                           False),
    "torch.multiprocessing.Manager": Unpicklable(
        "a `multiprocessing.Manager` (its authentication key cannot be pickled)", False),
    "multiprocessing.managers.SyncManager": Unpicklable(
        "a `multiprocessing.Manager` (its authentication key cannot be pickled)", False),
    "mmap.mmap": Unpicklable("an `mmap.mmap`", False),
    "importlib.import_module": Unpicklable("a module object", True),
    # (measured, rich 15: its console and progress display hold an RLock; dill refuses them too)
    "rich.console.Console": Unpicklable("a rich `Console` (it holds a lock)", False),
    "rich.progress.Progress": Unpicklable("a rich `Progress` display (it holds a lock)", False),
    # (measured, opencv-python-headless 5.1.0: OpenCV's algorithm objects refuse pickle and dill alike)
    **{f"cv2.{name}": Unpicklable(f"an OpenCV `{made}` object", False)
       for name, made in (("createCLAHE", "CLAHE"), ("SIFT_create", "SIFT"), ("ORB_create", "ORB"),
                          ("FastFeatureDetector_create", "FastFeatureDetector"), ("BFMatcher", "BFMatcher"),
                          ("BFMatcher_create", "BFMatcher"), ("FlannBasedMatcher", "FlannBasedMatcher"),
                          ("createBackgroundSubtractorMOG2", "BackgroundSubtractorMOG2"),
                          ("createBackgroundSubtractorKNN", "BackgroundSubtractorKNN"))},
    # (measured, torch 2.13.0, dill 0.4.1: a scripted or traced module, one `torch.jit.load` gives, "Tried to serialize
    # object __torch__.T which does not have a __getstate__ method defined!"; a scripted function "ScriptFunction
    # cannot be pickled"; pickle and dill alike)
    "torch.jit.script": Unpicklable("a TorchScript module or function (`torch.jit.script`)", False),
    "torch.jit.trace": Unpicklable("a traced TorchScript module (`torch.jit.trace`)", False),
    "torch.jit.trace_module": Unpicklable("a traced TorchScript module (`torch.jit.trace_module`)", False),
    "torch.jit.load": Unpicklable("a TorchScript module (`torch.jit.load`)", False),
    # (measured: iterators over a folder are generators, or `os.scandir`'s iterator; pickle and dill refuse them)
    "os.walk": Unpicklable("a generator (`os.walk`)", False),
    "glob.iglob": Unpicklable("a generator (`glob.iglob`)", False),
    "os.scandir": Unpicklable("an `os.scandir` iterator", False),
}
#: A tqdm progress bar (measured: it keeps its output stream, which pickle refuses and dill ships; one made with
#: ``disable=True`` keeps none and pickles).
PROGRESS_BAR = Unpicklable("a `tqdm` progress bar (it holds its output stream)", True)
#: The thread-side objects of a program that runs with threads or processes as it is told: what one branch makes
#: where the other makes the multiprocessing one (``queue.Queue()`` / ``multiprocessing.Queue()``).
THREAD_ONLY = frozenset(UNPICKLABLE_CALLS[name] for name in (
    "threading.Lock", "threading.RLock", "threading.Condition", "threading.Event", "threading.Semaphore",
    "queue.Queue", "queue.LifoQueue", "queue.PriorityQueue", "queue.SimpleQueue"))
#: Methods of library objects whose result cannot be pickled: (the class, the method) -> what it is.
#: (measured: `Path.iterdir()`, `.glob()` and `.rglob()` return generators; pickle and dill refuse them)
UNPICKLABLE_METHODS: Mapping[tuple[str, str], Unpicklable] = {
    ("pathlib.Path", method): Unpicklable(f"a generator (`Path.{method}()`)", False)
    for method in ("iterdir", "glob", "rglob")
}
#: What a resource hands out that holds it open: (the resource, the methods that give it, whether a key gives it
#: too) -> what it is.  ``hf = h5py.File(p); self.data = hf["data"]`` keeps the file (measured, h5py 3, pickle and
#: dill: "h5py objects cannot be pickled" for a dataset, a group and `.get()`'s; a slice, `hf["data"][:]`, is an
#: array and pickles); an lmdb transaction ("cannot pickle 'Transaction' object") and an sqlite3 cursor likewise.
DERIVED_RESOURCES: Mapping[Unpicklable, tuple[frozenset, bool, Unpicklable]] = {
    UNPICKLABLE_CALLS["h5py.File"]: (
        frozenset({"get", "require_dataset", "create_dataset", "require_group", "create_group"}), True,
        Unpicklable("an h5py dataset or group (it keeps its file open)", False)),
    UNPICKLABLE_CALLS["lmdb.open"]: (frozenset({"begin"}), False, Unpicklable("an lmdb transaction", False)),
    UNPICKLABLE_CALLS["sqlite3.connect"]: (frozenset({"cursor", "execute"}), False,
                                           Unpicklable("an sqlite3 cursor", False)),
}
#: Module attributes that cannot be pickled (measured: pickle refuses the standard streams; dill pickles them as
#: references to the child's own).
UNPICKLABLE_GLOBALS: Mapping[str, Unpicklable] = {
    "sys.stdout": Unpicklable("`sys.stdout`", True),
    "sys.stderr": Unpicklable("`sys.stderr`", True),
}
MODULE_OBJECT = Unpicklable("a module object", True)
#: Values that pickle with the plain pickler but not through a torch worker: torch's reductions share the
#: generator's state tensor, and spawned DataLoader workers die rebuilding it ("unable to resize file
#: <filename not specified>", then "DataLoader worker exited unexpectedly"); fine under fork (measured).
TORCH_SHARED_STATE: Mapping[str, Unpicklable] = {
    "torch.Generator": Unpicklable("a `torch.Generator` (spawned workers cannot rebuild its shared state)", True),
}
GENERATOR = Unpicklable("a generator", False)
#: Resources whose object pickles once closed (measured: a PyTables ``File`` after ``close()``; not an h5py file,
#: an lmdb environment, an sqlite3 connection, a zip file or ``open()``'s, closed or not): ``self.f = open_file(p)``
#: read in ``__init__`` and closed there before any worker sees the dataset.
PICKLES_CLOSED = frozenset({UNPICKLABLE_CALLS["tables.open_file"]})

#: multiprocessing's semaphore-based objects: they reach a child only by inheritance (Process args,
#: Pool initargs), never with a pool task (measured: "Lock objects should only be shared between
#: processes through inheritance", under fork too).
MP_SYNC_PRIMITIVES = frozenset(
    f"multiprocessing.{name}" for name in ("Lock", "RLock", "Semaphore", "BoundedSemaphore", "Condition", "Event",
                                           "Barrier")
)

#: APIs whose start drops the arguments it was given (``Process.start()`` does ``del self._args``), so a lock
#: created inline in them is destroyed while the spawned child is still starting (measured: the child dies
#: in SemLock._rebuild).  A Pool or executor keeps its ``initargs`` for the workers it may start later:
#: an inline lock there is fine (measured: the tqdm idiom ``Pool(initargs=(RLock(),), ...)`` works under spawn).
DROPS_ARGS_AT_START = frozenset({"multiprocessing.Process", "multiprocess.Process"})


#: Prefixes under which every capitalised name is one the analysis knows (transforms, torchvision datasets).
KNOWN_PREFIXES = tuple(name for entry in KEEPERS for name in entry.names if name.endswith("."))


@lru_cache(maxsize=1)
def known_names() -> frozenset[str]:
    """Every qualified name some table of this module mentions: what a star import may be resolved to."""
    names = {name for api in BUILTIN_APIS for name in api.names}
    names |= {name for entry in KEEPERS for name in entry.names if not name.endswith(".")}
    for table in (CONTEXT_FACTORIES, SET_START_METHOD, FREEZE_SUPPORT, EAGER_HANDLE_CLASSES, UNPICKLABLE_CALLS,
                  UNPICKLABLE_GLOBALS, MP_SYNC_PRIMITIVES, CLASS_REPLACING_DECORATORS, HEAVY_CALLS, HEAVY_IN_LOOP,
                  PIPELINE_ROOTS):
        names |= set(table)
    names |= {"torch.utils.data.Dataset", "torch.utils.data.IterableDataset", "functools.partial"}
    return frozenset(names)


DEFAULT_REGISTRY = Registry.of(BUILTIN_APIS)
