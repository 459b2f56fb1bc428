"""Storage: SQLAlchemy 2.0 models, engine and sessions, repositories (every query)."""
