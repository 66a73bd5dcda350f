"""g3 shape 04 (3 modules): train.py -> data/datamgr.py DataLoader(num_workers=2) -> data/dataset.py
SimpleDataset keeps a module-level `identity = lambda x: x` as target_transform.
cases:
  module_lambda   default target_transform=identity (a lambda)            (hazard, WSP204)
  def_identity    target_transform=identity_fn (a module-level def)       (safe)
  parent_lambda   a local lambda used only while building the model       (safe)
"""
import sys
from data.datamgr import SimpleDataManager
from methods.relationnet import RelationModule

if __name__ == "__main__":
    case = sys.argv[1]
    model = RelationModule()
    if case == "parent_lambda":
        print("OK model built", model.fc.in_features)
        sys.exit(0)
    mgr = SimpleDataManager(batch_size=4, fixed=(case == "def_identity"))
    loader = mgr.get_data_loader(12)
    print("OK", case, sum(len(y) for x, y in loader))
