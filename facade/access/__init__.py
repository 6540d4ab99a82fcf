"""Access: who is calling (identity), what they may do (elevations, cards, approvals) and what was done (audit)."""
