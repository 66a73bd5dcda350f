"""Probe: definitions made in a real Jupyter kernel, sent to workers by one pool of each pickler.

    python -m winspawn_lint.spawnrun --start-method spawn benchmarks/pools/probe_notebook.py [--api multiprocess.Pool]

The other probes emulate a notebook's definitions by defining them under the main guard; this one runs the cells in
an ipykernel (started with jupyter_client, which inherits the emulated start method through the environment), whose
``__main__`` has no ``__file__``: a spawned worker has no script to re-import at all.  Each API runs in one kernel;
every payload is a name defined in the kernel's cells:

* ``nb_fn``: a function that imports what it uses inside its body;
* ``nb_global``: a function that reads a global of the notebook (``OFFSET = 1``);
* ``nb_import``: a function that uses modules imported in an earlier cell (``os``, ``sys``), as notebook code does;
* ``nb_lambda``: a lambda assigned in a cell;
* ``nb_instance``: an instance of a class defined in a cell, called.

The rows the kernel prints are translated so that the kernel counts as the main process: "forked worker" means the
worker inherited the kernel's memory.
"""
import json
import os
import sys

import _harness

_harness.record_import(__name__)
_harness.require("jupyter_client")
_harness.require("ipykernel")

SETUP = r'''
import os, sys, json
PROBE_PARENT = os.getpid()
OFFSET = 1

def nb_fn(x):
    import os, sys
    return [x + 1, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]

def nb_global(x):
    import os, sys
    return [x + OFFSET, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]

def nb_import(x):
    return [x + 1, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]

nb_lambda = lambda x: [x + 1, __import__("os").getpid(), getattr(__import__("sys").modules["__main__"], "PROBE_PARENT", None)]

class NbClass:
    def __call__(self, x):
        import os, sys
        return [x + 1, os.getpid(), getattr(sys.modules["__main__"], "PROBE_PARENT", None)]

nb_instance = NbClass()
INPUTS = [1, 2]
'''

#: API name -> the cell that ships PAYLOAD to one worker over INPUTS and binds the rows to ROWS
APIS = {
    "multiprocessing.Pool": "import multiprocessing\n"
                            "with multiprocessing.Pool(1) as pool:\n"
                            "    ROWS = pool.map(PAYLOAD, INPUTS)\n",
    "multiprocess.Pool": "import multiprocess\n"
                         "with multiprocess.Pool(1) as pool:\n"
                         "    ROWS = pool.map(PAYLOAD, INPUTS)\n",
    "loky.get_reusable_executor": "import loky\n"
                                  "ROWS = list(loky.get_reusable_executor(max_workers=1).map(PAYLOAD, INPUTS))\n",
    "dask compute(scheduler='processes')": "import dask\n"
                                           "ROWS = list(dask.compute(*[dask.delayed(PAYLOAD, pure=False)(x) "
                                           "for x in INPUTS], scheduler='processes', num_workers=1))\n",
}
REQUIRES = {"multiprocess.Pool": "multiprocess", "loky.get_reusable_executor": "loky",
            "dask compute(scheduler='processes')": "dask"}


class Kernel:
    """One ipykernel, started at the first case; interrupted (or restarted) after a case that hangs."""

    def __init__(self):
        self.km = self.kc = None

    def start(self):
        from jupyter_client.manager import start_new_kernel

        self.km, self.kc = start_new_kernel(kernel_name="python3", cwd=os.path.dirname(os.path.abspath(__file__)))
        self.run(SETUP, 60)
        self.pid = int(self.run("print(os.getpid())", 30).strip())

    def run(self, code, timeout):
        out, errors = [], []

        def hook(msg):
            kind, content = msg["header"]["msg_type"], msg["content"]
            if kind == "stream" and content.get("name") == "stdout":
                out.append(content["text"])
            elif kind == "error":
                errors.append((content["ename"], content["evalue"]))

        try:
            self.kc.execute_interactive(code, timeout=timeout, output_hook=hook)
        except TimeoutError:
            self.km.interrupt_kernel()
            try:
                self.kc.execute_interactive("pass", timeout=10)
            except TimeoutError:
                self.km.restart_kernel(now=True)
                self.kc.wait_for_ready(timeout=60)
                self.run(SETUP, 60)
            raise _harness.Hang(f"no result in {timeout:g}s (kernel interrupted)")
        if errors:  # raised again here under the kernel's exception name
            name, value = errors[-1]
            raise type(name if name.isidentifier() else "KernelError", (Exception,), {})(value[:300])
        return "".join(out)

    def ship(self, api, name, timeout):
        cell = f"PAYLOAD = {name}\n{APIS[api]}print('ROWS' + json.dumps(ROWS))\n"
        printed = self.run(cell, timeout)
        line = next(line for line in printed.splitlines() if line.startswith("ROWS"))
        me = os.getpid()
        # the kernel is the "main process" here: translate its pid, where it appears, to the probe's
        return [[y, me if pid == self.pid else pid, me if mark == self.pid else mark]
                for y, pid, mark in json.loads(line[4:])]

    def stop(self):
        if self.km is not None:
            self.kc.stop_channels()
            self.km.shutdown_kernel(now=True)


if __name__ == "__main__":
    import importlib.util

    kernel = Kernel()
    if "--list" not in sys.argv:
        kernel.start()  # before the cases, whose timeouts should not include a kernel's start-up
    timeout = _harness.CASE_TIMEOUT + 2  # the kernel is given 4 s less, and is interrupted when it runs out
    apis = {}
    for api in APIS:
        needed = REQUIRES.get(api)
        if needed and importlib.util.find_spec(needed) is None:
            _harness.emit({"note": f"{needed} is not installed: `{api}` is skipped"})
            continue
        apis[api] = lambda name, api=api: kernel.ship(api, name, timeout - 4)
    _harness.main(
        "notebook (ipykernel)", "ipykernel",
        apis=apis,
        payloads={name: name for name in ("nb_fn", "nb_global", "nb_import", "nb_lambda", "nb_instance")},
        timeouts={api: timeout for api in apis},
        cleanup=kernel.stop,
    )
