"""Shape (prometheus-anomaly-detector app.py): top-level code queries a server and builds
predictors at import; a Pool (size from config, default 1) is started under the main guard.
Under spawn each worker re-imports the main module and repeats the queries.
cases: hazard (queries at top level), safe (queries inside the guarded main)."""
import os, sys, time
from functools import partial
from multiprocessing import Pool

CASE = sys.argv[1] if len(sys.argv) > 1 else "hazard"
MARK = os.environ.get("N3_MARK", "/tmp/n_n3_03_marks.txt")


def query_metrics():
    with open(MARK, "a") as f:
        f.write(f"query pid={os.getpid()} name={__name__}\n")
    time.sleep(0.2)  # stands for a network round trip
    return ["m1", "m2"]


PREDICTOR_MODEL_LIST = []
if CASE == "hazard":
    for metric in query_metrics():                 # app.py:33-43
        PREDICTOR_MODEL_LIST.append(metric)


def train_individual_model(m, initial_run):
    return (m, initial_run)


if __name__ == "__main__":
    if CASE == "safe":
        PREDICTOR_MODEL_LIST = list(query_metrics())
    with Pool(1) as p:
        res = p.map(partial(train_individual_model, initial_run=True), PREDICTOR_MODEL_LIST)
    print("result", res)
    with open(MARK) as f:
        lines = f.read().splitlines()
    print("queries", len(lines), lines)
