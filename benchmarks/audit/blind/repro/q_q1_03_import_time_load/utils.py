import os
import torch


def load_network(path):
    print("load_network in pid", os.getpid(), flush=True)
    net = torch.nn.Linear(4, 2)
    net.load_state_dict(torch.load(path))
    return net
