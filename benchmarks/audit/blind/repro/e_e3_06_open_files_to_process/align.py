"""Like Bleualign bleualign/align.py: Aligner opens its input files in __init__; mainloop (when
num_processes > 1) starts Process-subclass consumers that get self.log (a bound method, so the
Aligner with its open files) and a producer Process that gets the open files as arguments."""
import io
import multiprocessing
import sys
import time


def tasks_producer(tasks, data, num_processes):
    src, target = data
    for i, pair in enumerate(zip(src, target)):
        tasks.put((i, pair), True)
    for _ in range(num_processes):
        tasks.put((None, None))


class Aligner:
    default_options = {"srcfile": None, "targetfile": None, "num_processes": 1, "log_to": sys.stdout}

    def __init__(self, options, log_style="method"):
        self.options = dict(self.default_options, **options)
        if log_style != "method":
            self.options["log_to"] = None
        self.src = io.open(self.options["srcfile"], "r", encoding="UTF-8")
        self.target = io.open(self.options["targetfile"], "r", encoding="UTF-8")
        self.log_style = log_style

    def log(self, msg):
        print(msg, file=self.options["log_to"] or sys.stdout)

    def mainloop(self, producer_args="files"):
        n = self.options["num_processes"]
        if n > 1:
            tasks = multiprocessing.Queue(n + 1)
            manager = multiprocessing.Manager()
            scores = manager.dict()
            log = self.log if self.log_style == "method" else print
            scorers = [AlignMultiprocessed(tasks, scores, log) for _ in range(n)]
            for p in scorers:
                p.start()
            data = (self.src, self.target) if producer_args == "files" else \
                (self.src.read().splitlines(), self.target.read().splitlines())
            producer = multiprocessing.Process(target=tasks_producer, args=(tasks, data, n))
            producer.start()
            producer.join()
            for p in scorers:
                p.join()
            print("aligned", dict(scores))
        else:
            print("aligned serially", [(a.strip(), b.strip()) for a, b in zip(self.src, self.target)])


class AlignMultiprocessed(multiprocessing.Process):
    def __init__(self, tasks, scores, log):
        super().__init__()
        self.tasks, self.scores, self.log = tasks, scores, log

    def run(self):
        i, data = self.tasks.get()
        while i is not None:
            self.scores[i] = data
            i, data = self.tasks.get()
