"""codex_search: ranked search over the Codex Mechanicus index (SPEC-014)."""
