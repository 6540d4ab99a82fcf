"""The inventory capabilities, registered by concept; capabilities.py fixes their order."""
