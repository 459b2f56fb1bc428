"""Operations: JSON logs with request ids, Prometheus metrics, the production server."""
