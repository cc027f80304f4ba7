"""A top-level module outside the rt_samples package (so outside its default project root)."""


class PrepareMixin:
    def _prepare(self) -> None:
        self.prepared = True
