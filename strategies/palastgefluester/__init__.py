"""Strategies for Palastgeflüster."""
