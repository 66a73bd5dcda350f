"""A model package reached only through a sys.path edit; its constructor loads pretrained weights."""
import os
import tempfile

import torch
from torch import nn

WEIGHTS = os.path.join(tempfile.gettempdir(), "b02_backbone.pt")


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        if not os.path.exists(WEIGHTS):
            torch.save(nn.Linear(4, 4).state_dict(), WEIGHTS)
        print("LOADING pretrained backbone", flush=True)
        self.fc.load_state_dict(torch.load(WEIGHTS))


class SegNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = Backbone()
