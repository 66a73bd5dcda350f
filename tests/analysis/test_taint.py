"""analysis/taint.py: which values reach worker processes across the modules of a project.

Each test writes a small project into ``tmp_path`` and checks every module of it as the CLI does (one
:class:`Project` for the run, every rule selected).  Like the fixtures, a source says what it expects with
``# error: WSPnnn`` on the line; a test asserts that exactly those findings are reported, each once, so a
safe look-alike is a project with no such comment.  Nothing here runs the code: the fixture projects
(``tests/fixtures/projects/``) back the same shapes with runs under spawn.
"""

from __future__ import annotations

import re
import textwrap
import time
from pathlib import Path

import pytest

from winspawn_lint.analysis import taint
from winspawn_lint.analysis.project import Project, ProjectModule
from winspawn_lint.analysis.taint import Engine, Unit
from winspawn_lint.rules import RULES
from winspawn_lint.runner import Job, check_file
from winspawn_lint.settings import Settings

#: every rule but WSP105 (`freeze_support()` in the main guard), which the small scripts here leave out
SETTINGS = Settings(select=frozenset(RULES) - {"WSP105"})
_EXPECTED = re.compile(r"#\s*error:\s*(WSP\d{3}(?:\s*,\s*WSP\d{3})*)")


def write(root: Path, files: dict[str, str]) -> Path:
    """Write *files* (relative path -> source) under *root*, marked as a project root (``.git``)."""
    (root / ".git").mkdir(parents=True, exist_ok=True)
    for name, source in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
    return root


def lint(root: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    """Every finding in the project *files* written under *root*: (file, line, code), sorted, duplicates kept."""
    write(root, files)
    project, job = Project(SETTINGS.registry), Job(SETTINGS)
    found = []
    for name in sorted(files):
        result = check_file(str(root / name), job, project)
        assert result.error is None, f"{name}: {result.error}"
        found += [(name, finding.line, finding.code) for finding in result.findings]
    return sorted(found)


def expected(files: dict[str, str]) -> list[tuple[str, int, str]]:
    """The findings the ``# error:`` comments of *files* ask for."""
    out = []
    for name, source in files.items():
        for number, line in enumerate(textwrap.dedent(source).lstrip("\n").splitlines(), 1):
            match = _EXPECTED.search(line)
            if match:
                out += [(name, number, code.strip()) for code in match[1].split(",")]
    return sorted(out)


def script(imports: str, body: str) -> str:
    """A script: *imports*, then ``main()`` made of *body*, called under the main guard."""
    return "\n".join([textwrap.dedent(imports).strip("\n"), "", "", "def main():",
                      textwrap.indent(textwrap.dedent(body).strip("\n"), "    "), "", "",
                      'if __name__ == "__main__":', "    main()", ""])


def assert_exact(tmp_path: Path, files: dict[str, str]) -> None:
    assert lint(tmp_path, files) == expected(files)


# A script that hands what `data.py` makes to a DataLoader with 2 workers, and iterates it under the main guard.
TRAIN = """
    import multiprocessing

    from torch.utils.data import DataLoader

    from data import make_dataset


    def main():
        loader = DataLoader(make_dataset(), batch_size=4, num_workers=2)
        print(sorted(batch for batch in loader))


    if __name__ == "__main__":
        multiprocessing.freeze_support()
        main()
"""


# --- factories in another module ---------------------------------------------------------------------------------


def test_a_local_class_returned_by_a_factory_in_another_module_is_reported_at_the_class(tmp_path):
    assert_exact(tmp_path, {"train.py": TRAIN, "data.py": """
        from torch.utils.data import Dataset


        def make_dataset(offset=5):
            class Shifted(Dataset):  # error: WSP203
                def __len__(self):
                    return 8

                def __getitem__(self, index):
                    return index + offset

            return Shifted()
    """})


def test_a_module_level_class_returned_by_a_factory_is_silent(tmp_path):
    assert_exact(tmp_path, {"train.py": TRAIN, "data.py": """
        from torch.utils.data import Dataset


        class Shifted(Dataset):
            def __init__(self, offset):
                self.offset = offset

            def __len__(self):
                return 8

            def __getitem__(self, index):
                return index + self.offset


        def make_dataset(offset=5):
            return Shifted(offset)
    """})


def test_a_lambda_transform_inside_a_dataset_a_builder_returns_is_reported_at_the_lambda(tmp_path):
    assert_exact(tmp_path, {"train.py": TRAIN, "data.py": """
        from torchvision import transforms
        from torchvision.datasets import FakeData


        def make_dataset(size=8):
            transform = transforms.Compose([
                transforms.Lambda(lambda x: x * 2),  # error: WSP204
            ])
            return FakeData(size, transform=transform)
    """})


def test_a_named_function_transform_inside_a_dataset_a_builder_returns_is_silent(tmp_path):
    assert_exact(tmp_path, {"train.py": TRAIN, "data.py": """
        from torchvision import transforms
        from torchvision.datasets import FakeData


        def double(x):
            return x * 2


        def make_dataset(size=8):
            return FakeData(size, transform=transforms.Compose([transforms.Lambda(double)]))
    """})


def test_a_lambda_given_to_a_loader_factory_in_another_module_reaches_its_dataloader(tmp_path):
    assert_exact(tmp_path, {
        "loaders.py": """
            from torch.utils.data import DataLoader


            def build_loader(data, collate, workers=2):
                return DataLoader(data, batch_size=4, num_workers=workers, collate_fn=collate)
        """,
        "train.py": script("""
            from loaders import build_loader
        """, """
            loader = build_loader(list(range(8)), collate=lambda batch: sum(batch))  # error: WSP201
            print(sorted(loader))
        """),
    })


def test_a_loader_factory_given_no_workers_is_silent(tmp_path):
    assert_exact(tmp_path, {
        "loaders.py": """
            from torch.utils.data import DataLoader


            def build_loader(data, collate, workers=2):
                return DataLoader(data, batch_size=4, num_workers=workers, collate_fn=collate)
        """,
        "train.py": script("""
            from loaders import build_loader
        """, """
            loader = build_loader(list(range(8)), collate=lambda batch: sum(batch), workers=0)
            print(sorted(loader))
        """),
    })


def test_a_dataloader_returned_by_a_helper_and_iterated_at_module_level_starts_workers_on_import(tmp_path):
    assert_exact(tmp_path, {
        "data.py": """
            from torch.utils.data import DataLoader


            def get_loader():
                return DataLoader(list(range(8)), batch_size=4, num_workers=2)
        """,
        "train.py": """
            from data import get_loader

            total = 0
            try:
                for batch in get_loader():  # error: WSP101
                    total += len(batch)
            except KeyboardInterrupt:
                pass
        """,
    })


# --- resources in returned tuples --------------------------------------------------------------------------------


#: a script that unpacks `data.build(path)` into a dataset and its sampler, and hands both to 2 workers
_RECORDS_TRAIN = script("""
    from torch.utils.data import DataLoader

    from data import build
""", """
    dataset, sampler = build("records.lmdb")
    print(list(DataLoader(dataset, sampler=sampler, num_workers=2)))
""")


def test_an_lmdb_environment_in_a_dataset_returned_inside_a_tuple_is_reported_where_it_is_opened(tmp_path):
    assert_exact(tmp_path, {
        "data.py": """
            import lmdb
            from torch.utils.data import Dataset, SequentialSampler


            class Records(Dataset):
                def __init__(self, path):
                    self.env = lmdb.open(path, readonly=True, lock=False)  # error: WSP301

                def __len__(self):
                    return 8

                def __getitem__(self, index):
                    return index


            def build(path):
                dataset = Records(path)
                return dataset, SequentialSampler(dataset)
        """,
        "train.py": _RECORDS_TRAIN,
    })


def test_an_h5py_file_in_a_returned_tuple_is_reported_where_it_is_opened(tmp_path):
    assert_exact(tmp_path, {
        "data.py": """
            import h5py
            from torch.utils.data import Dataset


            class Frames(Dataset):
                def __init__(self, path):
                    self.h5 = h5py.File(path, "r")  # error: WSP301

                def __len__(self):
                    return 8

                def __getitem__(self, index):
                    return int(self.h5["frames"][index])


            def build(path):
                return Frames(path), len(path)
        """,
        "train.py": script("""
            from torch.utils.data import DataLoader

            from data import build
        """, """
            frames, _ = build("frames.h5")
            print(list(DataLoader(frames, num_workers=2)))
        """),
    })


def test_an_lmdb_environment_opened_lazily_in_each_worker_is_silent(tmp_path):
    assert_exact(tmp_path, {
        "data.py": """
            import lmdb
            from torch.utils.data import Dataset, SequentialSampler


            class Records(Dataset):
                def __init__(self, path):
                    self.path = path
                    self.env = None

                def __len__(self):
                    return 8

                def __getitem__(self, index):
                    if self.env is None:
                        self.env = lmdb.open(self.path, readonly=True, lock=False)
                    return index


            def build(path):
                dataset = Records(path)
                return dataset, SequentialSampler(dataset)
        """,
        "train.py": _RECORDS_TRAIN,
    })


# --- worker counts in **kwargs -----------------------------------------------------------------------------------

_KWARGS_TRAIN = """
    import torch
    from torch.utils.data import DataLoader

    from config import loader_kwargs


    def main():
        kwargs = loader_kwargs()
        loader = DataLoader(torch.arange(8), **kwargs, collate_fn=lambda batch: sum(batch)){comment}
        print(list(loader))


    if __name__ == "__main__":
        main()
"""


def test_num_workers_in_a_kwargs_dict_from_another_module_is_counted_once(tmp_path):
    assert_exact(tmp_path, {
        "config.py": """
            def loader_kwargs(workers=2):
                return {"batch_size": 4, "num_workers": workers, "pin_memory": False}
        """,
        "train.py": _KWARGS_TRAIN.format(comment="  # error: WSP201"),
    })


def test_num_workers_zero_in_a_kwargs_dict_is_silent(tmp_path):
    assert_exact(tmp_path, {
        "config.py": """
            def loader_kwargs(workers=0):
                return {"batch_size": 4, "num_workers": workers, "pin_memory": False}
        """,
        "train.py": _KWARGS_TRAIN.format(comment=""),
    })


def test_num_workers_passed_through_a_dataloader_subclass_kwargs_is_resolved_at_the_call(tmp_path):
    loaders = """
        from torch.utils.data import DataLoader


        class SummingLoader(DataLoader):
            def __init__(self, data, **kwargs):
                super().__init__(data, batch_size=4, collate_fn=lambda batch: sum(batch), **kwargs){comment}
    """
    train = """
        from loaders import SummingLoader


        def main():
            print(sorted(SummingLoader(list(range(8)), num_workers={workers})))


        if __name__ == "__main__":
            main()
    """
    hazard = {"loaders.py": loaders.format(comment="  # error: WSP201"), "train.py": train.format(workers=4)}
    assert_exact(tmp_path / "four", hazard)
    safe = {"loaders.py": loaders.format(comment=""), "train.py": train.format(workers=0)}
    assert_exact(tmp_path / "none", safe)


# --- classmethods and helper methods -----------------------------------------------------------------------------


def test_an_instance_a_classmethod_makes_with_cls_carries_what_its_constructor_stores(tmp_path):
    # (a plain class, not a Dataset: WSP301 on a Dataset subclass needs no flow, and would not test one)
    assert_exact(tmp_path, {
        "data.py": """
            import threading


            class Records:
                def __init__(self, rows):
                    self.rows = rows
                    self.lock = threading.Lock()  # error: WSP301

                @classmethod
                def from_range(cls, size):
                    return cls(list(range(size)))
        """,
        "train.py": script("""
            from multiprocessing import Pool

            from data import Records


            def count(records):
                return len(records.rows)
        """, """
            with Pool(2) as pool:
                print(pool.map(count, [Records.from_range(8)]))
        """),
    })


def test_an_instance_a_classmethod_makes_that_never_travels_is_silent(tmp_path):
    assert_exact(tmp_path, {
        "data.py": """
            import threading


            class Records:
                def __init__(self, rows):
                    self.rows = rows
                    self.lock = threading.Lock()

                @classmethod
                def from_range(cls, size):
                    return cls(list(range(size)))
        """,
        "train.py": script("""
            from multiprocessing import Pool

            from data import Records


            def count(size):
                return len(Records.from_range(size).rows)
        """, """
            with Pool(2) as pool:
                print(pool.map(count, [8]))
        """),
    })


def test_a_lambda_a_classmethod_passes_to_cls_reaches_the_loader(tmp_path):
    assert_exact(tmp_path, {
        "data.py": """
            from torch.utils.data import Dataset


            class Squares(Dataset):
                def __init__(self, size, transform):
                    self.size = size
                    self.transform = transform

                @classmethod
                def plain(cls, size):
                    return cls(size, lambda x: x)  # error: WSP204

                def __len__(self):
                    return self.size

                def __getitem__(self, index):
                    return self.transform(index * index)
        """,
        "train.py": script("""
            from torch.utils.data import DataLoader

            from data import Squares
        """, """
            print(list(DataLoader(Squares.plain(8), num_workers=2)))
        """),
    })


_BUILDERS = """
    from torch.utils.data import Dataset


    def double(x):
        return 2 * x


    def build(klass, size, transform):
        return klass(size, transform)


    class Squares(Dataset):
        def __init__(self, size, transform):
            self.size = size
            self.transform = transform

        @classmethod
        def plain(cls, size):
            return cls(size, lambda x: x){plain}

        @classmethod
        def doubled(cls, size):
            return cls(size, double)

        @staticmethod
        def make(transform):
            return Squares(4, transform)

        def with_identity(self):
            return type(self)(self.size, lambda x: x){with_identity}

        def with_double(self):
            return type(self)(self.size, double)

        def again(self):
            return self.plain(self.size)

        def __len__(self):
            return self.size

        def __getitem__(self, index):
            return self.transform(index * index)


    class Shifted(Squares):
        def __init__(self, size, transform):
            super().__init__(size, abs)
"""


@pytest.mark.parametrize("made, where", [
    # (`Squares.plain(8)`: test_a_lambda_a_classmethod_passes_to_cls_reaches_the_loader)
    ("Shifted.plain(8)", None),  # `cls` is the subclass, whose __init__ drops the lambda
    ("Squares(2, double).plain(8)", "plain"),  # called on an instance, a classmethod gets its class
    ("Shifted(2, double).plain(8)", None),
    ("Squares(2, double).again()", "plain"),  # `self.plain(...)`: `cls` is the class of `self`
    ("Squares.doubled(8)", None),
    ("Squares.make(lambda x: x)", "train"),  # a staticmethod has no receiver: its first parameter is given
    ("Squares.make(double)", None),
    ("Squares(2, double).with_identity()", "with_identity"),
    ("Squares(2, double).with_double()", None),
    ("build(Squares, 8, lambda x: x)", "train"),  # a class given to a helper is built with the helper's arguments
    ("build(Shifted, 8, lambda x: x)", None),
    ("build(Squares, 8, double)", None),
], ids=lambda value: value if isinstance(value, str) else "silent")
def test_a_class_a_method_or_a_helper_builds_is_given_its_constructor_arguments(tmp_path, made, where):
    comment = "  # error: WSP204"
    data = _BUILDERS.format(plain=comment if where == "plain" else "",
                            with_identity=comment if where == "with_identity" else "")
    train = script("""
        from torch.utils.data import DataLoader

        from data import Shifted, Squares, build, double
    """, f"""
        print(list(DataLoader({made}, num_workers=2))){comment if where == "train" else ""}
    """)
    assert_exact(tmp_path, {"data.py": data, "train.py": train})


def test_a_resource_a_helper_method_stores_on_self_reaches_the_instance(tmp_path):
    assert_exact(tmp_path, {
        "data.py": """
            import h5py
            from torch.utils.data import Dataset


            class Frames(Dataset):
                def __init__(self, path):
                    self.path = path
                    self._open()

                def _open(self):
                    self.h5 = h5py.File(self.path, "r")  # error: WSP301

                def __len__(self):
                    return 8

                def __getitem__(self, index):
                    return int(self.h5["frames"][index])
        """,
        "train.py": script("""
            from torch.utils.data import DataLoader

            from data import Frames
        """, """
            print(list(DataLoader(Frames("frames.h5"), num_workers=2)))
        """),
    })


# A helper that opens a file and falls back to something else when it cannot: the file is what the normal path
# returns, and what the worker is sent (Bleualign's `_inputObjectFromParameter`).
OPEN_OR_FALL_BACK = """
    import io
    import multiprocessing


    def work(item):
        return item


    class Aligner:
        def __init__(self, path):
            self.src, self.close_src = self._open(path)

        def _open(self, parameter):
            try:
                stream = io.open(parameter, encoding="utf-8")
                close = True
            except OSError:
                stream = FALLBACK
                close = False
            return stream, close

        def run(self):
            worker = multiprocessing.Process(target=work, args=((self.src, 1),))  # error: WSP302
            worker.start()
            worker.join()


    if __name__ == "__main__":
        Aligner(__file__).run()
"""


@pytest.mark.parametrize("fallback", ["io.StringIO()", "None"])
def test_a_value_bound_in_a_try_and_again_in_its_handler_may_be_either(tmp_path, fallback):
    assert_exact(tmp_path, {"align.py": OPEN_OR_FALL_BACK.replace("FALLBACK", fallback)})


def test_a_try_whose_handler_re_raises_leaves_the_body_value(tmp_path):
    assert_exact(tmp_path, {"align.py": OPEN_OR_FALL_BACK.replace("stream = FALLBACK", "raise")})


def test_a_file_opened_only_in_the_handler_of_a_try_that_reads_a_path_is_still_found(tmp_path):
    source = OPEN_OR_FALL_BACK.replace('stream = io.open(parameter, encoding="utf-8")', "stream = io.StringIO()")
    assert_exact(tmp_path, {"align.py": source.replace("FALLBACK", 'open(parameter, encoding="utf-8")')})


def test_a_value_bound_in_the_finally_of_a_try_replaces_the_body_value(tmp_path):
    source = OPEN_OR_FALL_BACK.replace("except OSError:", "finally:").replace("stream = FALLBACK", "stream = None")
    assert_exact(tmp_path, {"align.py": source.replace("  # error: WSP302", "")})


# A worker count set before an `if` that may set it to 0: the `if` may not run (RAVE's `train.py` turns its
# workers off on Windows and macOS only).
COUNT_BEFORE_AN_IF = """
    import sys

    from torch.utils.data import DataLoader


    def main():
        num_workers = 8
        SWITCH
        loader = DataLoader(list(range(8)), 2, num_workers=num_workers, collate_fn=lambda b: b)  # error: WSP201
        print(list(loader))


    if __name__ == "__main__":
        main()
"""


def test_a_count_an_if_may_set_to_zero_is_still_the_earlier_count_when_it_does_not_run(tmp_path):
    switch = 'if sys.platform == "darwin":\n            num_workers = 0'
    assert_exact(tmp_path, {"train.py": COUNT_BEFORE_AN_IF.replace("SWITCH", switch)})


@pytest.mark.parametrize("switch", [
    "num_workers = 0",
    'if sys.platform == "darwin":\n            num_workers = 0\n        else:\n            num_workers = 0',
])
def test_a_count_set_to_zero_on_every_path_is_silent(tmp_path, switch):
    source = COUNT_BEFORE_AN_IF.replace("SWITCH", switch).replace("  # error: WSP201", "")
    assert_exact(tmp_path, {"train.py": source})


# A writer that maps a bound method of itself (its open file with it) only when it is given more than one process
# (`datasets`' CsvDatasetWriter): the pool's sink is behind `if num_proc is None or num_proc == 1:`'s `else`.  The
# file is handed in by name, so the finding is where it is opened (the class's store is right for any buffer).
SERIAL_UNLESS_PROCESSES = """
    import multiprocessing


    class Writer:
        def __init__(self, buffer, num_proc=None):
            self.buffer = buffer
            self.num_proc = num_proc

        def _batch(self, offset):
            return str(offset).encode()

        def write(self):
            if self.num_proc is None or self.num_proc == 1:
                written = sum(self.buffer.write(self._batch(offset)) for offset in range(4))
            else:
                with multiprocessing.Pool(self.num_proc) as pool:
                    written = sum(self.buffer.write(chunk) for chunk in pool.imap(self._batch, range(4)))
            return written


    if __name__ == "__main__":
        with open("out.bin", "wb") as buffer:  # error: WSP301
            print(Writer(buffer, PROCESSES).write())
"""


def test_a_sink_in_the_else_of_a_test_the_call_makes_true_is_not_reached(tmp_path):
    source = SERIAL_UNLESS_PROCESSES.replace(", PROCESSES", "").replace("  # error: WSP301", "")
    assert_exact(tmp_path, {"writer.py": source})


def test_a_sink_in_the_else_of_a_test_the_call_makes_false_is_reached(tmp_path):
    assert_exact(tmp_path, {"writer.py": SERIAL_UNLESS_PROCESSES.replace("PROCESSES", "num_proc=4")})


# The same writer returning early instead of taking an `else:`.
EARLY_RETURN = SERIAL_UNLESS_PROCESSES.replace("""
        def write(self):
            if self.num_proc is None or self.num_proc == 1:
                written = sum(self.buffer.write(self._batch(offset)) for offset in range(4))
            else:
                with multiprocessing.Pool(self.num_proc) as pool:
                    written = sum(self.buffer.write(chunk) for chunk in pool.imap(self._batch, range(4)))
            return written
""", """
        def write(self):
            if self.num_proc is None or self.num_proc == 1:
                return sum(self.buffer.write(self._batch(offset)) for offset in range(4))
            with multiprocessing.Pool(self.num_proc) as pool:
                return sum(self.buffer.write(chunk) for chunk in pool.imap(self._batch, range(4)))
""")


def test_a_sink_after_an_early_return_the_call_takes_is_not_reached(tmp_path):
    assert "return sum" in EARLY_RETURN
    source = EARLY_RETURN.replace(", PROCESSES", "").replace("  # error: WSP301", "")
    assert_exact(tmp_path, {"writer.py": source})


def test_a_sink_after_an_early_return_the_call_does_not_take_is_reached(tmp_path):
    assert_exact(tmp_path, {"writer.py": EARLY_RETURN.replace("PROCESSES", "num_proc=4")})


def test_a_lambda_a_helper_method_stores_on_self_reaches_the_instance(tmp_path):
    assert_exact(tmp_path, {
        "data.py": """
            from torch.utils.data import Dataset


            class Squares(Dataset):
                def __init__(self, size):
                    self.size = size
                    self._setup()

                def _setup(self):
                    self.transform = lambda x: x * x  # error: WSP204

                def __len__(self):
                    return self.size

                def __getitem__(self, index):
                    return self.transform(index)
        """,
        "train.py": script("""
            from torch.utils.data import DataLoader

            from data import Squares
        """, """
            print(list(DataLoader(Squares(8), num_workers=2)))
        """),
    })


# --- lambdas as parameter defaults -------------------------------------------------------------------------------


_SQUARES = """
    from torch.utils.data import Dataset
    {imports}

    class Squares(Dataset):
        def __init__(self, size, transform={default}):{comment}
            self.size = size
            self.transform = transform

        def __len__(self):
            return self.size

        def __getitem__(self, index):
            return self.transform(index * index)
"""
#: a script that hands `data.Squares(8)` (its transform left to the default) to a DataLoader with 2 workers
_SQUARES_DEFAULT_TRAIN = script("""
    from torch.utils.data import DataLoader

    from data import Squares
""", """
    print(list(DataLoader(Squares(8), num_workers=2)))
""")


def test_a_lambda_default_of_a_dataset_parameter_reaches_the_loader(tmp_path):
    assert_exact(tmp_path, {
        "data.py": _SQUARES.format(imports="", default="lambda x: x", comment="  # error: WSP204"),
        "train.py": _SQUARES_DEFAULT_TRAIN,
    })


def test_a_module_level_lambda_used_as_a_default_is_still_a_lambda(tmp_path):
    assert_exact(tmp_path, {
        "transforms.py": """
            identity = lambda x: x  # error: WSP204
        """,
        "data.py": _SQUARES.format(imports="\n    from transforms import identity\n", default="identity", comment=""),
        "train.py": _SQUARES_DEFAULT_TRAIN,
    })


def test_a_module_level_function_used_as_a_default_is_silent(tmp_path):
    assert_exact(tmp_path, {
        "transforms.py": """
            def identity(x):
                return x
        """,
        "data.py": _SQUARES.format(imports="\n    from transforms import identity\n", default="identity", comment=""),
        "train.py": _SQUARES_DEFAULT_TRAIN,
    })


def test_a_lambda_default_whose_function_is_itself_a_lambda_does_not_crash(tmp_path):
    # Regression: a default's owner is a Lambda node, where the summaries expected a FunctionDef.
    found = lint(tmp_path, {
        "train.py": script("""
            from torch.utils.data import DataLoader

            make = lambda data, collate=lambda batch: batch: DataLoader(data, num_workers=2, collate_fn=collate)
            pick = lambda x, key=lambda item: item: key(x)
        """, """
            print(list(make(list(range(8)))), pick(3))
        """),
    })
    assert all(code.startswith("WSP") for _, _, code in found)


def test_a_lambda_default_of_a_helper_that_builds_the_loader_is_reported(tmp_path):
    assert_exact(tmp_path, {
        "loaders.py": """
            from torch.utils.data import DataLoader


            def build_loader(data, collate=lambda batch: batch):  # error: WSP201
                return DataLoader(data, num_workers=2, collate_fn=collate)
        """,
        "train.py": script("""
            from loaders import build_loader
        """, """
            print(list(build_loader(list(range(8)))))
        """),
    })


# --- stores on attributes after construction ---------------------------------------------------------------------

_ATTRIBUTE_TRAIN = """
    from torch.utils.data import DataLoader
    from torchvision.datasets import FakeData


    def double(x):
        return x * 2


    def main():
        dataset = FakeData(8)
{stores}
        loader = DataLoader(dataset, batch_size=4, num_workers=2)
        print(list(loader))


    if __name__ == "__main__":
        main()
"""


def _attribute_train(*stores: str) -> str:
    return _ATTRIBUTE_TRAIN.format(stores="\n".join(" " * 8 + store for store in stores))


def test_a_lambda_stored_on_a_dataset_after_construction_is_reported_at_the_store(tmp_path):
    store = "dataset.target_transform = lambda t: 1 - t  # error: WSP204"
    assert_exact(tmp_path, {"train.py": _attribute_train(store)})


def test_a_named_function_stored_on_a_dataset_after_construction_is_silent(tmp_path):
    assert_exact(tmp_path, {"train.py": _attribute_train("dataset.transform = double")})


def test_an_unconditional_store_replaces_an_earlier_lambda(tmp_path):
    stores = ("dataset.transform = lambda x: x", "dataset.transform = double")
    assert_exact(tmp_path, {"train.py": _attribute_train(*stores)})


def test_a_store_inside_an_if_does_not_replace_an_earlier_lambda(tmp_path):
    assert_exact(tmp_path, {"train.py": _attribute_train(
        "dataset.transform = lambda x: x  # error: WSP204",
        "if len(dataset) > 100:",
        "    dataset.transform = double",
    )})


_SQUARES_TRAIN = """
    from torch.utils.data import DataLoader, Dataset


    class Squares(Dataset):
        def __init__(self, size, transform=None):
            self.size = size
            self.transform = transform

        def __len__(self):
            return self.size

        def __getitem__(self, index):
            return self.transform(index * index)


    def double(x):
        return x * 2


    def main(flag=False):
{stores}
        print(list(DataLoader(dataset, num_workers=2)))


    if __name__ == "__main__":
        main()
"""


def _squares_train(*stores: str) -> str:
    return _SQUARES_TRAIN.format(stores="\n".join(" " * 8 + store for store in stores))


def test_a_lambda_constructor_argument_replaced_by_an_unconditional_store_is_silent(tmp_path):
    assert_exact(tmp_path, {"train.py": _squares_train("dataset = Squares(4, transform=lambda x: x)",
                                                       "dataset.transform = double")})


def test_stores_on_both_branches_of_an_if_else_replace_an_earlier_lambda(tmp_path):
    assert_exact(tmp_path, {"train.py": _squares_train(
        "dataset = Squares(4)",
        "dataset.transform = lambda x: x",
        "if flag:",
        "    dataset.transform = double",
        "else:",
        "    dataset.transform = double",
    )})


def test_stores_on_both_branches_of_an_if_else_replace_a_lambda_constructor_argument(tmp_path):
    assert_exact(tmp_path, {"train.py": _squares_train(
        "dataset = Squares(4, transform=lambda x: x)",
        "if flag:",
        "    dataset.transform = double",
        "else:",
        "    dataset.transform = double",
    )})


# Shapes of branches after `dataset.transform = lambda x: x` (each was run under spawn with `flag` False): those
# that store on every path that reaches the loader replace the lambda; on another path the lambda remains.
_ALWAYS_STORED = {
    "if, elif and else": ["if flag:", "    {store}", "elif len(dataset) > 2:", "    {store}", "else:", "    {store}"],
    "an if/else nested in a branch": ["if flag:", "    {store}", "else:", "    if len(dataset) > 2:",
                                      "        {store}", "    else:", "        {store}"],
    "a branch that returns": ["if not flag:", "    {store}", "else:", "    return"],
    "a branch that raises": ["if not flag:", "    {store}", "else:", "    raise SystemExit('no transform')"],
    "a try and its handler": ["try:", "    {store}", "except Exception:", "    {store}"],
    "a finally": ["try:", "    print(len(dataset))", "finally:", "    {store}"],
}
_SOMETIMES_STORED = {
    "one branch": ["if flag:", "    {store}"],
    "if and elif without else": ["if flag:", "    {store}", "elif len(dataset) > 100:", "    {store}"],
    "an if without else nested in a branch": ["if flag:", "    {store}", "else:", "    if len(dataset) > 100:",
                                              "        {store}"],
    "a try whose handler passes": ["try:", "    dataset.transform = double(None)", "    {store}",
                                   "except Exception:", "    pass"],
    "a loop": ["for _ in range(len(dataset) - 4):", "    {store}"],
}


@pytest.mark.parametrize("shape", _ALWAYS_STORED.values(), ids=list(_ALWAYS_STORED))
def test_stores_on_every_path_that_reaches_the_loader_replace_an_earlier_lambda(tmp_path, shape):
    stores = [line.format(store="dataset.transform = double") for line in shape]
    assert_exact(tmp_path, {"train.py": _squares_train("dataset = Squares(4)", "dataset.transform = lambda x: x",
                                                       *stores)})


@pytest.mark.parametrize("shape", _SOMETIMES_STORED.values(), ids=list(_SOMETIMES_STORED))
def test_stores_on_some_paths_to_the_loader_leave_an_earlier_lambda(tmp_path, shape):
    stores = [line.format(store="dataset.transform = double") for line in shape]
    assert_exact(tmp_path, {"train.py": _squares_train("dataset = Squares(4)",
                                                       "dataset.transform = lambda x: x  # error: WSP204", *stores)})


def test_a_lambda_stored_on_one_branch_of_an_if_else_is_reported(tmp_path):
    assert_exact(tmp_path, {"train.py": _squares_train(
        "dataset = Squares(4, transform=double)",
        "if flag:",
        "    dataset.transform = lambda x: x  # error: WSP204",
        "else:",
        "    dataset.transform = double",
    )})


def test_a_loader_inside_the_other_branch_of_an_if_else_that_stores_sees_the_earlier_lambda(tmp_path):
    assert_exact(tmp_path, {"train.py": _squares_train(
        "dataset = Squares(4)",
        "dataset.transform = lambda x: x  # error: WSP204",
        "if flag:",
        "    dataset.transform = double",
        "else:",
        "    print(list(DataLoader(dataset, num_workers=2)))",
        "    dataset.transform = double",
    )})


def test_a_variable_assigned_on_both_branches_of_an_if_else_replaces_an_earlier_lambda(tmp_path):
    assert_exact(tmp_path, {"train.py": _squares_train(
        "transform = lambda x: x",
        "if flag:",
        "    transform = double",
        "else:",
        "    transform = double",
        "dataset = Squares(4, transform=transform)",
    )})


_CONFIG_TRAIN = """
    import torch
    from torch.utils.data import DataLoader


    class LoaderConfig:
        def __init__(self):
            self.num_workers = 4
            self.batch_size = 2


    def main(debug=False):
        cfg = LoaderConfig()
{stores}
        loader = DataLoader(torch.arange(8), batch_size=cfg.batch_size, num_workers=cfg.num_workers,
                            collate_fn=lambda batch: sum(batch)){comment}
        print(list(loader))


    if __name__ == "__main__":
        main()
"""


def test_a_worker_count_from_a_config_object_is_followed(tmp_path):
    assert_exact(tmp_path, {"train.py": _CONFIG_TRAIN.format(stores="", comment="  # error: WSP201")})


def test_an_unconditional_num_workers_zero_after_construction_silences(tmp_path):
    assert_exact(tmp_path, {"train.py": _CONFIG_TRAIN.format(stores=" " * 8 + "cfg.num_workers = 0", comment="")})


def test_a_num_workers_zero_inside_an_if_does_not_silence(tmp_path):
    stores = " " * 8 + "if debug:\n" + " " * 12 + "cfg.num_workers = 0"
    assert_exact(tmp_path, {"train.py": _CONFIG_TRAIN.format(stores=stores, comment="  # error: WSP201")})


# --- recursion and budgets ---------------------------------------------------------------------------------------


def engine_steps(path: Path, project: Project) -> tuple[int, list]:
    """The evaluation steps and flows of the taint analysis of the module at *path*, as a check runs it."""
    module = project.module(str(path))
    assert module is not None
    engine = Engine(project, SETTINGS.registry, SETTINGS.assume_workers,
                    Unit(str(path), ProjectModule(str(path), module.index, module.resolver)))
    flows = list(engine.flows(engine.main))
    return engine.steps, flows


def test_a_function_that_calls_itself_terminates_silently(tmp_path):
    files = {"train.py": """
        from torch.utils.data import DataLoader


        def build(depth, data):
            if depth:
                return build(depth - 1, [data])
            return DataLoader(data, num_workers=2, collate_fn=build(depth, data).collate_fn)


        def deeper(value):
            return deeper(deeper(value))


        def main():
            print(list(build(3, deeper(list(range(8))))))


        if __name__ == "__main__":
            main()
    """}
    start = time.perf_counter()
    assert_exact(tmp_path, files)
    assert time.perf_counter() - start < 10
    steps, flows = engine_steps(tmp_path / "train.py", Project(SETTINGS.registry))
    assert steps <= taint.BUDGET + 1 and flows == []


def test_two_mutually_recursive_modules_terminate_silently(tmp_path):
    files = {
        "ping.py": """
            import pong


            def ping(value, n):
                return pong.pong(value, n - 1) if n else value
        """,
        "pong.py": """
            import ping


            def pong(value, n):
                return ping.ping([value], n - 1) if n else value
        """,
        "train.py": script("""
            from torch.utils.data import DataLoader

            from ping import ping
        """, """
            data = ping(list(range(8)), 10)
            print(list(DataLoader(data, num_workers=2, collate_fn=ping(sum, 3))))
        """),
    }
    start = time.perf_counter()
    assert_exact(tmp_path, files)
    assert time.perf_counter() - start < 10
    steps, flows = engine_steps(tmp_path / "train.py", Project(SETTINGS.registry))
    assert steps <= taint.BUDGET + 1 and flows == []


def test_a_module_that_imports_itself_terminates(tmp_path):
    assert_exact(tmp_path, {"train.py": """
        from torch.utils.data import DataLoader

        from train import make


        def make(data):
            return make(data)


        if __name__ == "__main__":
            print(list(DataLoader(make([1, 2]), num_workers=2)))
    """})


@pytest.mark.parametrize("budget", [50, 500])
def test_a_small_budget_makes_the_analysis_silent_not_wrong(tmp_path, monkeypatch, budget):
    monkeypatch.setattr(taint, "BUDGET", budget)
    files = {"train.py": _attribute_train(*[f"dataset.extra{n} = double" for n in range(40)],
                                          "dataset.target_transform = lambda t: 1 - t  # error: WSP204")}
    found = lint(tmp_path, files)
    # Past the budget a value is unknown: the lambda may be missed, but nothing else is invented.
    assert set(found) <= set(expected(files))


# --- the reverse direction: modules re-imported by every spawned worker ------------------------------------------

_HEAVY = """
    import torch

    WEIGHTS = torch.load("weights.pt"){comment}
"""


def test_heavy_work_at_import_of_a_module_a_spawning_script_imports_is_reported_in_that_module(tmp_path):
    assert_exact(tmp_path, {
        "weights.py": _HEAVY.format(comment="  # error: WSP103"),
        "train.py": script("""
            import torch
            from torch.utils.data import DataLoader, TensorDataset

            import weights
        """, """
            print(list(DataLoader(TensorDataset(torch.arange(4)), num_workers=2)), weights.WEIGHTS)
        """),
    })


def test_heavy_work_at_import_of_a_module_imported_only_by_a_script_without_workers_is_silent(tmp_path):
    assert_exact(tmp_path, {
        "weights.py": _HEAVY.format(comment=""),
        "train.py": script("""
            import torch
            from torch.utils.data import DataLoader, TensorDataset

            import weights
        """, """
            print(list(DataLoader(TensorDataset(torch.arange(4)), num_workers=0)), weights.WEIGHTS)
        """),
    })


def test_heavy_work_in_a_module_imported_only_inside_the_main_function_is_silent(tmp_path):
    assert_exact(tmp_path, {
        "weights.py": _HEAVY.format(comment=""),
        "train.py": script("""
            import torch
            from torch.utils.data import DataLoader, TensorDataset
        """, """
            import weights
            print(list(DataLoader(TensorDataset(torch.arange(4)), num_workers=2)), weights.WEIGHTS)
        """),
    })


# --- which library an import names ---------------------------------------------------------------------------------


def test_a_pool_imported_with_a_standard_library_fallback_is_the_one_tried_first(tmp_path):
    found = lint(tmp_path, {
        "helpers.py": """
            try:
                from multiprocess.pool import Pool as ProcessPool
            except ImportError:  # fall back to the standard library
                from multiprocessing.pool import Pool as ProcessPool
        """,
        "train.py": script("""
            from helpers import ProcessPool
        """, """
            with ProcessPool(2) as pool:
                print(pool.map(lambda x: x * 2, [1, 2]))
        """),
    })
    assert [code for _, _, code in found] in ([], ["WSP901"])  # dill pickles it: silent, or "only with dill"


# Python tries the `try` body's import first; the handler's runs only when it fails (never, for the standard
# library): each shape was run under spawn with multiprocess installed.
_POOL_MAP_LAMBDA = """
    with ProcessPool(2) as pool:
        print(pool.map(lambda x: x * 2, [1, 2])){comment}
"""


def _pool_script(imports: str, comment: str = "") -> str:
    return script(imports, _POOL_MAP_LAMBDA.format(comment=comment))


def test_a_pool_imported_with_a_fallback_in_the_checked_file_is_the_one_tried_first(tmp_path):
    assert_exact(tmp_path, {"train.py": _pool_script("""
        try:
            from multiprocess.pool import Pool as ProcessPool
        except ImportError:
            from multiprocessing.pool import Pool as ProcessPool
    """, "  # error: WSP901")})


def test_a_standard_library_pool_tried_first_is_taken_whatever_the_fallback(tmp_path):
    assert_exact(tmp_path, {"train.py": _pool_script("""
        try:
            from multiprocessing.pool import Pool as ProcessPool
        except ImportError:
            from multiprocess.pool import Pool as ProcessPool
    """, "  # error: WSP201")})


def test_a_standard_library_pool_tried_first_in_a_helper_module_is_taken(tmp_path):
    assert_exact(tmp_path, {
        "helpers.py": """
            try:
                from multiprocessing.pool import Pool as ProcessPool
            except ImportError:
                from multiprocess.pool import Pool as ProcessPool
        """,
        "train.py": _pool_script("from helpers import ProcessPool", "  # error: WSP201"),
    })


def test_a_module_imported_with_a_fallback_is_the_one_tried_first(tmp_path):
    source = _pool_script("""
        try:
            import {first} as mp
        except ImportError:
            import {second} as mp
    """, "  # error: {code}").replace("ProcessPool(2)", "mp.Pool(2)")
    assert_exact(tmp_path / "dill", {"train.py": source.format(first="multiprocess", second="multiprocessing",
                                                               code="WSP901")})
    assert_exact(tmp_path / "pickle", {"train.py": source.format(first="multiprocessing", second="multiprocess",
                                                                 code="WSP201")})


def test_a_pool_of_an_unknown_library_tried_before_the_standard_library_is_silent(tmp_path):
    assert_exact(tmp_path, {"train.py": _pool_script("""
        try:
            from fastpool import Pool as ProcessPool
        except ImportError:
            from multiprocessing import Pool as ProcessPool
    """)})


_LAMBDA_STARTS = """
    import multiprocessing


    def work(lock):
        with lock:
            pass


    def main():
{body}


    if __name__ == "__main__":
        main()
"""


@pytest.mark.parametrize("body, codes", [
    ("start = lambda: multiprocessing.Process(target=work, args=(multiprocessing.Lock(),)).start()\n"
     "start()", ["WSP302"]),
    ("(lambda: multiprocessing.Process(target=work, args=(multiprocessing.Lock(),)).start())()", ["WSP302"]),
    ("make = lambda: multiprocessing.Process(target=work, args=(multiprocessing.Lock(),))\n"
     "make().start()", ["WSP302"]),  # what a called lambda returns is its body's value
    # never called, its body never runs (wsp302_ok_lock_variable_in_lambda.py runs it)
    ("start = lambda: multiprocessing.Process(target=work, args=(multiprocessing.Lock(),)).start()", []),
    ("lock = multiprocessing.Lock()\n"
     "start = lambda: multiprocessing.Process(target=work, args=(lock,)).start()\n"
     "start()", []),
], ids=["called", "called-where-made", "returned", "never-called", "lock-in-a-variable"])
def test_a_process_started_inside_a_lambda_is_a_sink(tmp_path, body, codes):
    found = lint(tmp_path, {"train.py": _LAMBDA_STARTS.format(body=textwrap.indent(body, " " * 8))})
    assert [code for _, _, code in found] == codes


# --- what a value waits for ----------------------------------------------------------------------------------

def _walked(obj: taint.Obj, depth: int = 0) -> bool:
    """Whether a symbol is within MAX_NESTING levels of *obj*'s parts, by a plain walk of every path."""
    return depth <= taint.MAX_NESTING and any(
        inner.kind in taint._SYMBOLS or (inner.parts and _walked(inner, depth + 1))
        for _, value in obj.parts for inner in value)


@pytest.mark.parametrize("seed", range(40))
def test_an_object_holds_symbols_as_a_walk_of_every_path_down_to_the_bound_says(seed):
    """Obj.holds_symbols keeps the depth of the nearest symbol in each object (values share objects, and a walk
    from each looked at them again on every path): the same answer as the walk, deep, shared or past the
    interpreter's stack."""
    import random

    rng = random.Random(seed)
    made: list[taint.Obj] = []
    for number in range(rng.randrange(5, 400)):
        if made and rng.random() < 0.85:
            held = frozenset(rng.choice(made[-rng.randrange(1, min(len(made), 6) + 1):])
                             for _ in range(rng.randrange(1, 3)))
            made.append(taint.Obj(taint.SEQ, None, None, number, (("[]", held),)))
        else:
            made.append(taint.Obj(taint.PARAM if rng.random() < 0.3 else taint.CONST, None, None, number))
    for obj in reversed(made):
        assert obj.holds_symbols() == _walked(obj), obj


def test_a_symbol_is_found_down_to_the_bound_in_a_chain_deeper_than_the_interpreter_follows():
    chain = [taint.Obj(taint.PARAM, None, None, "x")]
    for number in range(500):
        chain.append(taint.Obj(taint.SEQ, None, None, number, (("[0]", frozenset({chain[-1]})),)))
    asked = [obj.holds_symbols() for obj in reversed(chain)]  # (the outermost first: the deepest walk)
    assert list(reversed(asked)) == [False] + [True] * (taint.MAX_NESTING + 1) + [False] * (500 - taint.MAX_NESTING - 1)


# --- classes that register themselves -----------------------------------------------------------------------------


def test_a_class_an_init_subclass_registry_holds_is_one_its_lookup_may_build(tmp_path):
    assert_exact(tmp_path, {"train.py": """
        import multiprocessing

        from torch.utils.data import DataLoader


        class Base:
            registry = {}

            def __init_subclass__(cls, **kwargs):
                super().__init_subclass__(**kwargs)
                Base.registry[cls.__name__] = cls


        class Squares(Base):
            def __init__(self, size):
                self.size = size
                self.transform = lambda x: x * x  # error: WSP204

            def __len__(self):
                return self.size

            def __getitem__(self, index):
                return self.transform(index)


        if __name__ == "__main__":
            multiprocessing.freeze_support()
            print(list(DataLoader(Base.registry["Squares"](4), num_workers=2)))
    """})


def test_a_dict_a_class_keeps_without_registering_its_subclasses_holds_nothing_known(tmp_path):
    assert_exact(tmp_path, {"train.py": """
        import multiprocessing

        from torch.utils.data import DataLoader


        class Base:
            registry = {}


        class Squares(Base):
            def __init__(self, size):
                self.size = size
                self.transform = lambda x: x * x

            def __len__(self):
                return self.size

            def __getitem__(self, index):
                return self.transform(index)


        if __name__ == "__main__":
            multiprocessing.freeze_support()
            print(list(DataLoader(Base.registry["Squares"](4), num_workers=2)))
    """})


# --- methods a subclass defines ----------------------------------------------------------------------------------


def test_a_method_only_subclasses_define_gives_what_the_instances_class_returns(tmp_path):
    # (simclr-pytorch's BaseSSL.prepare_data: `train, test = self.transforms()`, defined by each model class)
    assert_exact(tmp_path, {"train.py": TRAIN, "data.py": """
        class Samples:
            def __init__(self, transform):
                self.transform = transform

            def __getitem__(self, index):
                return self.transform(index)


        class Base:
            def build(self):
                train, test = self.transforms()
                return Samples(train)


        class Eval(Base):
            def transforms(self):
                return (lambda x: x), str  # error: WSP204


        class Plain(Base):
            def transforms(self):
                return str, (lambda x: x)


        def make_dataset():
            return Eval().build(), Plain().build()
    """})


def test_a_method_whose_value_is_its_own_call_again_is_unknown_past_the_first(tmp_path):
    # (a subclass method returning `self.m()` again, directly or through another: worked out once at a time)
    assert_exact(tmp_path, {"train.py": TRAIN, "data.py": """
        class Base:
            def build(self):
                return self.transforms()


        class Loop(Base):
            def transforms(self):
                return self.build()

            def other(self):
                return self.again()

            def again(self):
                return self.other()


        def make_dataset():
            return [Loop().build(), Loop().other()]
    """})


# --- iterating instances -------------------------------------------------------------------------------------------


def test_an_iter_that_iterates_an_instance_of_its_own_class_is_followed_once(tmp_path):
    # (a reader that wraps what it is given in another reader unless it is a list: the instance the analysis sees
    # in `self.source` is one more reader, whose `__iter__` iterates its own `self.source` ...; each instance's
    # starts are worked out once at a time, not until the interpreter's stack runs out)
    assert_exact(tmp_path, {"train.py": TRAIN, "data.py": """
        class Reader:
            def __init__(self, source):
                self.source = source if isinstance(source, list) else Reader(list(source))

            def __iter__(self):
                for item in self.source:
                    yield item


        def make_dataset():
            for item in Reader(range(8)):
                print(item)
            return list(range(8))
    """})


def test_a_builtin_read_at_import_before_the_module_rebinds_its_name_is_the_builtin(tmp_path):
    # (bert4keras's snippets.py: `_open_ = open` above its own `class open:`, whose `__init__` keeps
    # `_open_(name)`: a file, not another instance of the class)
    assert_exact(tmp_path, {"train.py": TRAIN, "data.py": """
        import os

        _open_ = open


        class open:
            def __init__(self, name):
                self.file = _open_(name)  # error: WSP301

            def __getitem__(self, index):
                return index

            def __len__(self):
                return 8


        def make_dataset():
            return open(os.devnull)
    """})


# --- what a closure captures ---------------------------------------------------------------------------------------


def test_a_closure_carries_the_arguments_its_maker_was_given(tmp_path):
    # (bert4keras's parallel_apply: the pool's initializer is a closure that keeps the `func` its caller gave)
    assert_exact(tmp_path, {"train.py": """
        import multiprocessing

        from data import process


        if __name__ == "__main__":
            multiprocessing.freeze_support()
            print(process(range(4)))
    """, "data.py": """
        import multiprocessing

        FUNC = None


        def apply_func(value):
            return FUNC(value)


        def parallel_apply(func, values):
            def worker_step():  # error: WSP202
                global FUNC
                FUNC = func

            with multiprocessing.Pool(2, initializer=worker_step) as pool:
                return pool.map(apply_func, values)


        def process(values):
            return parallel_apply(lambda value: value * value, values)  # error: WSP201
    """})


def test_a_closure_that_reads_self_is_not_taken_to_send_the_instance(tmp_path):
    # (a collate function a sampler's method makes reads `self.size`: once it is made picklable it needs the
    # number, and the lambda the sampler keeps for the parent is not reported through it)
    assert_exact(tmp_path, {"train.py": """
        import multiprocessing

        from torch.utils.data import DataLoader

        from data import Sampler


        def main():
            loader = DataLoader(list(range(8)), batch_size=4, num_workers=2, collate_fn=Sampler().collate_fn())
            print([batch for batch in loader])


        if __name__ == "__main__":
            multiprocessing.freeze_support()
            main()
    """, "data.py": """
        class Sampler:
            def __init__(self):
                self.size = 2
                self.order = lambda indices: sorted(indices)

            def collate_fn(self):
                def collate(batch):  # error: WSP202
                    return [batch[i::self.size] for i in range(self.size)]
                return collate
    """})


def test_a_lambda_of_another_module_called_there_is_summarized_without_statements(tmp_path):
    # (a lambda's body is an expression: whether a call in it is under a function's own main guard is asked of
    # the def around it, and a lambda has none -- 68845ff asked the lambda's scope for its statements and raised
    # TypeError on every module that reached such a lambda)
    assert_exact(tmp_path, {"main.py": """
        import multiprocessing

        from helper import twice

        if __name__ == "__main__":
            with multiprocessing.Pool(2) as pool:
                print(pool.map(len, twice(["a"])))
    """, "helper.py": """
        def run(values, apply):
            return [apply(v) for v in values]


        def twice(values):
            return run(values, lambda v: len(str(v)))
    """})


def test_the_body_of_another_module_is_summarized_with_its_function_guards_read(tmp_path):
    # (another module's own code has no function around it: 7162360 asked its missing def whether a call was under
    # the def's main guard, and raised AttributeError wherever an importer's body was summarized; what a function of
    # another module does under its own main guard never runs, as its `__name__` is the module's)
    files = {"main.py": "import helper\n", "helper.py": """
        import multiprocessing


        def square(x):
            return x * x


        def run(values):
            if __name__ == "__main__":
                with multiprocessing.Pool(2) as pool:
                    return pool.map(square, values)
            return values


        print(run([1, 2]))
    """}
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    project = Project()
    module = project.module(str(tmp_path / "main.py"))
    engine = Engine(project, SETTINGS.registry, SETTINGS.assume_workers,
                    Unit(str(tmp_path / "main.py"), ProjectModule(str(tmp_path / "main.py"), module.index,
                                                                  module.resolver)))
    helper = engine.unit(str(tmp_path / "helper.py"))
    assert helper is not None
    assert engine.summary(helper.index.tree, helper).starts == []
    run = next(node for node in helper.index.tree.body if getattr(node, "name", "") == "run")
    assert engine.summary(run, helper).starts == []
