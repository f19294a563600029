"""Overlays and mpigen.yaml, by feature: what one environment changes in the blueprints, and how a
whole repository is rendered into one folder per overlay."""
