from torch import nn
class RelationModule(nn.Module):
    def __init__(self, c=4, s=8, padding=0):
        super().__init__()
        shrink_s = lambda s: int((int((s - 2 + 2 * padding) / 2) - 2 + 2 * padding) / 2)   # parent only
        self.fc = nn.Linear(c * shrink_s(s) * shrink_s(s), 1)
