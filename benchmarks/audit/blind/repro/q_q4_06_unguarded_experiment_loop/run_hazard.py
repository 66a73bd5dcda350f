# mimics run.py: no main guard; the settings loop at module level trains each experiment
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from app.srgan_like import Experiment

settings_list = [{"number_of_data_workers": 2}]
for settings_ in settings_list:
    experiment = Experiment(settings_)
    print("OK steps", experiment.train())
