"""r02: local defs reaching DataLoader workers through HF datasets with_transform and collate_fn
(diffusers text_to_image / controlnet shape).

Cases: transform = local preprocess stored by with_transform, module-level collate;
collate = module-level preprocess, local collate_fn; safe = both module-level (partial for bound values).
"""
import functools
import sys

import torch
from datasets import Dataset
from torch.utils.data import DataLoader


def preprocess(examples, scale):
    examples["y"] = [v * scale for v in examples["x"]]
    return examples


def collate(examples):
    return torch.tensor([e["y"] for e in examples])


def make_train_dataset(case, scale):
    ds = Dataset.from_dict({"x": list(range(8))})
    if case == "transform":
        def preprocess_train(examples):
            examples["y"] = [v * scale for v in examples["x"]]
            return examples
        return ds.with_transform(preprocess_train)
    return ds.with_transform(functools.partial(preprocess, scale=scale))


def main(case):
    train_dataset = make_train_dataset(case, 3)
    if case == "collate":
        def collate_fn(examples):
            return torch.tensor([e["y"] for e in examples])
    else:
        collate_fn = collate
    loader = DataLoader(train_dataset, batch_size=4, collate_fn=collate_fn, num_workers=2)
    print("sum", sum(batch.sum().item() for batch in loader))


if __name__ == "__main__":
    main(sys.argv[1])
