"""Overlays: resolved with their bases, and applied to blueprints with the position of every value they write."""
