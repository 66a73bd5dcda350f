"""Utilities shared by PI0/PI05 policy tests."""
