"""n4 shape 02 (two modules): train script (guarded) imports a project module that
builds its datasets at import time; each spawned worker re-imports the main script and so
the module, repeating the build (WSP103). Mimics PlantPulse train_mobilenetv2.py + dataloader.py.
Cases: hazard (module-level build), safe (build inside a function). Prints how many builds ran.
"""
import os, sys
case = sys.argv[1] if len(sys.argv) > 1 else "hazard"
if case == "hazard":
    from dataloader_hazard import train_loader, LOG
else:
    from dataloader_safe import make_loaders, LOG

if __name__ == "__main__":
    if os.path.exists(LOG):
        pass
    loader = train_loader if case == "hazard" else make_loaders()
    for x in loader:
        pass
    with open(LOG) as f:
        n = len(f.readlines())
    os.remove(LOG)
    print("dataset builds:", n, "(1 = parent only)")
