"""Lightweight vendored OpenPI PyTorch modules for PI0/PI05 parity tests."""
