"""The language server (``initlint server``, the optional ``initlint[lsp]`` extra).

``session`` holds the editor's state and runs the analyses (no protocol there); ``lsp``
speaks the protocol with pygls; ``command`` is the click command, which imports pygls only
when it runs.
"""
