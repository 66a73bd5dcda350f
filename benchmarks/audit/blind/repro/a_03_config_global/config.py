"""Module-level config holders, filled by the training script's main() (lcnn lcnn/config.py shape)."""
C = {}
M = {}
