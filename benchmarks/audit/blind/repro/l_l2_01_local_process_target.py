"""Shape of LAformer dataloader_nuscenes.py / dataset_argoverse.py: a preprocessing
method defines its Process target locally (WSP202), and the target reads a module
global that only the parent binds at run time via `global` (WSP107).
Cases: local_target (hazard), runtime_global (hazard), module_target (safe twin)."""
import multiprocessing
import sys
from multiprocessing import Process

am = None  # bound at run time by Extractor.__init__ (like `global am; am = ArgoverseMap()`)


def get_sub_map(x):
    return am["scale"] * x  # worker reads the run-time global


def module_target_runtime_global(queue, queue_res):
    i = queue.get()
    queue_res.put(get_sub_map(i))


def module_target(queue, queue_res, scale):
    i = queue.get()
    queue_res.put(scale * i)


class Extractor:
    def __init__(self, cores=2):
        global am
        am = {"scale": 10}
        self.cores = cores

    def extract(self, case):
        queue = multiprocessing.Queue(self.cores)
        queue_res = multiprocessing.Queue()
        if case == "local_target":
            def run(queue, queue_res):  # local function as Process target
                i = queue.get()
                queue_res.put(i * 2)
            procs = [Process(target=run, args=(queue, queue_res)) for _ in range(self.cores)]
        elif case == "runtime_global":
            procs = [Process(target=module_target_runtime_global, args=(queue, queue_res)) for _ in range(self.cores)]
        else:
            procs = [Process(target=module_target, args=(queue, queue_res, 10)) for _ in range(self.cores)]
        for p in procs:
            p.start()
        for i in range(self.cores):
            queue.put(i + 1)
        out = []
        for _ in range(self.cores):
            out.append(queue_res.get(timeout=20))
        for p in procs:
            p.join()
        return sorted(out)


if __name__ == "__main__":
    case = sys.argv[1]
    print("result", Extractor(cores=2).extract(case))
    print("OK")
