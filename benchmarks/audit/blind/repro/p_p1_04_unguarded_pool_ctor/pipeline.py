# mimics DrQA drqa/pipeline/drqa.py and drqa/reader/predictor.py: constructor starts a Pool with initializer
from multiprocessing import Pool as ProcessPool
PROCESS_TOK = None

def init(tok_class):
    global PROCESS_TOK
    PROCESS_TOK = tok_class()

class SimpleTok:
    def tokenize(self, s):
        return s.split()

def tokenize(text):
    return PROCESS_TOK.tokenize(text)

class DrQA:
    def __init__(self, num_workers=None):
        if num_workers is None or num_workers > 0:
            self.processes = ProcessPool(num_workers or 2, initializer=init, initargs=(SimpleTok,))
        else:
            self.processes = None
            init(SimpleTok)

    def process(self, qs):
        if self.processes is None:
            return [tokenize(q) for q in qs]
        return self.processes.map(tokenize, qs)
