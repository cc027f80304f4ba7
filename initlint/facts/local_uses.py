"""How a function uses an object it built into a local (``net = resnet50()``): which parts
it takes from it (``self.body = net.layer4``), which methods it calls on it, and whether the
object itself goes anywhere (passed, returned, stored, iterated). A construction that keeps
only some parts of such an object throws the rest away (IL005); these ``local_use``
effects are what tells."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from initlint.facts.expressions import dotted
from initlint.facts.passes import filled_tensor, integer_literal, is_fill_diagonal
from initlint.facts.walk import SCOPES

# How a mention of a built local uses it (``Effect.target`` of a ``local_use`` effect):
# "part" (``net.fc.in_features``: ``detail`` the dotted path read), "call" (a method called
# on it as a statement, result unused: ``detail`` the method), "whole" (anything else that
# hands the object on: an argument, a return, a store, a method call whose result is kept,
# a mention inside a nested function or lambda), "drop" (``del net``), "lend" (an argument
# of ``super().__init__(...)`` or ``Base.__init__(self, ...)``: the ancestor's construction
# may be the object's only user, then it follows the object under its parameter's name),
# "children" (a slice of the modules it holds, in the order it registered them,
# ``list(net.children())[:-2]``: ``detail`` the slice's bounds written out, ``:-2``),
# "fill" (a part filled whole in place, ``nn.init.normal_(net.weight)``: ``detail`` the
# part; it stays in the object, and its fill goes where the object is stored),
# "copy" (``copy.deepcopy(net)``: a new object made from it; it goes nowhere itself),
# "hand" (an argument of a call of a name, ``Wrapper(net)``: ``detail`` the callee as
# written, a colon, and the argument's place or keyword, ``Wrapper:0``; what a class's
# construction does with it there decides, else it is handed on whole).
LocalUse = tuple[str, str, str]  # (name, how, detail)


def followed_names(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, self_name: str, nodes: list[ast.AST]
) -> frozenset[str]:
    """The names whose uses the function's ``local_use`` effects follow, found in one walk:

    - the locals it binds only by plain assignments of a call to that name alone
      (``net = resnet50()``; once, or once on each branch), of a part of what it holds
      (``net = net.features``: the object it held is dropped there) or of an object made
      there (``net = densenet121().features`` on another branch), or of another name
      (``out = layer`` on one branch, ``out = nn.Linear(...)`` on another: each binding
      is followed from where it is made), and nowhere else, and the
      parameters it rebinds so (``if vgg is None: vgg = vgg16()``): not a loop or ``with``
      target, not declared ``global`` or ``nonlocal``,
      not bound in a nested scope (each binding is followed from where it is made);
    - for an ``__init__`` (``self_name`` its first parameter), the parameters that may hold
      an object built for the construction alone (``super().__init__(resnet18())`` in a
      subclass, into ``def __init__(self, resnet)``): those it never rebinds or deletes and
      whose parts it reads (``resnet.layer1``). A construction that keeps only some parts of
      such an object throws the rest away, as with a built local.

    ``nodes``: the function's own nodes (``walk.own_nodes``)."""
    args = fn.args
    params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    if args.vararg is not None:
        params.add(args.vararg.arg)
    if args.kwarg is not None:
        params.add(args.kwarg.arg)
    bound: dict[str, int] = {}
    by_call: dict[str, int] = {}
    deleted: set[str] = set()
    roots: set[str] = set()  # (names whose attributes are read or written)
    for node in nodes:
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Store):
                bound[node.id] = bound.get(node.id, 0) + 1
            elif isinstance(node.ctx, ast.Del):
                deleted.add(node.id)
        elif isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name):
                roots.add(node.value.id)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            for name in node.names:
                bound[name] = 2
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and (
                isinstance(node.value, ast.Call | ast.Name)
                or _own_part(node.value, target.id)
                or _new_part(node.value)
            ):
                by_call[target.id] = by_call.get(target.id, 0) + 1
        elif isinstance(node, SCOPES) and not isinstance(node, ast.Lambda):
            bound[node.name] = 2  # a def or class of that name binds it too
    # (a parameter too, rebound by calls only: followed from each binding, as a local is)
    built = {n for n, calls in by_call.items() if bound.get(n) == calls}
    if fn.name == "__init__" and self_name:
        held = (params & roots) - {self_name, *bound, *deleted}
        held.difference_update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
        built |= held
    return frozenset(built)


def _own_part(value: ast.expr, name: str) -> bool:
    """Whether ``value`` is an attribute path from the name ``name`` (``net.features``)."""
    while isinstance(value, ast.Attribute):
        value = value.value
    return isinstance(value, ast.Name) and value.id == name


def _new_part(value: ast.expr) -> bool:
    """Whether ``value`` is a part of an object made there (``densenet121().features``):
    the name holds no object of its own that a later use could mean, so the objects its
    other bindings build are still followed."""
    while isinstance(value, ast.Attribute):
        value = value.value
    return isinstance(value, ast.Call)


def uses_in(node: ast.AST, names: frozenset[str], statement: bool = False) -> Iterator[LocalUse]:
    """Each mention of one of ``names`` in ``node``, in source order, as a ``LocalUse``.
    ``statement``: ``node`` is an expression statement's value (a call's result unused)."""
    if isinstance(node, ast.Call):
        yield from _call(node, names, statement)
        return
    sliced = _children_slice(node, names)
    if sliced is not None:
        yield sliced
        return
    if isinstance(node, ast.Attribute):
        path, root = _path(node)
        if isinstance(root, ast.Name) and root.id in names:
            if isinstance(node.ctx, ast.Store | ast.Del):
                # ``net.fc = v`` replaces a part (an ``objattr`` effect), ``del net.fc``
                # drops it, and ``net.fc.weight.data = v`` puts new numbers in the tensor
                # ``net.fc.weight``
                drop = 2 if len(path) > 1 and path[-1] == "data" else 1
                path = path[:-drop]
            if path:
                yield (root.id, "part", ".".join(path))
            return
    if isinstance(node, ast.Name):
        if node.id in names and not isinstance(node.ctx, ast.Store):
            yield (node.id, "drop" if isinstance(node.ctx, ast.Del) else "whole", "")
        return
    if isinstance(node, SCOPES):
        # run later, or never: any mention there may hand the object on
        found = sorted({n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in names})
        for name in found:
            yield (name, "whole", "")
        return
    for child in ast.iter_child_nodes(node):
        yield from uses_in(child, names)


def _call(call: ast.Call, names: frozenset[str], statement: bool) -> Iterator[LocalUse]:
    func = call.func
    copied = _copied(call, names)
    if copied:
        yield (copied, "copy", "")
        return
    filled = whole_part_fill(call, names)
    if filled is not None:
        # (the part stays in the object, refilled: the fill goes where the object does)
        yield filled[0], "fill", filled[1]
        return
    if isinstance(func, ast.Attribute) and func.attr == "__init__":
        # (an ancestor's construction, ``super().__init__(net)``: it may take the object over)
        yield from uses_in(func, names)
        for arg in (*call.args, *(k.value for k in call.keywords)):
            if isinstance(arg, ast.Name) and arg.id in names:
                yield (arg.id, "lend", "")
            else:
                yield from uses_in(arg, names)
        return
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        if func.value.id in names:  # ``net.eval()``: a method of the object itself
            yield (func.value.id, "call" if statement else "whole", func.attr)
        else:
            yield from uses_in(func, names)
    else:
        yield from uses_in(func, names)
    callee = dotted(func)
    for at, arg in enumerate(call.args):
        if callee and isinstance(arg, ast.Name) and arg.id in names:
            yield (arg.id, "hand", f"{callee}:{at}")
        else:
            yield from uses_in(arg, names)
        if isinstance(arg, ast.Starred):
            callee = ""  # (the places after it are not known)
    for k in call.keywords:
        if callee and k.arg is not None and isinstance(k.value, ast.Name) and k.value.id in names:
            yield (k.value.id, "hand", f"{callee}:{k.arg}")
        else:
            yield from uses_in(k.value, names)


def whole_part_fill(call: ast.Call, names: frozenset[str]) -> tuple[str, str, ast.Name] | None:
    """The local of ``names``, its own part that ``call`` fills whole, in place, from
    nothing the object holds (``nn.init.normal_(fc.weight)``, ``fc.bias.data.zero_()``),
    and the mention of the local there: a fill the object carries to wherever it is stored
    (``FunctionReader._carry_fills``), no part taken out of it; None for any other call."""
    tensor = filled_tensor(call)
    if tensor is None or not isinstance(tensor, ast.Attribute) or is_fill_diagonal(call):
        return None
    path, root = _path(tensor)
    if not isinstance(root, ast.Name) or root.id not in names:
        return None
    if [p for p in path if p != "data"] != [path[0]] or path[0] == "data":
        return None
    rest = [a for a in call.args if a is not tensor] + [k.value for k in call.keywords]
    if any(isinstance(n, ast.Name) and n.id == root.id for a in rest for n in ast.walk(a)):
        return None
    return root.id, path[0], root


def _copied(call: ast.Call, names: frozenset[str]) -> str:
    """The local ``copy.deepcopy(net)`` (or ``deepcopy(net)``) copies, "" for any other
    call: the copy is a new object, built anew from the local's parts; the local itself
    goes nowhere."""
    func = call.func
    named = (isinstance(func, ast.Name) and func.id == "deepcopy") or (
        isinstance(func, ast.Attribute)
        and func.attr == "deepcopy"
        and isinstance(func.value, ast.Name)
        and func.value.id == "copy"
    )
    if not named or call.keywords or len(call.args) != 1:
        return ""
    arg = call.args[0]
    return arg.id if isinstance(arg, ast.Name) and arg.id in names else ""


def _children_slice(node: ast.AST, names: frozenset[str]) -> LocalUse | None:
    """``list(net.children())[:-2]`` (or ``[*net.children()][1:]``), the bounds integers
    written out: a slice of the modules ``net`` holds, as ``(net, "children", ":-2")``."""
    if not isinstance(node, ast.Subscript) or not isinstance(node.slice, ast.Slice):
        return None
    cut = node.slice
    bounds = [_bound(b) for b in (cut.lower, cut.upper)]
    if cut.step is not None or any(b is None for b in bounds):
        return None
    listed = node.value
    if (
        isinstance(listed, ast.Call)
        and isinstance(listed.func, ast.Name)
        and listed.func.id == "list"
        and len(listed.args) == 1
        and not listed.keywords
    ):
        walked = listed.args[0]
    elif (
        isinstance(listed, ast.List)
        and len(listed.elts) == 1
        and isinstance(listed.elts[0], ast.Starred)
    ):
        walked = listed.elts[0].value
    else:
        return None
    if not (
        isinstance(walked, ast.Call)
        and not walked.args
        and not walked.keywords
        and isinstance(walked.func, ast.Attribute)
        and walked.func.attr == "children"
        and isinstance(walked.func.value, ast.Name)
        and walked.func.value.id in names
    ):
        return None
    return (walked.func.value.id, "children", ":".join(str(b) for b in bounds))


def _bound(node: ast.expr | None) -> str | None:
    """A slice bound as written: "" when left out, the integer, None for anything else."""
    if node is None:
        return ""
    value = integer_literal(node)
    return None if value is None else str(value)


def _path(node: ast.Attribute) -> tuple[list[str], ast.expr]:
    """``net.layer4.conv`` -> (["layer4", "conv"], the ``net`` node)."""
    path: list[str] = []
    cur: ast.expr = node
    while isinstance(cur, ast.Attribute):
        path.append(cur.attr)
        cur = cur.value
    path.reverse()
    return path, cur
