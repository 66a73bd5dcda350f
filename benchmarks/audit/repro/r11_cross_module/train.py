"""r11: values cross functions and modules before they reach DataLoader workers.

Cases: target_lambda = target_transform=lambda handed to data.make_dataset, loader built by
data.make_data_loader (dataset wrapped in ConcatDataset/Subset/random_split); local_def = the
dataset comes from a helper whose transform is a nested def; safe = module-level transform.
"""
import sys

from data import add_one, make_data_loader, make_dataset, make_local_transform_dataset


def do_train(case):
    if case == "target_lambda":
        dataset = make_dataset(target_transform=lambda _: ())
    elif case == "local_def":
        dataset = make_local_transform_dataset(1)
    else:
        dataset = make_dataset(transform=add_one)
    loader = make_data_loader(dataset, num_workers=2)
    print("batches", sum(1 for _ in loader))


if __name__ == "__main__":
    do_train(sys.argv[1])
