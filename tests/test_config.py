"""Settings from the environment: typed as the Settings fields declare."""

from __future__ import annotations

import pytest

from embucket_py.config import load_settings


def test_boolean_settings_read_the_usual_spellings() -> None:
    assert load_settings(env={"EMBUCKET_PYTHON_FUNCTIONS": "true"}).python_functions is True
    assert load_settings(env={"EMBUCKET_PYTHON_FUNCTIONS": "ON"}).python_functions is True
    assert load_settings(env={"EMBUCKET_PYTHON_FUNCTIONS": "0"}).python_functions is False
    assert load_settings(env={}).python_functions is False
    with pytest.raises(ValueError, match="not a boolean"):
        load_settings(env={"EMBUCKET_PYTHON_FUNCTIONS": "maybe"})
    assert load_settings(env={"EMBUCKET_PORT": "4000"}).port == 4000
