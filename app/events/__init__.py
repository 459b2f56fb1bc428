"""Events operators run: editions, rounds, cohorts (see service.py)."""
