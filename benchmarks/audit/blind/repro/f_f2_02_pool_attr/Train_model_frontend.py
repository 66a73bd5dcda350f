class Train_model_frontend:
    def __init__(self, data):
        self.train_loader = data['train_loader']

    def train(self):
        n = 0
        for sample in self.train_loader:
            n += len(sample)
        return n
