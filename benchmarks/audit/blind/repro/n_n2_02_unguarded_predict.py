# mimics sqlova predict.py: top-level model load (torch.load), DataLoader(num_workers=1, collate_fn=lambda),
# top-level `with torch.no_grad(): predict(dev_loader)` -- no main guard.
# cases: as_repo (lambda + unguarded), unguarded_module_fn (picklable collate, still unguarded: WSP101/WSP103),
#        guarded_module_fn (safe twin)
import os, sys, tempfile
import torch
import torch.utils.data

CASE = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("N2_CASE", "as_repo")
os.environ["N2_CASE"] = CASE
CKPT = os.path.join(tempfile.gettempdir(), "n_n2_02_model.pt")


def identity(x):
    return x


def get_models():
    if not os.path.exists(CKPT):
        torch.save(torch.nn.Linear(3, 2).state_dict(), CKPT)
    print("[pid %d] loading model (%s)" % (os.getpid(), __name__), flush=True)
    m = torch.nn.Linear(3, 2)
    m.load_state_dict(torch.load(CKPT))
    return m


def predict(loader, model):
    return sum(len(b) for b in loader)


def main():
    model = get_models()
    dev = [[0.0, 1.0, 2.0]] * 6
    loader = torch.utils.data.DataLoader(batch_size=2, dataset=dev, shuffle=False, num_workers=1,
                                         collate_fn=identity)
    with torch.no_grad():
        print("OK", predict(loader, model))


if CASE == "guarded_module_fn":
    if __name__ == "__main__":
        main()
else:
    model = get_models()
    dev = [[0.0, 1.0, 2.0]] * 6
    dev_loader = torch.utils.data.DataLoader(
        batch_size=2, dataset=dev, shuffle=False, num_workers=1,
        collate_fn=(lambda x: x) if CASE == "as_repo" else identity)
    with torch.no_grad():
        print("OK", predict(dev_loader, model))
