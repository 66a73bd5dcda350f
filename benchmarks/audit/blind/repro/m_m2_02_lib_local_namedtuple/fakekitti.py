"""Stand-in for pykitti.odometry (pykitti not installed): __init__ calls _load_calib, which builds
`namedtuple('CalibData', ...)` inside the method and stores an instance on self.calib."""
from collections import namedtuple


class odometry:
    def __init__(self, base_path, sequence):
        self.sequence = sequence
        self.cam2_files = ["%s/%06d.png" % (sequence, i) for i in range(6)]
        self._load_calib()

    def _load_calib(self):
        data = {"K_cam2": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "b_rgb": 0.54}
        self.calib = namedtuple("CalibData", data.keys())(*data.values())
