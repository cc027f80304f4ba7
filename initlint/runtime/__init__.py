"""Runtime verification: construct an object once and record the work its __init__ repeats.

Importing this package does not import torch; ``trace_init`` does, when called.
"""

from .model import InitTrace, Repeat, TraceEvent
from .tracer import DeviceUnavailableError, trace_init

__all__ = ["DeviceUnavailableError", "InitTrace", "Repeat", "TraceEvent", "trace_init"]
