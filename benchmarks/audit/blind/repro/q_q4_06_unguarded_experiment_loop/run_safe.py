import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from app.srgan_like import Experiment

if __name__ == "__main__":
    for settings_ in [{"number_of_data_workers": 2}]:
        experiment = Experiment(settings_)
        print("OK steps", experiment.train())
