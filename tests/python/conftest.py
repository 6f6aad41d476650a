"""pytest set-up for the Python module's tests: the package of the build
under test (PYTHONPATH, set by ctest), the conformance corpus, and markers
for what needs a GPU, CuPy or numba-cuda (skipped, and reported so, where
those are missing)."""
import json
import os

import pytest

import cuplug

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(TESTS, "conformance", "numba")


def has_gpu():
    return cuplug.info()["device_count"] > 0


def load_case(name):
    """A conformance case: (case.json as a dict, input.ll as text)."""
    with open(os.path.join(CORPUS, name, "case.json")) as f:
        case = json.load(f)
    with open(os.path.join(CORPUS, name, "input.ll")) as f:
        return case, f.read()


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
