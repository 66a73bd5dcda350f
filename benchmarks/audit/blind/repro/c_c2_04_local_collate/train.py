"""c_c2_04: collate functions and worker_init_fn built by a data module for DataLoader workers
(SparseConvNet 3d_segmentation / Chinese_handwriting / ScanNet, diffwave).  The script is guarded.

Cases:
  lambda_collate     data.train(): collate_fn=lambda x: load(x, c, ...)                 (WSP201)
  local_merge        data.train() returns DataLoader(d, collate_fn=<local def merge>)   (WSP202)
  factory_merge      get_iterators(): collate_fn=MergeFn() (a local function)           (WSP202)
  worker_init_lambda worker_init_fn=lambda x: np.random.seed(...)                       (WSP201)
  import_loop        `import data_import`: the data module starts workers at import     (WSP101)
  module_lambda      `import data_scannet`: module-level loop with collate_fn=lambda x: x[0]   (WSP201)
  module_collate     collate_fn=module_merge (module-level): safe
  bound_method       collate_fn=Collator(params).collate, params an AttrDict (diffwave): safe
"""
import sys
import data


def main(case):
    if case in ("lambda_collate", "local_merge"):
        loader = data.train(case)
    elif case in ("factory_merge", "module_collate"):
        loader = data.get_iterators(case)
    elif case == "worker_init_lambda":
        loader = data.scannet_loader(case)
    elif case == "bound_method":
        loader = data.diffwave_loader()
    elif case == "import_loop":
        import data_import
        loader = data.get_iterators("module_collate")
        print("train", len(data_import.train))
    elif case == "module_lambda":
        import data_scannet
        loader = data.get_iterators("module_collate")
    else:
        raise SystemExit("unknown case")
    print("batches", sum(1 for _ in loader))


if __name__ == "__main__":
    main(sys.argv[1])
