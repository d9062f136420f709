"""python/tests/conftest.py: what every test of the tilepipe package shares.

The library and registry are the ones the environment names
(TILEPIPE_LIBRARY, TILEPIPE_REGISTRY: tests/test_python.sh points them at
the build tree's); `registry` is one Registry for the session. Inputs are
fresh every run: `rng` is seeded from the OS and prints its seed, which
pytest shows with a failure, so a failing case can be replayed with
TILEPIPE_TEST_SEED."""
import os

import numpy as np
import pytest

import tilepipe


@pytest.fixture(scope="session")
def registry():
    with tilepipe.Registry(os.environ.get("TILEPIPE_REGISTRY")) as reg:
        yield reg


@pytest.fixture
def rng():
    seed = int(os.environ.get("TILEPIPE_TEST_SEED") or int.from_bytes(os.urandom(4), "little"))
    print(f"TILEPIPE_TEST_SEED={seed}")
    return np.random.default_rng(seed)
