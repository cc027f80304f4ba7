"""Tiny nn.Module hierarchies for the runtime tracer tests."""
