# Cases: loader_lambda (self.loader = lambda), totensor_lambda (ToTensor.worker lambda in Compose), safe.
import sys
import torch
from data import kinetics

def main(case):
    testset = kinetics.Kinetics("root/", case)
    loader = torch.utils.data.DataLoader(testset, batch_size=2, num_workers=2)
    for b in loader:
        pass
    print("OK iterated", case)

if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "safe")
