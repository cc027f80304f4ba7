"""How an index gets a module's facts: the ``ModuleLoader`` it is handed, never a call back
into whoever built it. The check's loaders (the serial one, the driver's) live with them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from initlint.environment import Distribution
from initlint.facts.model import ModuleFacts
from initlint.records import dataclass


class ModuleLoader(Protocol):
    """Reads the facts of the modules an index loads on demand."""

    def load(self, path: Path) -> ModuleFacts:
        """The facts of the project file ``path``."""
        ...

    def load_dependency(self, path: Path, dist: Distribution) -> ModuleFacts:
        """The facts of ``path``, a file of the installed distribution ``dist``."""
        ...


@dataclass(frozen=True)
class ProjectFiles:
    """A loader of project files only, by ``read``: for an index with no environment (its
    callers outside the check), which never reaches an installed module; were it to, the
    module would have no facts."""

    read: Callable[[Path], ModuleFacts]

    def load(self, path: Path) -> ModuleFacts:
        return self.read(path)

    def load_dependency(self, path: Path, dist: Distribution) -> ModuleFacts:
        return ModuleFacts()
