"""a_09: an unguarded training script whose module-level call starts DataLoader workers through helpers
in two other modules (pytorch-deep-learning going_modular/train.py -> data_setup.create_dataloaders
(num_workers=NUM_WORKERS) -> engine.train iterates).

Cases: unguarded (the module-level engine.train(...) call), guarded (the same calls under the guard)."""
import sys

import data_setup
import engine

CASE = sys.argv[1]

if CASE == "unguarded" or __name__ == "__main__":
    train_dataloader, test_dataloader, class_names = data_setup.create_dataloaders(batch_size=4)
    print("sum", engine.train(train_dataloader, test_dataloader, epochs=2))
