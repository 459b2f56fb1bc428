"""Games: create one, read it as its player sees it, play it, and look back on it."""
