"""FastAPI routers, dependencies and the RFC 9457 error handlers."""
