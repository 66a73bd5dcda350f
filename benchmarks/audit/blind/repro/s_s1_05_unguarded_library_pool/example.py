"""Cases:
  unguarded - simpletransformers examples/text_classification/binary_classification.py: top-level
              ClassificationModel(...) + model.train_model(df) -> library Pool. Under spawn each
              worker re-runs the script (model re-created: WSP103 marker) and fails in the
              bootstrapping phase (WSP101).
  guarded   - the same under the main guard: safe twin.
  qa_init   - guarded; Pool initializer stores the tokenizer in a module global (QA utils): safe.
"""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from st_lib import ClassificationModel, squad_convert, Tokenizer

case = sys.argv[1] if len(sys.argv) > 1 else "unguarded"
TEXTS = ["Example sentence belonging to class 1", "Example sentence belonging to class 0"] * 3

if case == "unguarded":
    model = ClassificationModel("roberta-base")
    print("rows:", model.train_model(TEXTS), flush=True)
    print("OK unguarded", flush=True)

if __name__ == "__main__":
    if case == "guarded":
        model = ClassificationModel("roberta-base")
        print("rows:", model.train_model(TEXTS))
        print("OK guarded")
    elif case == "qa_init":
        print(squad_convert(TEXTS, Tokenizer()))
        print("OK qa_init")
