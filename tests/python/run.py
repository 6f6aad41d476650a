"""ctest's entry to the Python module's tests.

    run.py            the tests that need no GPU (pytest -m "not gpu")
    run.py --gpu      the tests that need one; exit 77 (skipped) where there is none

The package under test is the build's (PYTHONPATH=<build>/python, set by ctest).
"""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SKIPPED = 77


def main(argv):
    gpu = "--gpu" in argv
    rest = [a for a in argv if a != "--gpu"]
    if gpu:
        import cuplug
        if cuplug.info()["device_count"] == 0:
            print("no CUDA device: the GPU tests are skipped")
            return SKIPPED
    marker = "gpu" if gpu else "not gpu"
    # -p no:cacheprovider: the source tree stays clean
    return pytest.main(["-q", "-p", "no:cacheprovider", "-m", marker, HERE] + rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
