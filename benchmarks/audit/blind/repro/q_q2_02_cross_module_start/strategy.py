class Strategy:                       # query_strategies/strategy.py
    def __init__(self, dataset, net):
        self.dataset, self.net = dataset, net

    def train(self):
        self.net.train(self.dataset)
