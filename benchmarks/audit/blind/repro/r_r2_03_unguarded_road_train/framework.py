# mimics DeepGlobe framework.MyFrame: builds the net (resnet34(pretrained=True) in the repo) and
# torch.load()s a checkpoint in __init__ -- heavy work, here a marker line and a small sleep
import os
import time

import torch


class MyFrame:
    def __init__(self):
        print("HEAVY-MODEL-BUILD pid=%d" % os.getpid(), flush=True)
        time.sleep(0.2)
        self.net = torch.nn.Linear(4, 1)
