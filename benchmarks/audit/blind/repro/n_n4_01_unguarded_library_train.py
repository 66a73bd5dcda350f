"""n4 shape 01: a top-level call into a training library that starts DataLoader
workers (ultralytics YOLO.train(workers=8 by default)) with no main guard.
Mimics computervisioneng/train-yolov8-custom-dataset-step-by-step-guide local_env/train.py.
Cases: hazard (unguarded top-level train), safe (same call under the main guard).
"""
import sys
import torch
from torch.utils.data import DataLoader, TensorDataset


class TinyTrainer:  # stands in for ultralytics' YOLO: builds its own loader with workers
    def __init__(self, cfg):
        self.cfg = cfg

    def train(self, data, epochs=1, workers=2):
        ds = TensorDataset(torch.arange(8.0).view(8, 1))
        dl = DataLoader(ds, batch_size=4, num_workers=workers)
        n = 0
        for _ in range(epochs):
            for (x,) in dl:
                n += x.shape[0]
        return n


case = sys.argv[1] if len(sys.argv) > 1 else "hazard"
model = TinyTrainer("yolov8n.yaml")
if case == "hazard":
    results = model.train(data="config.yaml", epochs=1)
    print("OK", results)
elif case == "safe":
    if __name__ == "__main__":
        results = model.train(data="config.yaml", epochs=1)
        print("OK", results)
