"""Mimics im2mesh/checkpoints.py / esac ExpertEnsemble.load_experts: torch.load in a project module."""
import os
import torch

COUNTER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "load_count.txt")


def load_checkpoint(path):
    if not os.path.exists(path):
        torch.save({"w": torch.zeros(10)}, path)
    with open(COUNTER, "a") as f:
        f.write("%d\n" % os.getpid())
    return torch.load(path)
