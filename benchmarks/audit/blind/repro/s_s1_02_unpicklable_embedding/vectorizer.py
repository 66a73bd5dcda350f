class FastTextVectorizer:
    def __init__(self, embeddings_model):
        self.embeddings_model = embeddings_model

    def __call__(self, addresses):
        return [[self.embeddings_model(w) for w in a.split()] for a in addresses]
