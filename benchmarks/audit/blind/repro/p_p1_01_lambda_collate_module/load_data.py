# mimics RoBERTa-NL2SQL load_data.get_data: DataLoader(num_workers=4, collate_fn=lambda x: x)
import torch

def identity(x):
    return x

def get_data(case, batch_size=2):
    data = [{"question": "q%d" % i, "sql": i} for i in range(8)]
    if case == "hazard":
        return torch.utils.data.DataLoader(dataset=data, batch_size=batch_size, shuffle=True,
                                           num_workers=4, collate_fn=lambda x: x)
    # safe twin: module-level collate function
    return torch.utils.data.DataLoader(dataset=data, batch_size=batch_size, shuffle=True,
                                       num_workers=4, collate_fn=identity)
