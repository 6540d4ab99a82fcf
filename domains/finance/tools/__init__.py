"""The finance capabilities, one module per concept; importing a module registers its tools."""
