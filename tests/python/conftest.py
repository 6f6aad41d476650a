"""pytest set-up for the Python module's tests: the package of the build
under test (PYTHONPATH, set by ctest), the conformance corpus, markers
for what needs a GPU, CuPy or numba-cuda (skipped, and reported so, where
those are missing), and a fresh interpreter for code that might crash."""
import json
import os
import subprocess
import sys

import pytest

import cuplug

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(TESTS, "conformance", "numba")
HERE = os.path.dirname(os.path.abspath(__file__))


def has_gpu():
    return cuplug.info()["device_count"] > 0


def numba_cuda_or_why():
    """(numba.cuda, None) where numba-cuda is there in a version cuplug.numba
    supports, else (None, why not): test files that name numba-cuda's cuda
    module in their kernels take it at import."""
    import cuplug.numba
    try:
        cuplug.numba._numba_cuda()
        from numba import cuda
        return cuda, None
    except ImportError as e:
        return None, str(e)


def load_case(name):
    """A conformance case: (case.json as a dict, input.ll as text)."""
    with open(os.path.join(CORPUS, name, "case.json")) as f:
        case = json.load(f)
    with open(os.path.join(CORPUS, name, "input.ll")) as f:
        return case, f.read()


def run_python(code, **env):
    """Runs code in a fresh interpreter of the build under test, with this
    folder importable and `env` added to the environment: a crash there
    fails the test that ran it, not the whole run.  Returns the
    CompletedProcess (text stdout and stderr)."""
    e = dict(os.environ, **env)
    e["PYTHONPATH"] = os.pathsep.join(p for p in (HERE, e.get("PYTHONPATH")) if p)
    return subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True,
                          timeout=300)


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device")


def pytest_collection_modifyitems(config, items):
    if has_gpu():
        return
    skip = pytest.mark.skip(reason="no CUDA device")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def case():
    return load_case
