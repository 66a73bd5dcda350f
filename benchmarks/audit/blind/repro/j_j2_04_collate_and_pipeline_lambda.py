# mimics CLIP_benchmark: webdataset_builder.convert_dataset passes collate_fn=lambda to DataLoader(num_workers=8)
# (guarded main), and datasets/builder.build_wds_dataset builds a pipeline dataset that keeps a lambda
# (nodesplitter=lambda src: src) which cli.py's DataLoader(num_workers=args.num_workers default 4) pickles.
# cases: collate_lambda (hazard), pipeline_lambda (hazard), module_collate (safe), pipeline_func (safe)
import sys
import torch
from torch.utils.data import DataLoader, IterableDataset


class Pipeline(IterableDataset):          # stands in for wds.WebDataset (a DataPipeline of stages)
    def __init__(self, items, nodesplitter):
        self.items = items
        self.stages = [nodesplitter]

    def __iter__(self):
        src = self.items
        for s in self.stages:
            src = s(src)
        return iter(src)


def identity_split(src):
    return src


def collate_first(batch):
    return batch[0]


def convert_dataset(dataset, safe):
    dataloader = DataLoader(dataset, batch_size=1, num_workers=2,
                            collate_fn=collate_first if safe else (lambda batch: batch[0]))
    return [x for x in dataloader]


def build_wds_dataset(safe):
    return Pipeline(list(range(4)), nodesplitter=identity_split if safe else (lambda src: src))


def main(case):
    if case in ('collate_lambda', 'module_collate'):
        convert_dataset(list(range(6)), safe=(case == 'module_collate'))
    else:
        ds = build_wds_dataset(safe=(case == 'pipeline_func'))
        list(DataLoader(ds, batch_size=None, num_workers=1))
    print('OK', case)


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else 'collate_lambda')
