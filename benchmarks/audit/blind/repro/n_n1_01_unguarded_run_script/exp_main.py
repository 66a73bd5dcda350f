from data_factory import data_provider


class Exp_Main:
    def __init__(self, args):
        self.args = args

    def train(self, setting):
        _, loader = data_provider(self.args, "train")
        n = 0
        for batch in loader:
            n += batch.shape[0]
        print("trained on", n, "samples")
