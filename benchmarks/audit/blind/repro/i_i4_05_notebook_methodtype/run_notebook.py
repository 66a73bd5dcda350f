"""Usage: run_notebook.py CASE (methodtype | locale_lambda | dynamic_protocol | static_protocol | nb_collate)
  nb_collate is the control: a notebook def passed directly as collate_fn (WSP206) must fail under spawn.
Runs the cells as a notebook kernel would: the code is executed in a __main__ that has no __file__, so a
spawned worker cannot re-import it (Jupyter on Windows/macOS).  Mimics notebook_ps_diarization.ipynb cells 9,
10 and 12 (IS2023-powerset-diarization)."""
import sys
import __main__

CELL9 = '''
import locale
locale.getpreferredencoding = lambda: "UTF-8"
'''
CELL10 = '''
import fakelib
segmentation_model = fakelib.Model()
segmentation_model.task = fakelib.Task(num_workers=2)
'''
CELL12 = '''
from types import MethodType
import torch

def configure_optimizers(self):
    return torch.optim.Adam(self.parameters(), lr=1e-4)

segmentation_model.configure_optimizers = MethodType(configure_optimizers, segmentation_model)
'''
CELL8_DYN = '''
import fakelib
protocol = fakelib.get_protocol("AMI-SDM.SpeakerDiarization.mini")
'''
CELL8_STATIC = '''
import fakelib
protocol = fakelib.Protocol()
'''
CELL10_P = '''
segmentation_model = fakelib.Model()
segmentation_model.task = fakelib.ProtocolTask(protocol, num_workers=2)
'''
NB_COLLATE = '''
from torch.utils.data import DataLoader
def nb_collate(b):
    return b
print("OK", CASE, list(DataLoader(list(range(4)), batch_size=2, num_workers=2, collate_fn=nb_collate)))
'''
FIT = '''
print("OK", CASE, "batches", fakelib.fit(segmentation_model))
'''

if __name__ == "__main__":
    case = sys.argv[1]
    if hasattr(__main__, "__file__"):
        del __main__.__file__  # a kernel's __main__ has no file: workers cannot re-import the notebook
    cells = {"methodtype": [CELL9, CELL10, CELL12, FIT], "locale_lambda": [CELL9, CELL10, FIT],
             "dynamic_protocol": [CELL8_DYN, CELL9, CELL10_P, CELL12, FIT],
             "static_protocol": [CELL8_STATIC, CELL9, CELL10_P, CELL12, FIT],
             "nb_collate": [NB_COLLATE]}[case]
    g = vars(__main__)
    g["CASE"] = case
    for c in cells:
        exec(compile(c, "<cell>", "exec"), g)
