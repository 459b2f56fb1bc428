"""Pydantic models of the HTTP contract. Engine objects never go on the wire."""
