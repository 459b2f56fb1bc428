"""What the domains share: the database session, problem+json errors and their handlers,
request-body limits and the dependencies every router uses."""
