"""Amazons and Amazons with split turns: one rules kernel, two environments."""
