"""Players: accounts without e-mail or password, known by a secret key; their statistics."""
