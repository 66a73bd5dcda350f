"""Helper for the e3 notebook repros: run "cells" (strings) the way a Jupyter kernel does.

IPython's InteractiveShell installs its user module as sys.modules['__main__'], a module with no
__file__, so spawned workers do not re-import anything for __main__ and must find pickled
functions/classes by reference there (as in a kernel: "<module '__main__' (built-in)>").
"""
import sys


def run_cells(cells):
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()
    for i, code in enumerate(cells, 1):
        res = shell.run_cell(code, silent=False)
        if not res.success:
            err = res.error_in_exec or res.error_before_exec
            print(f"CELL {i} FAILED: {type(err).__name__}: {err}")
            return 1
    print("ALL CELLS OK")
    return 0
