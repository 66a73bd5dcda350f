params = {"MNIST": {"n_epoch": 1, "train_args": {"batch_size": 8, "num_workers": 1}}}
