"""Stand-in for the filecheck package, absent on the GPU machine: numba-cuda's
testing module imports it.  Using it skips the test (unittest.SkipTest), in
the stock run and the cuplug run alike."""
import unittest


class _Missing:
    def __init__(self, *args, **kwargs):
        raise unittest.SkipTest("filecheck is not installed")


def pattern_for_opts(*args, **kwargs):
    raise unittest.SkipTest("filecheck is not installed")
