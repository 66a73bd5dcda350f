"""Mimics C1-Action-Recognition-TSN-TRN-TSM src/datasets/epic_dataset.py: the video dataset stores
`self.sample_transform = lambda x: x` when no transform is given (line 81); `profile = lambda f: f`
is a no-op decorator fallback (line 27) that leaves methods as plain module-level functions."""
import numpy as np

try:
    profile  # noqa: F821  (line_profiler injects it)
except NameError:
    profile = lambda f: f


def identity(x):
    return x


class EpicVideoDataset(object):
    def __init__(self, n_videos=6, sample_transform=None):
        self.frames = {i: np.random.rand(4, 8, 8, 3).astype(np.float32) for i in range(n_videos)}
        if sample_transform is None:
            self.sample_transform = lambda x: x
        else:
            self.sample_transform = sample_transform
        self.video_records = list(self.frames)

    @profile
    def load_frames(self, record, indices):
        return [self.sample_transform(self.frames[record][i]) for i in indices]
