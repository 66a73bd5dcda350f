import sys
from torch.utils.data import DataLoader
from datasets import MoleculeDataset_graphcl, MoleculeDataset_graphcl_safe

if __name__ == "__main__":
    case = sys.argv[1]
    dataset = MoleculeDataset_graphcl() if case == "hazard" else MoleculeDataset_graphcl_safe()
    loader = DataLoader(dataset, batch_size=4, num_workers=2, shuffle=True)
    print("OK", case, sum(1 for _ in loader), "batches")
