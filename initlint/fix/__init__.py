"""The autofix codemod: plan (strategies), transform (libcst), apply (atomic writes)."""
