"""Leaf helpers shared by every layer; they import nothing of bidlab but simulate.errors."""
