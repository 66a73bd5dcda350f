"""Mimics test_prune.py / normal_prune.py: module-level model, a lambda
wrapping evaluate() (parent-only), and an unguarded call to it.
Cases: hazard (unguarded eval_model(model)), safe (guarded, like
shortcut_prune.py), parent_lambda (guarded; the lambda is only called in the
parent, never pickled: must run)."""
import sys
import torch
from evalmod import evaluate

CASE = sys.argv[1] if len(sys.argv) > 1 else "hazard"


class opt:
    percent = 0.5


model = torch.nn.Linear(3, 1)
eval_model = lambda m: evaluate(m)  # parent-only lambda
obtain_num_parameters = lambda m: sum(p.nelement() for p in m.parameters())

if CASE == "hazard":
    with torch.no_grad():
        origin_model_metric = eval_model(model)
    print("metric", origin_model_metric, "params", obtain_num_parameters(model))
    print("OK")
elif CASE in ("safe", "parent_lambda"):
    if __name__ == "__main__":
        with torch.no_grad():
            origin_model_metric = eval_model(model)
        print("metric", origin_model_metric, "params", obtain_num_parameters(model))
        print("OK")
