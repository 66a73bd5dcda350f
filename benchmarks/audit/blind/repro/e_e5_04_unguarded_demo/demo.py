"""Mimics DeepCAD_RT_pytorch/demo_train_pipeline.py. Cases:
 unguarded  as in the repository: download_demo(...) and tc.run() at module level (num_workers = 4; here 2)
 guarded    the same statements under if __name__ == '__main__'
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pkg.train_collection import training_class
from pkg.utils import download_demo

CASE = sys.argv[1]
FOLDER = os.path.join(tempfile.gettempdir(), "e_e5_04_data")
os.makedirs(FOLDER, exist_ok=True)


def pipeline():
    datasets_path = download_demo("fish_localbrain", FOLDER)
    num_workers = 2
    tc = training_class({"datasets_path": datasets_path, "num_workers": num_workers})
    tc.run()


if CASE == "unguarded":
    datasets_path = download_demo("fish_localbrain", FOLDER)
    num_workers = 2
    tc = training_class({"datasets_path": datasets_path, "num_workers": num_workers})
    tc.run()

if __name__ == "__main__" and CASE == "guarded":
    pipeline()
