class Model:
    def __init__(self, opt, dataloader):
        self.opt, self.dataloader = opt, dataloader

    def train(self):
        total = 0.0
        for (x,) in self.dataloader["train"]:
            total += x.sum().item()
        print("sum", total)
