"""Challenges: the daily (one proved-winnable deal a layout and UTC day, the same for
every player), those players set for friends, events' rounds and editions' boards; their
attempts, practice of their deals once closed, and their leaderboards."""
