"""Mimics sherpa examples/simple.py: the Study (which starts processes) is created at
module top level with no main guard. Case: unguarded (hazard)."""
import time
import sherpa_core

study = sherpa_core.Study()
for trial in study:
    time.sleep(0.1)
print('OK unguarded')
