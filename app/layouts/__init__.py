"""Layouts: the geometry a client needs to draw a table (read-only, from the engine)."""
