"""``--format github``: GitHub Actions workflow commands, one annotation per diagnostic.

``::warning file=F,line=L,col=C,endLine=EL,endColumn=EC,title=IL001 (rule-name)::message``

Escaping follows the Actions runner: in the message ``%``, ``\\r`` and ``\\n`` are percent-encoded;
in property values ``:`` and ``,`` are too. Related locations become extra message lines.
"""

from __future__ import annotations

from collections.abc import Sequence

from initlint.diagnostics import Diagnostic
from initlint.output.text import fix_hint, printable


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(d: Diagnostic) -> str:
    props = {
        "file": d.path,
        "line": str(d.line),
        "col": str(d.column),
        "endLine": str(d.end_line),
        "endColumn": str(d.end_column),
        "title": f"{d.code} ({d.rule})",
    }
    head = ",".join(f"{k}={escape_property(v)}" for k, v in props.items())
    lines = [d.message]
    lines.extend(f"note: {r.path}:{r.line}: {r.message}" for r in d.related)
    if not d.code.startswith("IL9"):
        lines.append(f"help: {fix_hint(d)}")
    level = "error" if d.severity == "error" else "warning"
    return f"::{level} {head}::{escape_data(chr(10).join(lines))}"


def render_github(diagnostics: Sequence[Diagnostic], color: bool = False) -> str:
    return printable("".join(annotation(d) + "\n" for d in diagnostics))
