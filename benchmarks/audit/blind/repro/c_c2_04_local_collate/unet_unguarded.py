"""c_c2_04 (unguarded twin of train.py): SparseConvNet 3d_segmentation/unet.py and Chinese_handwriting/VGG-C.py
call into the data module / trainer at module level (`trainIterator=data.train()`,
`scn.ClassificationTrainValidate(model, dataset, p)`), with no main guard; the collate functions are
module-level here, to isolate the unguarded start.

Cases:
  module_call   module-level call that iterates a DataLoader(num_workers=2) in another module   (WSP101)
  guarded_call  the same call under `if __name__ == "__main__":`: safe
"""
import sys
import data

CASE = sys.argv[1]


def train_validate(dataset):            # scn.ClassificationTrainValidate stand-in
    return sum(1 for _ in dataset)


if CASE == "module_call":
    trainIterator = data.train("module_collate")
    print("batches", train_validate(trainIterator))
elif CASE == "guarded_call":
    if __name__ == "__main__":
        print("batches", train_validate(data.get_iterators("module_collate")))
