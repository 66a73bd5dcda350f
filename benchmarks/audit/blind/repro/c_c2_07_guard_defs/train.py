"""c_c2_07 (train.py): GraphIE train_twitter.py shape: `from data_heavy import *`; DataSet(...) built in the
guarded main starts Pool(2).map(read_user, lines).

Cases:
  heavy_data_module  the data module loads vectors at import: every pool worker repeats it   (WSP103)
  lazy               the load is deferred (env C_C2_07_LAZY=1 set by the script): safe; the Pool in
                     DataSet.__init__ with a module-level function is itself fine under spawn
"""
import os
import sys

if sys.argv[1] == "lazy":
    os.environ["C_C2_07_LAZY"] = "1"
from data_heavy import *  # noqa: E402,F401,F403

if __name__ == "__main__":
    ds = DataSet([f"u{i}\n" for i in range(6)])
    print("users", len(ds.users))
