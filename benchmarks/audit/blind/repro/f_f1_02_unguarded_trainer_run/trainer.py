import os
from dataset import load_iterators


class Trainer:
    def __init__(self, lines):
        self.lines = lines

    def run(self):
        n = 0
        for batch in load_iterators(self.lines):
            n += batch.shape[0]
        print("trained on", n, "samples", flush=True)
