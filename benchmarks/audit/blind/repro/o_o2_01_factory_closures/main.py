"""Mimics BayesNAS search/main.py: guarded script passing num_workers=4 (here 2).
Cases: hazard (closure transforms), safe (module-level transform classes)."""
import sys
import lib

if __name__ == '__main__':
    case = sys.argv[1] if len(sys.argv) > 1 else 'hazard'
    loader = lib.build_loader_cifar_alt(2, 2, num_workers=2, safe=(case == 'safe'))
    n = 0
    for x, y in loader:
        n += x.shape[0]
    print('OK', case, 'batches seen', n)
