# safe twin: same code under a main guard
import world, procedure
from register import dataset
if __name__ == "__main__":
    for epoch in range(1):
        print("OK", procedure.bpr_train(dataset))
