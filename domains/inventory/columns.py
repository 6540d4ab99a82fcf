"""The exact number types inventory tables share: quantities and costs. (Timestamps, id reuse and
CHECKs over a Literal come from the kit, like every domain's.)"""

from __future__ import annotations

from sqlalchemy import Numeric

# Quantities to the thousandth (grams of a kilogram, millimetres of a metre); costs to a
# hundredth of a cent, so that a moving average of cheap parts does not round to zero.
QUANTITY = Numeric(18, 3)
COST = Numeric(18, 4)
