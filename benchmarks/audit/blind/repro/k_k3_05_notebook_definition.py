"""Shape: a class or function defined in a notebook (.ipynb) reaching workers that pickle with the
standard pickler (pytorch-metric-learning examples/notebooks: TwoStreamMetricLoss.ipynb cell 7 and
scRNAseq_MetricEmbedding.ipynb cell 7 datasets, used with dataloader_num_workers=2 by the library's
trainer/tester; DistributedTripletMarginLossMNIST.ipynb cell 2 init_processes as Process target).
The notebook is emulated by running the cell code with exec() in a __main__ that has no __file__
(as in Jupyter: spawned children cannot re-import it).
Cases: nb_dataset (hazard), nb_process_target (hazard), module_dataset (safe twin: the dataset comes
from an importable module), nb_parent_hook (safe: a notebook function used only in the parent).
"""
import sys

CELLS = {
"nb_dataset": '''
import torch
from torch.utils.data import Dataset, DataLoader
class BasicDataset(Dataset):
    def __init__(self, data): self.data = data
    def __getitem__(self, i): return self.data[i]
    def __len__(self): return len(self.data)
train_dataset = BasicDataset(torch.arange(8.))
print("OK nb_dataset", [float(b.sum()) for b in DataLoader(train_dataset, batch_size=4, num_workers=2)])
''',
"nb_process_target": '''
import torch.multiprocessing as tmp
def init_processes(rank, size):
    print("child", rank, size)
if __name__ == "__main__":
    ps = [tmp.Process(target=init_processes, args=(r, 2)) for r in range(2)]
    for p in ps: p.start()
    for p in ps: p.join()
    codes = [p.exitcode for p in ps]
    print("exitcodes", codes)
    if any(codes): raise SystemExit("child failed")
    print("OK nb_process_target")
''',
"module_dataset": '''
import torch
from torch.utils.data import TensorDataset, DataLoader
train_dataset = TensorDataset(torch.arange(8.))
print("OK module_dataset", [float(b[0].sum()) for b in DataLoader(train_dataset, batch_size=4, num_workers=2)])
''',
"nb_parent_hook": '''
import torch
from torch.utils.data import TensorDataset, DataLoader
def visualizer_hook(embs, labels):
    return float(embs.sum())
class Tester:
    def __init__(self, visualizer_hook, dataloader_num_workers):
        self.hook = visualizer_hook; self.n = dataloader_num_workers
    def test(self, ds):
        embs = torch.cat([b[0] for b in DataLoader(ds, batch_size=4, num_workers=self.n)])
        return self.hook(embs, None)
print("OK nb_parent_hook", Tester(visualizer_hook, 2).test(TensorDataset(torch.arange(8.))))
''',
}

if __name__ == "__main__":
    case = sys.argv[1]
    main = sys.modules["__main__"]
    # behave like a Jupyter kernel: __main__ has no file the spawned child could re-import
    for attr in ("__file__",):
        if hasattr(main, attr):
            delattr(main, attr)
    main.__spec__ = None
    exec(compile(CELLS[case], "<ipython-cell>", "exec"), main.__dict__)
