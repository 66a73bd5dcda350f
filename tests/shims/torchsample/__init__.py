"""A stand-in for torchsample (an augmentation library no longer installable with current torch), for the fixtures
only: its ``transforms.Compose`` keeps the list it is given, as the real one does (``self.transforms =
transforms``), and applies it in order."""
