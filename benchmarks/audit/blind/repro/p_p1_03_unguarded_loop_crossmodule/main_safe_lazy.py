# safe twin for the import-time dataset build: register imported only under the main guard
import world, procedure
if __name__ == "__main__":
    from register import dataset
    print("OK", procedure.bpr_train(dataset))
