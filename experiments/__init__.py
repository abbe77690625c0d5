"""Paper-facing layer: the papers' published statements next to the code that checks them."""
