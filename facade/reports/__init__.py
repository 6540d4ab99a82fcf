"""Reports over the catalogue: context budget, deny-lists, TOOLS.md, the inventory, the CI gate, token counts."""
