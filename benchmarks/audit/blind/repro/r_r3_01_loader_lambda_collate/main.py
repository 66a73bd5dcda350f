import sys
import data


def run(case):
    if case == "hazard":          # lambda collate, 2 workers (TTPNet 4, jtnn 4)
        loader = data.get_loader(2)
    elif case == "subclass":      # DataLoader subclass with lambda collate, num_workers passed through
        loader = data.DataLoaderMasking(data.MySet(), batch_size=4, shuffle=True, num_workers=2)
    elif case == "local_def":     # local def collate with workers
        loader = data.DataLoaderLocalDef(data.MySet(), batch_size=4, num_workers=2)
    elif case == "safe":          # module-level collate
        loader = data.get_loader_safe(2)
    elif case == "zero_workers":  # lambda collate but num_workers=0 (FastJTNNpy3)
        loader = data.get_loader(0)
    elif case == "local_def_zero":  # bondnet: local collate, no num_workers passed
        loader = data.DataLoaderLocalDef(data.MySet(), batch_size=4)
    elif case == "bound_method":  # Mole-BERT: bound method of the loader
        loader = data.DataLoaderBound(data.MySet(), batch_size=4, shuffle=False, num_workers=2)
    else:
        raise SystemExit("unknown case " + case)
    n = sum(1 for _ in loader)
    print("OK", case, n, "batches")


if __name__ == "__main__":
    run(sys.argv[1])
