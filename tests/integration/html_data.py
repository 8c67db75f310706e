"""html_data: reads the data a flyprof HTML page embeds (not a test itself).

The page carries one JSON object in <script type="application/json" id="fp-data">; its call
tree is a string of digits (collector/render/out_html.h): per node, h = children * 2 + same,
the frame table index, then the weight unless `same` says it is what is left of the parent's
weight after the node's earlier siblings. A diff adds `base`, one plain number per node, and
`lost`: per node the width that frames only in the base take in its subtree, so its own (NEW)
weight is weight - lost.
"""
import json
import re

END = "#$%()*+,-./0123456789:;=?@ABCDEFGHIJKLMNOPQR"
MORE = "STUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}~!"
BASE = 44


def numbers(s):
    """The numbers of a digit string: little-endian base 44, 'more' digits then an 'end'."""
    out, v, mul = [], 0, 1
    for ch in s:
        i = MORE.find(ch)
        if i >= 0:
            v += i * mul
            mul *= BASE
            continue
        v += END.index(ch) * mul
        out.append(v)
        v, mul = 0, 1
    return out


def load(path):
    """The page's data object."""
    with open(path, encoding="utf-8") as f:
        page = f.read()
    m = re.search(r'<script type="application/json" id="fp-data">(.*?)</script>', page, re.S)
    if not m:
        raise ValueError("%s: no fp-data script" % path)
    return json.loads(m.group(1))


class Node:
    def __init__(self, name, typ, weight, parent):
        self.name, self.type, self.weight, self.parent = name, typ, weight, parent
        self.base = 0
        self.lost = 0
        self.path = (parent.path if parent else ()) + (name,)


def tree(data, suffix=""):
    """The nodes of the tree under `tree<suffix>`, in preorder, with base weights when the
    page is a diff."""
    names, types = data["names" + suffix], data["types" + suffix]
    nums = numbers(data["tree" + suffix])
    n = data["n" + suffix]
    nodes, stack, pos = [], [], 0
    for _ in range(n):
        h, entry = nums[pos], nums[pos + 1]
        pos += 2
        kids, same = divmod(h, 2)
        if stack and same:
            w = stack[-1][2]
        else:
            w = nums[pos]
            pos += 1
        parent = stack[-1][0] if stack else None
        if stack:
            stack[-1][1] -= 1
            stack[-1][2] -= w
        # one character per frame, '0' + enum render_type (stubs are ';', small frames '=')
        node = Node(names[entry], ord(types[entry]) - ord("0"), w, parent)
        nodes.append(node)
        if kids:
            stack.append([node, kids, w])
        while stack and stack[-1][1] == 0:
            stack.pop()
    if pos != len(nums) or stack:
        raise ValueError("tree%s: %d numbers used of %d, %d nodes open" %
                         (suffix, pos, len(nums), len(stack)))
    if "base" + suffix in data:
        for node, b in zip(nodes, numbers(data["base" + suffix])):
            node.base = b
    if "lost" + suffix in data:
        for node, b in zip(nodes, numbers(data["lost" + suffix])):
            node.lost = b
    return nodes


def own(node):
    """A diff node's own weight in NEW (its width less that of frames only in the base)."""
    return node.weight - node.lost
