"""Mimics CnOCR cnocr/dataset_utils.py: map(local fn, num_proc) (dill: fine) and set_transform(local closure)
on a HF datasets.Dataset that a torch DataLoader(num_workers) pickles with the standard pickler."""
import torch
from datasets import Dataset


def preprocess(x):
    return x * 2


def apply_transforms(x, transforms):
    return transforms(torch.tensor(x))


def create_transform_func(transforms):  # cnocr/dataset_utils.py:54-62
    def transform_func(examples):
        examples["t"] = [apply_transforms(x, transforms) for x in examples["x"]]
        return examples
    return transform_func


class TransformFunc:  # safe twin: a module-level callable class
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, examples):
        examples["t"] = [apply_transforms(x, self.transforms) for x in examples["x"]]
        return examples


def neg(t):
    return -t


def gen_dataset(case, num_workers):
    ds = Dataset.from_dict({"x": [1, 2, 3, 4], "labels": ["a", "b", "c", "d"]})

    def map_func(examples):  # cnocr/dataset_utils.py:95, shipped by dill to num_proc workers
        examples["x"] = [preprocess(v) for v in examples["x"]]
        return examples

    ds = ds.map(map_func, batched=True, num_proc=num_workers if num_workers > 0 else None)
    if case == "local_transform":
        ds.set_transform(create_transform_func(neg))
    elif case in ("class_transform", "map_local_only"):
        ds.set_transform(TransformFunc(neg))
    return ds


def collate_fn(examples):
    return torch.stack([e["t"] for e in examples])
