"""c_c2_07: GraphIE sentence-level/dispatcher_twitter.py shape: the Process target and its helper are defined
inside `if __name__ == "__main__":`.

Cases:
  hazard              def worker under the guard, Process(target=worker, ...).start()          (WSP106)
  helper_under_guard  worker moved to module level, but it calls launch_experiment, still
                      defined under the guard: NameError in the child                           (WSP106)
  safe                both functions at module level
"""
import multiprocessing
import sys

CASE = sys.argv[1]


def worker_top(gpu, queue, done_queue):
    while True:
        cur_args = queue.get()
        if cur_args is None:
            return
        done_queue.put(launch_experiment(gpu, cur_args))


if CASE == "safe":
    def launch_experiment(gpu, cur_args):
        return f"gpu{gpu}:{cur_args}"

if __name__ == "__main__":
    if CASE != "safe":
        def launch_experiment(gpu, cur_args):
            return f"gpu{gpu}:{cur_args}"

    def worker(gpu, queue, done_queue):
        while True:
            cur_args = queue.get()
            if cur_args is None:
                return
            done_queue.put(launch_experiment(gpu, cur_args))

    target = worker if CASE == "hazard" else worker_top
    job_queue, done_queue = multiprocessing.Queue(), multiprocessing.Queue()
    for a in ("lr=1e-3", "crf=True"):
        job_queue.put(a)
    job_queue.put(None)
    p = multiprocessing.Process(target=target, args=(0, job_queue, done_queue))
    p.start()
    p.join(30)
    if p.exitcode != 0:
        raise SystemExit(f"worker exit code {p.exitcode}")
    print("done", done_queue.get(timeout=5), done_queue.get(timeout=5))
