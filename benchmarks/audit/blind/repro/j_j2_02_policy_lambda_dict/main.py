# mimics tools/source_pretrain/main.py (guarded); config: is_autoaug True, workers_per_gpu 2
import sys
from builder import build_train_dataloader


def main(case):
    loader = build_train_dataloader(is_autoaug=True, safe=(case == 'safe'))
    for b in loader:
        pass
    print('OK', case)


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else 'hazard')
