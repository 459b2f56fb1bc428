"""Ranked duels: two players of similar rating on one server-drawn deal, played
asynchronously, and a rating per player and pool (OpenSkill)."""
