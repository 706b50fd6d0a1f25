"""A statement's nodes by class, from one walk of its tree.

Before a query is translated a dozen checks ask whether it holds a kind of node (system function
calls, pivots, NEXTVAL, tag calls, MATCH_RECOGNIZE, table references, ...); each walked the whole
tree (~0.2 ms apiece for a TPC-H query, most of a cached translation's cost). They read this
instead. It describes the tree as it was walked: build a new one after changing the tree.
"""

from __future__ import annotations

from sqlglot import exp


class Nodes:
    def __init__(self, tree: exp.Expression) -> None:
        self.tree = tree
        self._by_class: dict[type[exp.Expression], list[exp.Expression]] = {}
        for node in tree.walk():  # breadth first, as find_all: each class's nodes in that order
            self._by_class.setdefault(type(node), []).append(node)

    def of(self, *classes: type[exp.Expression]) -> list[exp.Expression]:
        """The nodes that are instances of any of `classes` (subclasses included, as find_all)."""
        found: list[exp.Expression] = []
        for kind, nodes in self._by_class.items():
            if issubclass(kind, classes):
                found += nodes
        return found

    def has(self, *classes: type[exp.Expression]) -> bool:
        return any(issubclass(kind, classes) for kind in self._by_class)
