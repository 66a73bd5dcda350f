"""Shape of K-Space-Transformer main.py: no main guard; module level data_loader() builds the datasets
(np.load of all data) and DataLoader(num_workers=8), then calls train() of train.py which iterates the loader.
Cases: hazard (unguarded), guarded (safe twin). Run: python main.py CASE"""
import os
import sys

from torch.utils.data import DataLoader

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dataset import TrainDataSet
from train import train

CASE = sys.argv[1]


def data_loader():
    print("loading dataset in", __name__, os.getpid(), flush=True)
    trainSet = TrainDataSet(8)
    trainLoader = DataLoader(trainSet, batch_size=2, shuffle=True, num_workers=2)
    return trainSet, trainLoader


if CASE == "hazard":
    trainSet, trainLoader = data_loader()      # main.py:122
    print("OK", CASE, train(trainLoader))      # main.py:174
elif __name__ == "__main__":
    trainSet, trainLoader = data_loader()
    print("OK", CASE, train(trainLoader))
