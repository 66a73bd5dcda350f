"""Mimics DeepHistReg affine_registration.py training(). Cases:
 hazard_local_function   transforms = aug.affine_augmentation(params) (a local def) kept by the dataset, num_workers=4 (here 2)
 safe_partial            the same through functools.partial of a module-level function
 safe_parent_lambda      LambdaLR(optimizer, lambda epoch: ...) used only in the parent, no transforms
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch
import augmentation as aug
import dataloaders as dl


def training(case):
    model = torch.nn.Linear(2, 2)
    optimizer = torch.optim.Adam(model.parameters(), 1e-3)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda epoch: 0.995 ** epoch)
    params = {"scale": 1.0}
    if case == "hazard_local_function":
        transforms = aug.affine_augmentation(params, True)
    elif case == "safe_partial":
        transforms = aug.affine_augmentation_picklable(params, True)
    elif case == "safe_parent_lambda":
        transforms = None
    else:
        raise SystemExit("unknown case")
    loader = torch.utils.data.DataLoader(dl.UnsupervisedLoader(8, transforms=transforms), batch_size=2, shuffle=True,
                                         num_workers=2, collate_fn=dl.collate_to_list_unsupervised)
    for epoch in range(2):
        n = sum(1 for _ in loader)
        scheduler.step()
    print("OK batches", n)


if __name__ == "__main__":
    training(sys.argv[1])
