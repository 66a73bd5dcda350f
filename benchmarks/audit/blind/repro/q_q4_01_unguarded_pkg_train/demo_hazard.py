# mimics demo/shtu_b.py: no main guard; model, datasets and train() at module level
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ccpkg.engine import train
from ccpkg.models import Res101
from ccpkg.data import ShanghaiTechLike, ComplexCompose, TransposeFlip, make_h5_files

model = Res101()                      # WSP103 site (repeated in every spawned worker)
paths = make_h5_files()
both_transform = ComplexCompose([TransposeFlip()])
train_set = ShanghaiTechLike(paths, both_transform=both_transform)
test_set = ShanghaiTechLike(paths)
print("result", train(model, train_set, test_set))   # WSP101 site
