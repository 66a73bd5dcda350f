# Mimics crowd-density-estimation src/trainer.py: Trainer.fit() iterates the loader.
class Trainer:
    def __init__(self, params):
        self.train_dl = params["train_dl"]

    def train_epoch(self):
        return sum(len(b) for b in self.train_dl)

    def fit(self):
        return [self.train_epoch() for _ in range(1)]
