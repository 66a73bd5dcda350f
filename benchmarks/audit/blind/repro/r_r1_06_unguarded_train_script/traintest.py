# mimics ast src/traintest.py: train()/validate() iterate the loaders they are given
def train(model, train_loader, val_loader, args=None):
    for x in train_loader:
        pass


def validate(model, val_loader, args=None, epoch=None):
    for x in val_loader:
        pass
