"""web_search: general web search through the Exa API (SPEC-015)."""
