"""b_07: train.py imports the data provider by name and iterates the generator it returns (stacked hourglass).

Cases (argv[1]): module_attr (a module object on the dataset: hazard), function_attrs (module functions on the
dataset; the worker's `ref.anno` is None: WSP107), lazy_init (the worker calls ref.init itself: safe twin; the
returned lambda stays in the parent)."""
import importlib
import sys


def main(mode):
    provider = importlib.import_module("data.dp")
    data_func = provider.init({"mode": mode, "num_workers": 2})
    print("sum", sum(b.sum().item() for phase in ["train", "valid"] for b in data_func(phase)))


if __name__ == "__main__":
    main(sys.argv[1])
