"""Luma's shared Lambda layer: what both search functions need and nothing else.

Rooms: ``config`` (typed env parsing), ``guard`` (SSRF guard), ``fetch`` (bounded
HTTP fetch), ``sanitize`` (text and URL hygiene), ``quota`` (the only module that
knows DynamoDB), ``edge`` (HTTP in/out for the handlers), ``observability``
(Powertools objects) and ``errors`` (the few domain errors everything maps to).
"""
