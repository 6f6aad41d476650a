"""pytest plugin for running numba-cuda's own test suite, as installed (the
wheel ships its tests but not the repository's conftest.py).

It gives the fixture numba-cuda's CUDATestCase asks for and the option that
fixture reads, and, with CUPLUG_NUMBA=1, routes every compile of the run
through cuplug (cuplug.numba.install(), in each xdist worker)."""
import os

import pytest


def pytest_addoption(parser):
    parser.addoption("--dump-failed-filechecks", action="store_true",
                     help="numba-cuda's option: dump reproducers of failed FileCheck tests")


def pytest_configure(config):
    import numpy as np

    if not hasattr(np, "row_stack"):  # numpy 2.5 dropped it; numba-cuda 0.30 uses it
        np.row_stack = np.vstack
    if os.environ.get("CUPLUG_NUMBA") == "1":
        import cuplug.numba

        cuplug.numba.install()


def pytest_unconfigure(config):
    """Each process of a cuplug run leaves what cuplug compiled and what it
    left to numba-cuda (cuplug.numba.stats()) in $CUPLUG_NUMBA_STATS."""
    where = os.environ.get("CUPLUG_NUMBA_STATS")
    if os.environ.get("CUPLUG_NUMBA") != "1" or not where:
        return
    import json

    import cuplug.numba

    os.makedirs(where, exist_ok=True)
    with open(os.path.join(where, "%d.json" % os.getpid()), "w") as f:
        json.dump(cuplug.numba.stats(), f)


@pytest.fixture(scope="class")
def initialize_from_pytest_config(request):
    request.cls._dump_failed_filechecks = request.config.getoption("dump_failed_filechecks")
