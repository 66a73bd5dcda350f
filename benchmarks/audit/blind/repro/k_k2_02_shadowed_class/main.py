"""PREGO shape (step_recognition/main.py + datasets/dataset_builder.py + datasets/dataset.py): two
registered Dataset classes share one name, so the first is no longer reachable by its qualified name
and cannot be pickled for DataLoader workers (num_workers: 4 in the configs).
cases: shadowed (data_name ASSEMBLY101-O -> first THUMOSDataset), safe (FINEACTION)."""
import sys
from datasets import build_data_loader

if __name__ == "__main__":
    case = sys.argv[1]
    name = {"shadowed": "ASSEMBLY101-O", "safe": "FINEACTION"}[case]
    loader = build_data_loader({"data_name": name, "num_workers": 2}, "train")
    print("OK", case, [b.tolist() for b in loader])
