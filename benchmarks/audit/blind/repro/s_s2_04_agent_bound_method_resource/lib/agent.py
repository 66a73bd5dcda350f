"""Mimics khrylib/rl/agents/agent.py: Agent.sample starts nthreads-1 processes whose target is the bound
method self.sample_worker, so the whole agent is pickled for each worker."""
import multiprocessing


class Agent:
    def __init__(self, env, num_threads=1):
        self.env = env
        self.num_threads = num_threads

    def sample_worker(self, pid, queue, num_samples):
        out = [self.env * pid for _ in range(num_samples)]
        if queue is not None:
            queue.put((pid, out))
        return out

    def sample(self, num_samples):
        queue = multiprocessing.Queue()
        procs = []
        for i in range(self.num_threads - 1):
            p = multiprocessing.Process(target=self.sample_worker, args=(i + 1, queue, num_samples))
            p.start()
            procs.append(p)
        results = [self.sample_worker(0, None, num_samples)]
        for _ in procs:
            results.append(queue.get()[1])
        for p in procs:
            p.join()
        return results
