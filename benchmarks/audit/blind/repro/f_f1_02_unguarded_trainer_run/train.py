"""Cases: hazard (train.py as in Arabic_Diacritization / JointCwsParser: data built and
trainer.run() at module level, no guard), guarded (everything under the main guard: safe),
heavy_only (trainer.run() guarded but get_data() left at module level: runs again in each
worker, WSP103 shape)."""
import sys
from build_data import get_data
from trainer import Trainer

case = sys.argv[1]
if case == "guarded":
    if __name__ == "__main__":
        Trainer(get_data()).run()
        print("OK", case)
else:
    data = get_data()
    trainer = Trainer(data)
    if case == "hazard":
        trainer.run()
        print("OK", case)
    elif __name__ == "__main__":
        trainer.run()
        print("OK", case)
