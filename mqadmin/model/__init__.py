"""Typed protocol bodies shared by the admin client and the embedded servers."""
