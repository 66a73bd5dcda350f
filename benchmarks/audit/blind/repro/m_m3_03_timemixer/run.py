"""Shape: lambda collate_fn built in a project module, DataLoader(num_workers>0) (TimeMixer data_factory.py:71).
cases:
  classification - lambda collate_fn -> spawn pickling fails
  forecast       - safe twin: default collate, dataset whose __init__ used pandas lambdas only in the parent
"""
import sys
from data_factory import data_provider

if __name__ == "__main__":
    case = sys.argv[1] if len(sys.argv) > 1 else "classification"
    args = {"num_workers": 2, "seq_len": 3}
    loader = data_provider(args, case)
    print("result", sum(float(b.sum()) for b in loader))
