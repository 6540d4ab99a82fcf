"""The catalogue: the registry of capabilities, the agents, the mode rule, views and what tools/list serves."""
