"""The command line and the client-side programs it runs (operator client, stdio bridge)."""
