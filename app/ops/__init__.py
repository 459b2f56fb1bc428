"""Operations: JSON logs with request ids, Prometheus metrics, the production server, and
the commands ops run (``python -m app.ops.*``).

Every table is put on the metadata here, as the server's ``app.main`` does: a command
imports only what its modules pull in, and a foreign key to a table no module of it
imported cannot be resolved (a job's first write then fails). Python imports this package
before any of its modules, so every command, a new one too, starts with the whole
metadata.
"""

from app import models  # noqa: F401 - every table on the metadata: foreign keys cross domains
