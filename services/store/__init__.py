"""The store itself: its defaults, the demo seed and scheduled maintenance."""
