"""The daily challenge: one proved-winnable deal a layout and UTC day, the same for every
player, and its leaderboard."""
