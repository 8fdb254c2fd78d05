"""How data shared by several commands is shown (tables and JSON shapes)."""
