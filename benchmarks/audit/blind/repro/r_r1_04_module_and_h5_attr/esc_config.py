# mimics HTS-AT esc_config.py / config.py (a settings module)
num_workers = 2
batch_size = 4
esc_fold = 0
clip_samples = 64
