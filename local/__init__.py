"""Local development: serve both functions on loopback the way the bot calls them."""
