class PytorchQuantizer:
    """Stand-in for brocolli.quantization.quantizer.PytorchQuantizer: calibrate() calls the
    user's function, which iterates a DataLoader with workers."""
    def __init__(self, model):
        self.model = model

    def calibrate(self, func):
        func(self.model)

    def evaluate(self, func):
        func(self.model)
