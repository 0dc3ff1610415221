"""Skirmish w/ Holes and Skirmish Endgame 1: one rules kernel, two environments."""
