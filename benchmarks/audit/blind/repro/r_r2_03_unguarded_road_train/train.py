# mimics DeepGlobe train.py (yenjared fork): everything at module level, no main guard
import os
import sys

import torch

from data import ImageFolder
from framework import MyFrame

CASE = sys.argv[1] if len(sys.argv) > 1 else "hazard"
names = ["a_sat.tif", "bb_sat.tif", "ccc_sat.tif", "dddd_sat.tif", "readme.txt"]
imagelist = filter(lambda x: x[-3:].find('tif') != -1, names)
trainlist = list(map(lambda x: x.rpartition('.')[0], imagelist))  # lambdas consumed in the parent: safe


def main():
    solver = MyFrame()
    dataset = ImageFolder(trainlist, "root/")
    data_loader = torch.utils.data.DataLoader(dataset, batch_size=2, shuffle=True, num_workers=2)
    for epoch in range(1, 3):
        n = 0
        for img, mask in iter(data_loader):
            n += img.shape[0]
    print("OK", CASE, "samples", n)


if CASE == "hazard":
    # as in the repo: model built and loader iterated at import time
    solver = MyFrame()
    dataset = ImageFolder(trainlist, "root/")
    data_loader = torch.utils.data.DataLoader(dataset, batch_size=2, shuffle=True, num_workers=2)
    for epoch in range(1, 3):
        n = 0
        for img, mask in iter(data_loader):
            n += img.shape[0]
    print("OK", CASE, "samples", n)
elif CASE == "safe" and __name__ == "__main__":
    main()
