"""Shape (Qwen3-Coder fim-bench eval_metric.py): module global `parser = None`; compute_metric_stmt() does
`global parser; parser = Parser()` in the parent, then torch.multiprocessing Pool.imap_unordered(partial(process_examples, task))
whose worker reads the global. Spawned workers see parser=None; the real code swallows the error (get_ast returns None)
so every sample is silently 'not_parseable'; here the worker reports what it saw. Safe twin: pass the parser config in
the partial / build it in a Pool initializer. Cases: hazard | safe"""
import sys
from functools import partial
import torch.multiprocessing as mp

parser = None

class Parser:
    def __init__(self, lang): self.lang = lang
    def parse(self, code): return f"{self.lang}:{len(code)}"

def process_examples(task, sample):
    global parser
    try:
        return parser.parse(sample)
    except Exception:
        return None          # mimics get_ast(): exception -> None -> "not_parseable"

def process_examples_safe(task, lang, sample):
    return Parser(lang).parse(sample)

def compute_metric_stmt(case):
    global parser
    parser = Parser("python")
    worker = partial(process_examples, "function_completion") if case == "hazard" else \
        partial(process_examples_safe, "function_completion", "python")
    with mp.Pool(2) as pool:
        out = list(pool.imap_unordered(worker, ["a", "bb", "ccc"]))
    bad = sum(o is None for o in out)
    print("parsed", len(out) - bad, "unparseable", bad)
    sys.exit(1 if bad else 0)

if __name__ == "__main__":
    compute_metric_stmt(sys.argv[1])
