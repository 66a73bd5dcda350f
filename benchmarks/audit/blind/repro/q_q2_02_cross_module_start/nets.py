from torch.utils.data import DataLoader


class Net:                            # deep-active-learning nets.py / active_learning_course models.py
    def __init__(self, params):
        self.params = params

    def train(self, data):
        loader = DataLoader(data, shuffle=True, **self.params["train_args"])
        n = 0
        for epoch in range(self.params["n_epoch"]):
            for x, y, idxs in loader:
                n += 1
        print("OK batches", n)
