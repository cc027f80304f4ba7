"""Hypothesis profiles for the property tests.

``initlint-ci`` (the default): 60 derandomized examples, no deadline: reproducible and fast.
``initlint-dev``: 600 random examples, for hunting (``INITLINT_HYPOTHESIS_PROFILE=initlint-dev``).
The profiles are applied per test (``@settings(get_profile())``), not loaded globally, so other
hypothesis tests in the suite keep their own settings.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "initlint-ci",
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "initlint-dev",
    max_examples=600,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
PROFILE = os.environ.get("INITLINT_HYPOTHESIS_PROFILE", "initlint-ci")
