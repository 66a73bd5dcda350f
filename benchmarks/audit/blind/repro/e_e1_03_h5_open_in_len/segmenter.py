class Segmenter:
    def __init__(self, trainDataLoader):
        self.trainDataLoader = trainDataLoader

    def train(self):
        for i, data in enumerate(self.trainDataLoader):
            pass
