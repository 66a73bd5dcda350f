"""Shape d_d1_08 (easy-few-shot-learning notebooks): emulates a Jupyter kernel (its __main__ has no file, so a
spawned worker cannot re-import it) running the cells at top level.
cases: get_labels_lambda (hazard: `test_set.get_labels = lambda: [...]` patched on the dataset in a cell, then
DataLoader(batch_sampler=TaskSampler, num_workers=12 -> 2) pickles the dataset with its lambda attribute),
library_dataset (safe: library dataset with a get_labels method, library sampler/collate, workers),
kernel_model_class (safe: a class defined in a cell is used only in the kernel; workers get library objects)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import __main__
if hasattr(__main__, "__file__"):
    del __main__.__file__          # a notebook kernel's __main__ has no __file__
__main__.__spec__ = None

import torch
from torch import nn
from torch.utils.data import DataLoader
from fsl_lib import Omniglot, CUB, TaskSampler

case = sys.argv[1]
if case not in ("get_labels_lambda", "library_dataset", "kernel_model_class"):
    raise SystemExit("unknown case " + case)

# --- cell: dataset
test_set = Omniglot() if case == "get_labels_lambda" else CUB()

# --- cell: the sampler needs get_labels
if case == "get_labels_lambda":
    test_set.get_labels = lambda: [instance[1] for instance in test_set._flat_character_images]
test_sampler = TaskSampler(test_set, n_way=3, n_shot=2, n_tasks=4)
test_loader = DataLoader(test_set, batch_sampler=test_sampler, num_workers=2,
                         collate_fn=test_sampler.episodic_collate_fn)


# --- cell: a model class defined in the notebook
class PrototypicalNetworks(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Linear(1, 2)

    def forward(self, x):
        return self.backbone(x)


model = PrototypicalNetworks()

# --- cell: iterate
images, labels = next(iter(test_loader))
if case == "kernel_model_class":
    model(images.unsqueeze(1))
print("OK batch", tuple(images.shape), labels.tolist())
