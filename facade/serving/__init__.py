"""Serving: the service every transport enters, the call path, the database and its migrations."""
