from data_factory import data_provider


class Exp_Classification:
    def __init__(self, args):
        self.args = args

    def train(self):
        _, train_loader = data_provider(self.args, "train")
        n = 0
        for batch_x, label in train_loader:
            n += batch_x.shape[0]
        return n
