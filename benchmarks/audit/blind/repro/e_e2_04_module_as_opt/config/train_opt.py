# mimics EverybodyDanceNow src/config/train_opt.py: options as module-level names of a module
nThreads = 2
batchSize = 2
loadSize = 4
resize_or_crop = "scale_width"
