"""a_13: collate functions handed to DataLoader(num_workers>0).

Cases: lambda_collate (collate_fn=lambda in the training function, DMPR-PS train.py), subclass_lambda
(DataLoaderMasking from loaders.py, pretrain-gnns), local_def (def collate_fn in main(), lora training
scripts, bert-classification-tutorial); safe twins: local_def_workers0 (the local def with the default 0
workers, lora cli_lora_pti.py), local_helper (local functions used only by the parent, bert
clone_state_dict/evaluate), module_fn."""
import sys

import torch
from torch.utils.data import DataLoader

from loaders import DataLoaderMasking


def collate(batch):
    return torch.stack(batch)


def main(case, data=list(torch.arange(8.0))):
    def collate_fn(examples):
        return torch.stack(examples)

    def clone_state_dict(model):
        return {k: v.clone() for k, v in model.state_dict().items()}

    if case == "lambda_collate":
        loader = DataLoader(data, batch_size=4, num_workers=2, collate_fn=lambda x: torch.stack(x))
    elif case == "subclass_lambda":
        loader = DataLoaderMasking(data, batch_size=4, shuffle=False, num_workers=2)
    elif case in ("local_def", "local_def_workers0"):
        loader = DataLoader(data, batch_size=4, collate_fn=collate_fn,
                            num_workers=2 if case == "local_def" else 0)
    else:
        loader = DataLoader(data, batch_size=4, num_workers=2, collate_fn=collate)
    total = sum(b.sum().item() for b in loader)
    if case == "local_helper":
        total += len(clone_state_dict(torch.nn.Linear(1, 1)))
    print("sum", total)


if __name__ == "__main__":
    main(sys.argv[1])
