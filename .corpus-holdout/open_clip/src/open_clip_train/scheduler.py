import math

import torch


def assign_learning_rate(optimizer, new_lr):
    # Each param group may carry an ``lr_scale`` (layer-wise LR decay); groups without one default to 1.0, so this
    # stays byte-identical to a flat schedule for the non-decay path.
    for param_group in optimizer.param_groups:
        scaled_lr = new_lr * param_group.get("lr_scale", 1.0)
        lr = param_group["lr"]
        if isinstance(lr, torch.Tensor):
            lr.fill_(scaled_lr)
        else:
            param_group["lr"] = scaled_lr


def get_learning_rate(optimizer):
    # Report the (unscaled) base LR -- the largest per-group LR, i.e. the lr_scale==1.0 group(s). For a flat
    # schedule every group is equal, so this matches the previous param_groups[0] behaviour.
    lrs = [
        pg["lr"].item() if isinstance(pg["lr"], torch.Tensor) else pg["lr"]
        for pg in optimizer.param_groups
    ]
    return max(lrs) if lrs else 0.0


def tensorize_learning_rate(optimizer, device):
    for param_group in optimizer.param_groups:
        lr = param_group["lr"]
        if isinstance(lr, torch.Tensor):
            lr = lr.detach().to(device=device)
        else:
            lr = torch.tensor(float(lr), device=device)
        param_group["lr"] = lr


def _warmup_lr(base_lr, warmup_length, step):
    return base_lr * (step + 1) / warmup_length


def const_lr(optimizer, base_lr, warmup_length, steps):
    def _lr_adjuster(step):
        if step < warmup_length:
            lr = _warmup_lr(base_lr, warmup_length, step)
        else:
            lr = base_lr
        assign_learning_rate(optimizer, lr)
        return lr

    return _lr_adjuster


def const_lr_cooldown(optimizer, base_lr, warmup_length, steps, cooldown_steps, cooldown_power=1.0, cooldown_end_lr=0.):
    def _lr_adjuster(step):
        start_cooldown_step = steps - cooldown_steps
        if step < warmup_length:
            lr = _warmup_lr(base_lr, warmup_length, step)
        else:
            if step < start_cooldown_step:
                lr = base_lr
            else:
                e = step - start_cooldown_step
                es = steps - start_cooldown_step
                # linear decay if power == 1; polynomial decay otherwise;
                decay = (1 - (e / es)) ** cooldown_power
                lr = decay * (base_lr - cooldown_end_lr) + cooldown_end_lr
        assign_learning_rate(optimizer, lr)
        return lr

    return _lr_adjuster


def cosine_lr(optimizer, base_lr, warmup_length, steps):
    def _lr_adjuster(step):
        if step < warmup_length:
            lr = _warmup_lr(base_lr, warmup_length, step)
        else:
            e = step - warmup_length
            es = steps - warmup_length
            lr = 0.5 * (1 + math.cos(math.pi * e / es)) * base_lr
        assign_learning_rate(optimizer, lr)
        return lr

    return _lr_adjuster
