"""Eager-looking tensor helpers; train.py compiles two of them through its helpers."""
import torch


def active_rows(x):
    return x.nonzero()  # expect: BL104


def centered(x):
    return x - x.mean()


def report(x):
    print("norm", x.norm())  # expect: BL106
    return x * 2
