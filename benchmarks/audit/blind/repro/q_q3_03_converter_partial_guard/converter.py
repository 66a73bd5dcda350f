"""q3 shape 03 (BERT_binary_text_classification converter.py): tokenizer/data loaded at import time, the Pool
block under the main guard, but the final `pickle.dump(train_features, ...)` outside it.
Cases:
  as_repo      : as the repository: each spawned worker re-imports this file as __mp_main__, redoes the
                 import-time "from_pretrained" and data read (WSP103), then hits the unguarded dump of
                 `train_features`, a name only the parent binds under the guard (NameError; the Pool keeps
                 replacing dying workers -> hang until timeout)
  guarded      : the same with every statement under the guard (safe twin)
  notebook     : the notebook cells (BERT.ipynb cell 10): Pool.imap of the *module-level* function
                 convert_examples_to_features.convert_example_to_feature from an interactive __main__
                 (emulated by deleting __main__.__file__, as in a Jupyter kernel)  (safe)
"""
import os
import sys
import pickle
import tempfile
from multiprocessing import Pool, current_process
import convert_examples_to_features

CASE = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("Q3_CASE", "as_repo")
OUT = os.path.join(tempfile.gettempdir(), "q3_train_features.pkl")


def load_everything():
    # stand-in for BertTokenizer.from_pretrained(...) + processor.get_train_examples(DATA_DIR)
    print(f"[{current_process().name}] loading tokenizer and train examples (import-time work)", flush=True)
    tokenizer = {w: i for i, w in enumerate("the a good bad movie film".split(), 1)}
    train_examples = ["the good movie", "a bad film"] * 4
    label_map = {"classification": 1}
    return [(e, label_map, 16, tokenizer, "classification") for e in train_examples]


if CASE == "as_repo":
    os.environ["Q3_CASE"] = "as_repo"
    train_examples_for_processing = load_everything()
    process_count = 2
    if __name__ == '__main__':
        with Pool(process_count) as p:
            train_features = list(p.imap(convert_examples_to_features.convert_example_to_feature,
                                         train_examples_for_processing))

    with open(OUT, 'wb') as f:
        pickle.dump(train_features, f)
    if __name__ == '__main__':
        print("OK", CASE, len(train_features))

elif CASE == "guarded":
    os.environ["Q3_CASE"] = "guarded"
    if __name__ == '__main__':
        items = load_everything()
        with Pool(2) as p:
            train_features = list(p.imap(convert_examples_to_features.convert_example_to_feature, items))
        with open(OUT, 'wb') as f:
            pickle.dump(train_features, f)
        print("OK", CASE, len(train_features))

elif CASE == "notebook":
    if __name__ == '__main__':
        import __main__
        del __main__.__file__          # a Jupyter kernel's __main__ has no file: spawn does not re-run it
        items = load_everything()
        with Pool(2) as p:
            feats = list(p.imap(convert_examples_to_features.convert_example_to_feature, items))
        print("OK", CASE, len(feats))
