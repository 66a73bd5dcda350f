# mimics KGCL main.py: no main guard; top-level try: loop calls procedure.bpr_train
import world, procedure
from register import dataset
try:
    for epoch in range(1):
        print("OK", procedure.bpr_train(dataset))
finally:
    pass
