# mimics CLIP-rsicd/run_clip_flax_tv.py main(): preprocess = torch.jit.script(Transform(...)); collate_fn defined
# inside main(); DataLoader(num_workers=data_args.preprocessing_num_workers (16 in run_clip_training_tv.sh),
# persistent_workers=True). Guarded main.
# cases: jit_transform (hazard), local_collate (hazard), safe (eager Transform + module-level collate),
#        notebook_collate (hazard: the notebook defines collate_fn in __main__ of a file-less kernel),
#        notebook_module_collate (safe twin: collate imported from a module)
import multiprocessing
import os
import subprocess
import sys

import torch
from data import ImageTextDataset, Transform, module_collate

NOTEBOOK = r'''
import multiprocessing, sys, torch
multiprocessing.set_start_method(%(method)r, force=True)
sys.path.insert(0, %(here)r)
from data import ImageTextDataset, Transform, module_collate
preprocess = Transform(3)
train_dataset = ImageTextDataset(8, transform=preprocess)
def collate_fn(examples):
    return torch.stack([e[0] for e in examples]).numpy(), [e[1] for e in examples]
train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=2, num_workers=2,
                                           collate_fn=%(collate)s)
for step, batch in enumerate(train_loader):
    pass
print('OK notebook')
'''


def main(case):
    if case.startswith('notebook'):
        code = NOTEBOOK % dict(method=multiprocessing.get_start_method(), here=os.path.dirname(os.path.abspath(__file__)),
                               collate='collate_fn' if case == 'notebook_collate' else 'module_collate')
        r = subprocess.run([sys.executable, '-c', code], text=True, capture_output=True, timeout=50)
        sys.stdout.write(r.stdout)
        sys.stderr.write("\n".join(l for l in r.stderr.splitlines() if "Error" in l))
        if r.returncode:
            sys.exit(r.returncode)
        print('OK', case)
        return
    preprocess = Transform(3)
    if case == 'jit_transform':
        preprocess = torch.jit.script(preprocess)
    train_dataset = ImageTextDataset(8, transform=preprocess)

    def collate_fn(examples):
        return torch.stack([e[0] for e in examples]).numpy(), [e[1] for e in examples]

    train_loader = torch.utils.data.DataLoader(
        train_dataset, batch_size=2, shuffle=True, num_workers=2, persistent_workers=True, drop_last=True,
        collate_fn=collate_fn if case == 'local_collate' else module_collate)
    for batch in train_loader:
        pass
    print('OK', case)


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else 'jit_transform')
