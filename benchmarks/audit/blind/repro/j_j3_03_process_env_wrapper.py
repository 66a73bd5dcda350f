"""j3 shape 03 (learn2learn gym/envs/subproc_vec_env.py + examples/rl/maml_trpo.py): an
mp.Process subclass calls env_fn() in __init__ (parent) and stores the env; under spawn the
Process object, env included, is pickled. A cherry-like wrapper whose __getattr__ delegates to
self.env recurses while being unpickled in the child.
cases: wrapper_env (hazard), plain_env (safe), local_factory (safe: local make_env only called in the parent)."""
import sys
import multiprocessing as mp


class PlainEnv:
    def __init__(self):
        self.state = 0

    def step(self):
        self.state += 1
        return self.state


class Wrapper:  # like cherry.envs.base.Wrapper
    def __init__(self, env):
        self.env = env

    def __getattr__(self, attr):
        return getattr(self.env, attr)


class EnvWorker(mp.Process):
    def __init__(self, remote, env_fn):
        super().__init__()
        self.remote = remote
        self.env = env_fn()

    def run(self):
        self.remote.send(self.env.step())


def run(case):
    wrap = case == "wrapper_env"
    if case not in ("wrapper_env", "plain_env", "local_factory"):
        raise SystemExit("unknown case")

    def make_env():  # local function, like maml_trpo.main.make_env
        env = PlainEnv()
        return Wrapper(env) if wrap else env

    parent, child = mp.Pipe()
    w = EnvWorker(child, make_env)
    w.daemon = True
    w.start()
    if parent.poll(20):
        print("OK", case, parent.recv())
    else:
        print("FAIL", case, "no reply from worker (exitcode %s)" % w.exitcode)
        sys.exit(1)
    w.join(5)


if __name__ == "__main__":
    run(sys.argv[1])
