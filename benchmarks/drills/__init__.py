"""Drills: a user's faults, bad inputs and outside data, reproduced against a checkout."""
