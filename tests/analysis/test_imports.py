"""analysis/imports.py: which file of the project an import names, searched the way Python searches when the
script runs (``python path/to/train.py``).

Each test writes a small project into ``tmp_path`` (a ``.git`` folder marks its root, as a checkout's does) and
asks :class:`ImportSearch` -- through a fresh :class:`Project`, the one reader of project files -- one question.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from winspawn_lint.analysis.project import Project


def make_project(root: Path, files: dict[str, str]) -> Path:
    """Write *files* (relative path -> source) under *root*, marked as a project root; return *root*."""
    (root / ".git").mkdir(exist_ok=True)
    for name, source in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source), encoding="utf-8")
    return root


def resolve(root: Path, importer: str, dotted: str, level: int = 0) -> str | None:
    """The project file (relative to *root*, with ``/``) that ``import dotted`` in *importer* names, or None."""
    found = Project().imports.module_file(str(root / importer), dotted, level)
    return None if found is None else Path(found).relative_to(root).as_posix()


# --- the script's folder -----------------------------------------------------------------------------------------


def test_the_scripts_own_folder_is_searched_first(tmp_path):
    root = make_project(tmp_path, {
        "tools/train.py": "import data\n",
        "tools/data.py": "",
        "data.py": "",  # also at the root; the script's folder comes first
    })
    assert resolve(root, "tools/train.py", "data") == "tools/data.py"


def test_the_project_root_is_searched_after_the_scripts_folder(tmp_path):
    root = make_project(tmp_path, {"tools/train.py": "import data\n", "data.py": ""})
    assert resolve(root, "tools/train.py", "data") == "data.py"


# --- sys.path edits ----------------------------------------------------------------------------------------------


def test_a_literal_sys_path_append_adds_its_folder(tmp_path):
    root = make_project(tmp_path, {
        "train.py": """
            import sys
            sys.path.append("third_party/lib")
            import loaders
        """,
        "third_party/lib/loaders.py": "",
    })
    assert resolve(root, "train.py", "loaders") == "third_party/lib/loaders.py"


def test_a_sys_path_append_of_the_authors_absolute_folder_finds_the_projects_folder_of_that_name(tmp_path):
    # (jigsaw-toxic's notebook: `sys.path.append('/home/<author>/.../bin')` then `from utils import *`)
    root = make_project(tmp_path, {
        "notebooks/train.py": """
            import sys
            sys.path.append("/home/someone/projects/toxic/bin")
            sys.path.append("C:\\\\Users\\\\someone\\\\toxic\\\\lib")
            import utils
            import helpers
        """,
        "bin/utils.py": "",
        "lib/helpers.py": "",
    })
    assert resolve(root, "notebooks/train.py", "utils") == "bin/utils.py"
    assert resolve(root, "notebooks/train.py", "helpers") == "lib/helpers.py"


def test_modules_of_a_folder_that_is_no_package_find_their_siblings_from_the_scripts_folder(tmp_path):
    # (USBNet: `proj/train.py` imports `utils.engine`, whose `import utils.misc` Python finds from `proj/`)
    root = make_project(tmp_path, {
        "proj/train.py": "import utils.engine\n",
        "proj/utils/engine.py": "import utils.misc\n",
        "proj/utils/misc.py": "",
    })
    assert resolve(root, "proj/utils/engine.py", "utils.misc") == "proj/utils/misc.py"


def test_a_module_of_a_folder_that_is_no_package_finds_the_scripts_other_folders(tmp_path):
    # (the Time-Series-Library layout: `run.py` imports `exp.exp_main`, whose `from data_provider.data_factory
    # import ...` Python finds from the script's folder, the only way `exp.exp_main` was imported)
    root = make_project(tmp_path, {
        "Imputation/run.py": "from exp.exp_main import Exp\n",
        "Imputation/exp/exp_main.py": "from data_provider.data_factory import data_provider\n",
        "Imputation/data_provider/data_factory.py": "",
        "tasks/other-task/exp/exp_main.py": "from data_provider.data_factory import data_provider\n",
        "tasks/data_provider/data_factory.py": "",
    })
    assert resolve(root, "Imputation/exp/exp_main.py", "data_provider.data_factory") == \
        "Imputation/data_provider/data_factory.py"
    # (no dotted name reaches `tasks/other-task/exp/exp_main.py` from `tasks/`: `other-task` is no identifier)
    assert resolve(root, "tasks/other-task/exp/exp_main.py", "data_provider.data_factory") is None


def test_a_folder_above_counts_only_when_a_script_there_imports_the_importers_folder(tmp_path):
    root = make_project(tmp_path, {
        "Forecast/run.py": "import torch\n",
        "Forecast/exp/exp_main.py": "from data_provider.data_factory import data_provider\n",
        "Forecast/data_provider/data_factory.py": "",
    })
    assert resolve(root, "Forecast/exp/exp_main.py", "data_provider.data_factory") is None


def test_a_sys_path_insert_of_the_parent_of_the_scripts_folder_adds_it(tmp_path):
    root = make_project(tmp_path, {
        "scripts/train.py": """
            import os
            import sys
            sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
            from toolkit.loaders import build_loader
        """,
        "toolkit/__init__.py": "",
        "toolkit/loaders.py": "",
    })
    # (the project root is searched anyway: a folder beside the root shows that the edit itself counts)
    assert resolve(root, "scripts/train.py", "toolkit.loaders") == "toolkit/loaders.py"


def test_a_sys_path_insert_reaches_a_folder_outside_the_usual_search(tmp_path):
    root = make_project(tmp_path, {
        "app/scripts/train.py": """
            import os
            import sys
            sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "vendor"))
            import loaders
        """,
        "app/vendor/loaders.py": "",
    })
    assert resolve(root, "app/scripts/train.py", "loaders") == "app/vendor/loaders.py"


def test_without_the_sys_path_edit_that_folder_is_not_searched(tmp_path):
    root = make_project(tmp_path, {"app/scripts/train.py": "import loaders\n", "app/vendor/loaders.py": ""})
    assert resolve(root, "app/scripts/train.py", "loaders") is None


def test_an_init_paths_helper_imported_by_the_script_adds_its_folders(tmp_path):
    root = make_project(tmp_path, {
        "tools/train.py": """
            import _init_paths  # noqa: F401
            from roidb.dataset import RoiDataset
        """,
        "tools/_init_paths.py": """
            import os.path as osp
            import sys


            def add_path(path):
                if path not in sys.path:
                    sys.path.insert(0, path)


            this_dir = osp.dirname(__file__)
            add_path(osp.join(this_dir, "..", "lib"))
        """,
        "lib/roidb/__init__.py": "",
        "lib/roidb/dataset.py": "",
    })
    assert resolve(root, "tools/train.py", "roidb.dataset") == "lib/roidb/dataset.py"


# --- packages and modules ----------------------------------------------------------------------------------------


def test_a_package_beside_the_script_is_found(tmp_path):
    root = make_project(tmp_path, {
        "experiments/cifar/train.py": "from models.resnet import ResNet\n",
        "experiments/cifar/models/__init__.py": "",
        "experiments/cifar/models/resnet.py": "",
    })
    assert resolve(root, "experiments/cifar/train.py", "models.resnet") == "experiments/cifar/models/resnet.py"
    assert resolve(root, "experiments/cifar/train.py", "models") == "experiments/cifar/models/__init__.py"


def test_a_relative_import_counts_from_the_importing_package(tmp_path):
    root = make_project(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/train.py": "from .data import build\n",
        "pkg/data.py": "",
    })
    assert resolve(root, "pkg/train.py", "data", level=1) == "pkg/data.py"
    assert resolve(root, "pkg/train.py", "", level=1) == "pkg/__init__.py"


def test_a_star_imported_project_module_is_resolved(tmp_path):
    root = make_project(tmp_path, {"train.py": "from misc import *  # noqa: F403\n", "misc.py": ""})
    assert resolve(root, "train.py", "misc") == "misc.py"


def test_a_local_datasets_module_shadows_the_installed_package(tmp_path):
    root = make_project(tmp_path, {"train.py": "from datasets import CocoDetection\n", "datasets.py": ""})
    assert resolve(root, "train.py", "datasets") == "datasets.py"


def test_a_local_datasets_package_shadows_the_installed_package(tmp_path):
    root = make_project(tmp_path, {
        "train.py": "from datasets.coco import CocoDetection\n",
        "datasets/__init__.py": "",
        "datasets/coco.py": "",
    })
    assert resolve(root, "train.py", "datasets.coco") == "datasets/coco.py"


def test_an_installed_package_is_a_libraries_not_the_projects(tmp_path):
    root = make_project(tmp_path, {"train.py": "import torch\nfrom datasets import load_dataset\n"})
    assert resolve(root, "train.py", "torch") is None
    assert resolve(root, "train.py", "datasets") is None


# --- never an exception ------------------------------------------------------------------------------------------


def test_an_unresolvable_import_is_none_not_an_exception(tmp_path):
    root = make_project(tmp_path, {
        "train.py": """
            import sys
            sys.path.append(compute_folder())  # not a static path: ignored
            sys.path.insert(0)  # malformed
            sys.path.extend(folders)  # not a literal list
            import nowhere.to.be.found
        """,
    })
    assert resolve(root, "train.py", "nowhere.to.be.found") is None
    assert resolve(root, "train.py", "not-an.identifier") is None
    assert resolve(root, "train.py", "") is None
    assert resolve(root, "train.py", "x", level=5) is None


def test_a_relative_import_above_the_project_root_is_none(tmp_path):
    (tmp_path / "x.py").write_text("", encoding="utf-8")  # (beside the project, not in it)
    (tmp_path / "proj").mkdir()
    root = make_project(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/train.py": "from ... import x\n"})
    assert resolve(root, "pkg/train.py", "x", level=3) is None
    assert resolve(root, "pkg/train.py", "", level=2) is None  # (the root is no package here)


def test_a_module_that_does_not_parse_leaves_its_importers_resolving(tmp_path):
    root = make_project(tmp_path, {
        "train.py": "import _init_paths\nimport data\n",
        "_init_paths.py": "def broken(:\n",
        "data.py": "",
    })
    assert resolve(root, "train.py", "data") == "data.py"


def test_a_cycle_of_path_helpers_terminates(tmp_path):
    # Each helper edits sys.path and imports the other first: the search of one needs the other's.
    root = make_project(tmp_path, {
        "train.py": "import paths_a\nimport loaders\n",
        "paths_a.py": """
            import sys
            import paths_b
            sys.path.append("lib_a")
        """,
        "paths_b.py": """
            import sys
            import paths_a
            sys.path.append("lib_b")
        """,
        "lib_a/loaders.py": "",
    })
    assert resolve(root, "train.py", "loaders") == "lib_a/loaders.py"
    assert resolve(root, "paths_a.py", "paths_b") == "paths_b.py"
    assert resolve(root, "paths_b.py", "paths_a") == "paths_a.py"


def test_a_cycle_of_imports_terminates_when_the_importers_are_listed(tmp_path):
    root = make_project(tmp_path, {
        "a.py": "import b\n",
        "b.py": "import c\n",
        "c.py": "import a\n",
    })
    project = Project()
    assert project.importers_of(str(root / "a.py"), 8) == [str(root / "c.py")]
    assert project.imported_files(str(root / "a.py")) == {str(root / "b.py")}


# --- more shapes of the search -----------------------------------------------------------------------------------


def test_a_pathlib_parents_sys_path_edit_adds_its_folder(tmp_path):
    root = make_project(tmp_path, {
        "app/scripts/train.py": """
            import sys
            from pathlib import Path
            sys.path.append(str(Path(__file__).resolve().parents[1] / "vendor"))
            import loaders
        """,
        "app/vendor/loaders.py": "",
    })
    assert resolve(root, "app/scripts/train.py", "loaders") == "app/vendor/loaders.py"


def test_a_relative_literal_sys_path_edit_counts_from_the_scripts_folder(tmp_path):
    root = make_project(tmp_path, {
        "app/scripts/train.py": """
            import sys
            sys.path.insert(0, "../vendor")
            import loaders
        """,
        "app/vendor/loaders.py": "",
    })
    assert resolve(root, "app/scripts/train.py", "loaders") == "app/vendor/loaders.py"


def test_a_sys_path_edit_inside_a_function_is_not_a_top_level_edit(tmp_path):
    root = make_project(tmp_path, {
        "app/scripts/train.py": """
            import sys


            def later():
                sys.path.append("../vendor")
                import loaders
        """,
        "app/vendor/loaders.py": "",
    })
    assert resolve(root, "app/scripts/train.py", "loaders") is None


def test_a_package_module_does_not_see_its_siblings_by_absolute_import(tmp_path):
    # `import helpers` in pkg/model.py, imported as pkg.model, finds no pkg/helpers.py (Python 3 has no implicit
    # relative imports); only a module run as a script has its own folder on the path.
    root = make_project(tmp_path, {
        "app/pkg/__init__.py": "",
        "app/pkg/model.py": "import helpers\n",
        "app/pkg/helpers.py": "",
        "app/pkg/run.py": "import helpers\n\nif __name__ == '__main__':\n    pass\n",
    })
    assert resolve(root, "app/pkg/model.py", "helpers") is None
    assert resolve(root, "app/pkg/run.py", "helpers") == "app/pkg/helpers.py"


def test_an_unguarded_package_module_that_reads_the_command_line_sees_its_own_folder(tmp_path):
    # BadLabels' eval_badlabels/LNL/dividemix.py: a folder with an `__init__.py`, a script with no main guard that
    # parses its arguments at top level and imports `loader.dataloader` from beside it (run as `python
    # dividemix.py` there).  Its own folder comes last, so what the package or the root holds is found first.
    root = make_project(tmp_path, {
        "eval/LNL/__init__.py": "",
        "eval/LNL/dividemix.py": """\
            import argparse
            import loader.dataloader as dataloader
            import helpers

            args = argparse.ArgumentParser().parse_args()
        """,
        "eval/LNL/argv.py": "import sys\nimport loader.dataloader\n\nmode = sys.argv[1]\n",
        "eval/LNL/loader/__init__.py": "",
        "eval/LNL/loader/dataloader.py": "",
        "eval/LNL/helpers.py": "",
        "helpers.py": "",
    })
    assert resolve(root, "eval/LNL/dividemix.py", "loader.dataloader") == "eval/LNL/loader/dataloader.py"
    assert resolve(root, "eval/LNL/argv.py", "loader.dataloader") == "eval/LNL/loader/dataloader.py"
    assert resolve(root, "eval/LNL/dividemix.py", "helpers") == "helpers.py"


def test_a_package_module_that_parses_arguments_only_in_a_function_does_not_see_its_own_folder(tmp_path):
    root = make_project(tmp_path, {
        "app/pkg/__init__.py": "",
        "app/pkg/options.py": "import helpers\n\ndef parse():\n    return PARSER.parse_args()\n",
        "app/pkg/helpers.py": "",
    })
    assert resolve(root, "app/pkg/options.py", "helpers") is None


def test_python_m_from_the_folder_above_the_top_package_resolves_absolute_imports(tmp_path):
    root = make_project(tmp_path, {
        "app/pkg/__init__.py": "",
        "app/pkg/train.py": "from pkg.data import build\n",
        "app/pkg/data.py": "",
    })
    assert resolve(root, "app/pkg/train.py", "pkg.data") == "app/pkg/data.py"


def test_the_importers_of_a_module_are_found_through_a_sys_path_edit(tmp_path):
    root = make_project(tmp_path, {
        "tools/train.py": """
            import sys
            sys.path.insert(0, "../lib")
            import weights
        """,
        "tools/evaluate.py": "import weights  # not on this script's path\n",
        "lib/weights.py": "",
    })
    assert Project().importers_of(str(root / "lib" / "weights.py"), 8) == [str(root / "tools" / "train.py")]


def test_a_candidate_importer_whose_imports_cannot_name_the_module_is_not_parsed(tmp_path, monkeypatch):
    """The search finds ``a.b`` only as ``<folder>/a/b.py`` or ``<folder>/a/b/__init__.py``: a file whose imports
    mention ``utils`` but name no path that ends so (``from torch import utils``, ``from other.utils import f``) is
    not parsed to be asked what it imports; the answer is the one the parse gives."""
    from winspawn_lint.analysis import imports

    root = make_project(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/utils.py": "",
        "pkg/model.py": "from . import utils\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/head.py": "from ..utils import identity\n",
        "other/__init__.py": "",
        "other/utils.py": "",
        "other/sub/tail.py": "from .. import utils\n",
        "train.py": "import pkg.utils.extra\n",
        "eval.py": "from pkg import (\n    model,\n    utils,\n)\n",
        "export.py": "from pkg import \\\n    utils\n",  # (the names continue on the next line)
        "bench.py": "from torch import utils\nfrom other.utils import f\n",
        "docs.py": "from torch.utils import data\n",
    })
    parsed = []
    bare = imports.import_facts_of_text
    monkeypatch.setattr(imports, "import_facts_of_text", lambda data: parsed.append(data) or bare(data))
    found = Project().importers_of(str(root / "pkg" / "utils.py"), 8)
    assert [Path(path).relative_to(root).as_posix() for path in found] == [  # (nearest first)
        "pkg/model.py", "pkg/sub/head.py", "eval.py", "export.py", "train.py"]
    assert not any(b"torch" in data or b"from .. import" in data for data in parsed)


# --- libraries where they are installed --------------------------------------------------------------------------


def test_a_module_where_libraries_are_installed_is_the_librarys(tmp_path):
    # A library checked in place (the standard library's own tests): `import multiprocessing` is the library the
    # registry describes, not a project file, though it sits above the script.
    root = make_project(tmp_path, {
        "lib/python3.11/test/bomb.py": "import multiprocessing\n",
        "lib/python3.11/multiprocessing/__init__.py": "",
        "lib/python3.11/site-packages/torch/__init__.py": "",
        "lib/python3.11/site-packages/torch/utils.py": "import torch\n",
    })
    assert resolve(root, "lib/python3.11/test/bomb.py", "multiprocessing") is None
    assert resolve(root, "lib/python3.11/site-packages/torch/utils.py", "torch") is None
    assert Project().root(str(root / "lib/python3.11/test/bomb.py")) != str(root)
