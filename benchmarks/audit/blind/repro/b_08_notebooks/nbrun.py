"""b_08 runner: executes a notebook's code cells in an IPython InteractiveShell, as a Jupyter kernel does
(the user namespace becomes sys.modules['__main__'], with no __file__: spawned workers cannot import it).

    python nbrun.py CASE [NOTEBOOK]

Cases: class_dataset, notebook_fn_in_transform, collate_def, local_class, local_lambda_target, h5py_class,
pool_bound_method (hazards); library_dataset, workers0, notebook_model_not_sent (safe twins)."""
import os
import sys

import nbformat
from IPython.core.interactiveshell import InteractiveShell

HERE = os.path.dirname(os.path.abspath(__file__))


def main(case, path):
    shell = InteractiveShell.instance(colors="NoColor")
    shell.user_ns.update(CASE=case, HELPER_DIR=HERE)
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        result = shell.run_cell(cell.source)
        if not result.success:
            err = result.error_in_exec or result.error_before_exec
            print(f"{type(err).__name__}: {err}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "b08_cases.ipynb")))
