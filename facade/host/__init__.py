"""The reference agent host: the other side of the wire, and the home of the identity hook.

It talks to the facade only over MCP and HTTP, like any other client.
"""
