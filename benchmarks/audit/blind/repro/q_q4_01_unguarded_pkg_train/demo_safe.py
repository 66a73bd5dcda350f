# safe twin: the same script with a main guard (h5py closed in __init__, picklable ComplexCompose)
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ccpkg.engine import train
from ccpkg.models import Res101
from ccpkg.data import ShanghaiTechLike, ComplexCompose, TransposeFlip, make_h5_files

if __name__ == "__main__":
    model = Res101()
    paths = make_h5_files()
    both_transform = ComplexCompose([TransposeFlip()])
    train_set = ShanghaiTechLike(paths, both_transform=both_transform)
    test_set = ShanghaiTechLike(paths)
    print("result", train(model, train_set, test_set))
