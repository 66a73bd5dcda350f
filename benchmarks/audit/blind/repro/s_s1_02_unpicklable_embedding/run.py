"""Cases:
  fasttext_retrain  - fastText (pybind) model reached by the retrain collate_fn, 1 worker:
                      TypeError under spawn, fine under fork (hazard).
  gensim_retrain    - gensim-like picklable vectors (deepparse's Windows branch): safe twin.
  bpemb_retrain     - BPEmb-like model with __getstate__/__setstate__ dropping the native handle: safe.
  predict_default   - same unpicklable model, prediction path with default num_workers=0: safe.
"""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from parser import AddressParser

DATA = [("350 rue des Lilas Ouest Quebec", 0), ("2325 rue de l'Universite", 1)] * 4

if __name__ == "__main__":
    case = sys.argv[1]
    if case == "fasttext_retrain":
        print("rows:", AddressParser().retrain(DATA))
    elif case == "gensim_retrain":
        print("rows:", AddressParser(use_gensim=True).retrain(DATA))
    elif case == "bpemb_retrain":
        print("rows:", AddressParser(bpemb=True).retrain(DATA))
    elif case == "predict_default":
        print("rows:", AddressParser()([a for a, _ in DATA]))
    print("OK", case)
