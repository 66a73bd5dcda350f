"""cases:
  local_job          Worker.do's local `job` as Process target (hazard, WSP202, 2 modules)
  local_step         module-level _job, but the step is defined inside c3() (hazard, WSP202)
  module_step        module-level _job and module-level step0; mp.Queue kept by Worker (safe)
"""
import sys

from worker import Worker


def step0(pt, model):
    return {"pt": pt + "-frozen", "model": model}


def c3(case):
    def solve(pt, model):
        return {"WPQ": len(pt), "model": model}
    worker = Worker("local" if case == "local_job" else "module")
    out = worker.do(step0, pt="vgg.prototxt", model="vgg.caffemodel")
    if case != "module_step":
        out = worker.do(solve, **out)
    print(out)


if __name__ == "__main__":
    c3(sys.argv[1])
