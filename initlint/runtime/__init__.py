"""Runtime verification: construct an object once and record the work its __init__ repeats.

``trace_init`` records what happened to the object a factory returned; ``trace_model`` records
every object constructed during the call (a whole model), grouped by class and site. Importing
this package does not import torch; the tracers do, when called.
"""

from .model import InitTrace, Repeat, TraceEvent
from .model_trace import (
    HEAVY_BYTES,
    ClassSummary,
    ModelTrace,
    ObjectRepeat,
    RepeatGroup,
    StaticFinding,
)
from .tracer import DeviceUnavailableError, trace_init
from .whole import link_findings, trace_model

__all__ = [
    "HEAVY_BYTES",
    "ClassSummary",
    "DeviceUnavailableError",
    "InitTrace",
    "ModelTrace",
    "ObjectRepeat",
    "Repeat",
    "RepeatGroup",
    "StaticFinding",
    "TraceEvent",
    "link_findings",
    "trace_init",
    "trace_model",
]
