"""The run tables' column types, named without importing Polars (which takes a second or more to import).

A game declares its columns with these (``dtypes.Int64()``, ``dtypes.List(dtypes.Int8())``) when its module is
imported, and the command line imports every game to list its commands: with Polars' own types there, `palais --help`
imported Polars. :func:`polars_dtype` gives the Polars type where a table is written or read; a game may also name
Polars types directly (a user's game that imports Polars anyway).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    import polars as pl


class DType(NamedTuple):
    """A Polars type by name (``Int64``), with its element type for a list; printed as Polars prints it."""

    name: str
    inner: DType | None = None

    def __str__(self) -> str:
        return f"{self.name}({self.inner})" if self.inner is not None else self.name


class _Kind:
    """A type constructor, called as Polars' is: ``Int64()``, ``List(Int8())``."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, inner: DType | None = None) -> DType:
        return DType(self.name, inner)


Boolean, Float64, Int8, Int16, Int32, Int64, List, String, UInt64 = (
    _Kind(name) for name in ("Boolean", "Float64", "Int8", "Int16", "Int32", "Int64", "List", "String", "UInt64")
)


def polars_dtype(dtype: Any) -> pl.DataType:
    """The Polars type of a column's type (a :class:`DType`, or a Polars type as it is)."""
    if not isinstance(dtype, DType):
        return dtype
    import polars as pl

    kind = getattr(pl, dtype.name)
    return kind(polars_dtype(dtype.inner)) if dtype.inner is not None else kind()
