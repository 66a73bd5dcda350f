"""Like channel-pruning lib/worker.py: Worker.do wraps the target in a local function `job` and
starts multiprocessing.Process(target=job); the Worker keeps an mp.Queue made in __init__ that is
passed to the Process as a keyword argument (fine: queues may be passed when a process starts)."""
import multiprocessing as mp


def _job(queue, target, **kwargs):
    queue.put(target(**kwargs))


class Worker:
    def __init__(self, style="local"):
        self.mp_queue = mp.Queue()
        self.style = style

    def do(self, target, **mp_kwargs):
        def job(queue, **kwargs):
            ret = target(**kwargs)
            queue.put(ret)
        mp_kwargs["queue"] = self.mp_queue
        if self.style == "local":
            p = mp.Process(target=job, kwargs=mp_kwargs)
        else:
            p = mp.Process(target=_job, kwargs=dict(mp_kwargs, target=target))
        p.start()
        result = self.mp_queue.get()
        p.join()
        return result
