"""Shared fixtures of the Python suite (run by CTest with PYTHONPATH set to
the build tree's python/ folder)."""
import os
import pathlib

import pytest

SOURCE_DIR = pathlib.Path(
    os.environ.get("TERN_SOURCE_DIR",
                   pathlib.Path(__file__).resolve().parents[2]))


@pytest.fixture
def models_dir():
    return SOURCE_DIR / "models"
