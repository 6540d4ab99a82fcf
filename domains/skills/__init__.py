from domains.skills.capabilities import domain

__all__ = ["domain"]
