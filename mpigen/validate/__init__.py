"""Validate: a blueprint document -> the Blueprint model, or diagnostics that point into the
file (field diagnostics, cross-field rules, production rules)."""
