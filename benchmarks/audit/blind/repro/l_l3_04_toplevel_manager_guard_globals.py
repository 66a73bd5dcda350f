"""muzic musicbert/preprocess.py & getmusic/preprocess/to_oct.py shape: `manager = Manager()`
at module level; under the main guard the parent assigns globals (data_zip, output_file)
that the Pool worker function reads.
cases: hazard_manager (Manager() at import, as in the repo), hazard_global (Manager removed,
globals still assigned under the guard -> worker sees None), safe (paths passed as arguments)."""
import os
import sys
import tempfile
from multiprocessing import Pool, Manager

case = sys.argv[1]

output_file = None

if case == 'hazard_manager':
    manager = Manager()
    midi_dict = manager.dict()


def writer(s):
    with open(output_file, 'a') as f:
        f.write(s + '\n')


def G(name):
    try:
        writer(name)
        return True
    except BaseException as e:
        return 'ERROR(WRITE): %s %s' % (name, e)


def G_safe(args):
    name, out = args
    with open(out, 'a') as f:
        f.write(name + '\n')
    return True


if __name__ == '__main__':
    d = tempfile.mkdtemp()
    if case == 'safe':
        out = os.path.join(d, 'o.txt')
        with Pool(2) as p:
            res = list(p.imap_unordered(G_safe, [(n, out) for n in 'abcd']))
    else:
        output_file = os.path.join(d, 'o.txt')
        with Pool(2) as p:
            res = list(p.imap_unordered(G, list('abcd')))
    ok = all(r is True for r in res)
    print(case, 'OK' if ok else 'FAIL', res)
    sys.exit(0 if ok else 1)
