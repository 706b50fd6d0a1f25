"""A small thread-safe cache of values made on first use, the least recently used dropped beyond
its size. For things that never change once made (a snapshot's live files, a parsed metadata
file): a value is made outside the lock, so a slow read does not hold up other keys."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class Lru(Generic[V]):
    def __init__(self, size: int) -> None:
        self.size = size
        self.kept: OrderedDict[Hashable, V] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: Hashable, make: Callable[[], V]) -> V:
        with self.lock:
            if key in self.kept:
                self.kept.move_to_end(key)
                return self.kept[key]
        value = make()
        with self.lock:
            self.kept[key] = value
            while len(self.kept) > self.size:
                self.kept.popitem(last=False)
        return value
