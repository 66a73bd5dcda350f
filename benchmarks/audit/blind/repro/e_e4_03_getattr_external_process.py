"""Shape of batch-ppo agents/tools/wrappers.py ExternalProcess: Process(target=self._worker, ...)
pickles the wrapper object (bound method); the class defines __getattr__ that forwards to self._conn.
Unpickling in a spawned child looks up __setstate__ on an empty instance -> __getattr__ -> self._conn
-> __getattr__ ... RecursionError, even with a picklable constructor.
Cases: getattr_bound_method (hazard), plain_bound_method (safe twin, no __getattr__)."""
import functools
import multiprocessing
import sys


class Env(object):
    def step(self, a):
        return a


def make_env(cfg):
    return Env()


class ExternalProcessBase(object):
    def __init__(self, constructor):
        self._conn, conn = multiprocessing.Pipe()
        self._process = multiprocessing.Process(target=self._worker, args=(constructor, conn))
        self._process.start()

    def call(self, name):
        self._conn.send(name)
        return self._conn.recv()

    def _worker(self, constructor, conn):
        env = constructor()
        name = conn.recv()
        conn.send(getattr(env, name) is not None)


class ExternalProcess(ExternalProcessBase):
    def __getattr__(self, name):
        self._conn.send(name)
        return self._conn.recv()


if __name__ == "__main__":
    case = sys.argv[1] if len(sys.argv) > 1 else "getattr_bound_method"
    constructor = functools.partial(make_env, {"env": "Pendulum"})
    cls = {"getattr_bound_method": ExternalProcess, "plain_bound_method": ExternalProcessBase}[case]
    e = cls(constructor)
    try:
        print("RESULT", e.call("step"), flush=True)
    except Exception as exc:
        print("PARENT", type(exc).__name__, exc, flush=True)
    e._process.join(10)
    print("EXITCODE", e._process.exitcode, flush=True)
