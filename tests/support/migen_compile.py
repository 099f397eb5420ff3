# SPDX-License-Identifier: BSD-2-Clause
"""Migen's simulator, compiled: statement lists turned into Python functions once per simulation.

Migen's evaluator walks each statement's tree on every clock edge and every combinational pass,
asking each node its type (over four fifths of a word-level simulation's time went there). Here
each list of statements (a combinational group, a clock domain's synchronous statements) becomes
the source of one Python function that does what the evaluator does, node for node: the same reads
(before or after the pending assignments), the same widths, truncation and sign extension, the
same choice of an If's or a Case's branch. Anything else (memories' locations, arrays of values
that are not signals, Display) is handed to Migen's evaluator as it stands.

Signals the compiled code reads start at their reset value in the evaluator's table (Migen keeps
None there until the first assignment and reads None as the reset value): the simulator runs every
combinational statement once before its first clock edge, so the values it then computes are the
same. `ECPSATA_MIGEN_INTERPRET=1` runs Migen's own evaluator instead (tests/test_migen_speed.py
checks both give the same simulation).
"""

import os

from migen.fhdl.bitcontainer import value_bits_sign
from migen.fhdl.specials import _MemoryLocation
from migen.fhdl.structure import (Case, Cat, ClockSignal, Constant, Display, If, Replicate,
                                  ResetSignal, Signal, _ArrayProxy, _Assign, _Operator, _Part,
                                  _Slice)

INTERPRET = "ECPSATA_MIGEN_INTERPRET"
_BINARY = {"+": "+", "-": "-", "*": "*", ">>>": ">>", "<<<": "<<", "&": "&", "^": "^", "|": "|",
           "<": "<", "<=": "<=", "==": "==", "!=": "!=", ">": ">", ">=": ">="}
_MAX_DEPTH = 40          # nested blocks beyond this go into a function of their own


def enabled():
    return os.environ.get(INTERPRET, "") in ("", "0")


def _replicate(v, nbits, n):
    v &= (1 << nbits) - 1
    return sum(v << i*nbits for i in range(n))


class _Compiler:
    def __init__(self, evaluator, domains):
        self.ev = evaluator
        self.domains = domains
        self.names = {}                  # name in the generated code -> object
        self.functions = []              # source of each generated function
        self.count = 0

    def bind(self, obj):
        name = f"_o{len(self.names)}"
        self.names[name] = obj
        return name

    def temp(self):
        self.count += 1
        return f"_t{self.count}"

    def read(self, sig):
        sv = self.ev.signal_values
        if sv[sig.duid] is None:
            sv[sig.duid] = sig.reset.value
        return sig.duid

    # expressions -------------------------------------------------------------------------------
    def expr(self, node, post=False):
        if isinstance(node, Constant):
            return f"({node.value})"
        if isinstance(node, Signal):
            d = self.read(node)
            return f"mods.get({d}, sv[{d}])" if post else f"sv[{d}]"
        if isinstance(node, _Operator):
            op, ops = node.op, node.operands
            a = self.expr(ops[0], post)
            if op == "~":
                return f"(~{a})"
            if op == "-" and len(ops) == 1:
                return f"(-{a})"
            if op == "m":
                return f"({self.expr(ops[1], post)} if {a} else {self.expr(ops[2], post)})"
            if op in _BINARY:
                return f"({a} {_BINARY[op]} {self.expr(ops[1], post)})"
            raise NotImplementedError(op)
        if isinstance(node, _Slice):
            v = self.expr(node.value, post)
            mask = (1 << (node.stop - node.start)) - 1
            return f"(({v} >> {node.start}) & {mask})" if node.start else f"({v} & {mask})"
        if isinstance(node, _Part):
            return (f"(({self.expr(node.value, post)} >> {self.expr(node.offset, post)}) & "
                    f"{(1 << node.width) - 1})")
        if isinstance(node, Cat):
            parts, shift = [], 0
            for element in node.l:
                nbits = len(element)
                part = f"({self.expr(element, post)} & {(1 << nbits) - 1})"
                parts.append(f"({part} << {shift})" if shift else part)
                shift += nbits
            return "(" + (" | ".join(parts) or "0") + ")"
        if isinstance(node, Replicate):
            return f"_replicate({self.expr(node.v, post)}, {len(node.v)}, {node.n})"
        if isinstance(node, _ArrayProxy) and all(type(c) is Signal for c in node.choices) \
                and not post:
            table = self.bind(tuple(self.read(c) for c in node.choices))
            return f"sv[{table}[min({len(node.choices) - 1}, {self.expr(node.key)})]]"
        if isinstance(node, ClockSignal):
            return self.expr(self.domains[node.cd].clk, post)
        if isinstance(node, ResetSignal) and self.domains[node.cd].rst is not None:
            return self.expr(self.domains[node.cd].rst, post)
        # arrays of values, memory locations, a reset of a domain without one: Migen's evaluator
        return f"ev.eval({self.bind(node)}, {post})"

    # assignments -------------------------------------------------------------------------------
    def assign(self, node, value, out, ind):
        pad = " " * ind
        if isinstance(node, Signal):
            assert not node.variable
            full = 1 << node.nbits
            if node.signed:
                t = self.temp()
                out.append(f"{pad}{t} = {value} & {full - 1}")
                out.append(f"{pad}if {t} & {full >> 1}: {t} -= {full}")
                out.append(f"{pad}mods[{node.duid}] = {t}")
            else:
                out.append(f"{pad}mods[{node.duid}] = {value} & {full - 1}")
        elif isinstance(node, Cat):
            t = self.temp()
            out.append(f"{pad}{t} = {value}")
            shift = 0
            for element in node.l:
                nbits = len(element)
                part = f"({t} >> {shift})" if shift else t
                self.assign(element, f"({part} & {(1 << nbits) - 1})", out, ind)
                shift += nbits
        elif isinstance(node, _Slice):
            t = self.temp()
            width = node.stop - node.start
            out.append(f"{pad}{t} = {self.expr(node.value, True)} & "
                       f"{~(((1 << width) - 1) << node.start)}")
            out.append(f"{pad}{t} |= ({value} & {(1 << width) - 1}) << {node.start}")
            self.assign(node.value, t, out, ind)
        elif isinstance(node, _Part):
            t, s = self.temp(), self.temp()
            out.append(f"{pad}{t} = {self.expr(node.value, True)}")
            out.append(f"{pad}{s} = {self.expr(node.offset, True)}")
            out.append(f"{pad}{t} &= ~((2**({s} + {node.width}) - 1) - (2**{s} - 1))")
            out.append(f"{pad}{t} |= ({value} & (2**{node.width} - 1)) << {s}")
            self.assign(node.value, t, out, ind)
        else:                            # arrays, memory locations: Migen's evaluator
            out.append(f"{pad}ev.assign({self.bind(node)}, {value})")

    # statements --------------------------------------------------------------------------------
    def block(self, statements, out, ind):
        start = len(out)
        if ind // 4 > _MAX_DEPTH:        # Python limits how deep blocks nest
            name = self.function(statements)
            out.append(" " * ind + f"{name}()")
            return
        for s in statements:
            self.statement(s, out, ind)
        if len(out) == start:
            out.append(" " * ind + "pass")

    def statement(self, s, out, ind):
        pad = " " * ind
        if isinstance(s, _Assign):
            self.assign(s.l, self.expr(s.r), out, ind)
        elif isinstance(s, If):
            keyword = "if"
            while True:
                out.append(f"{pad}{keyword} {self.expr(s.cond)} & {(1 << len(s.cond)) - 1}:")
                self.block(s.t, out, ind + 4)
                if len(s.f) == 1 and isinstance(s.f[0], If):
                    s, keyword = s.f[0], "elif"
                    continue
                if s.f:
                    out.append(f"{pad}else:")
                    self.block(s.f, out, ind + 4)
                break
        elif isinstance(s, Case):
            nbits, signed = value_bits_sign(s.test)
            t = self.temp()
            out.append(f"{pad}{t} = {self.expr(s.test)} & {(1 << nbits) - 1}")
            if signed:
                out.append(f"{pad}if {t} & {1 << (nbits - 1)}: {t} -= {1 << nbits}")
            keyword = "if"
            for k, v in s.cases.items():
                if isinstance(k, Constant):
                    out.append(f"{pad}{keyword} {t} == ({k.value}):")
                    self.block(v, out, ind + 4)
                    keyword = "elif"
            if "default" in s.cases:
                if keyword == "if":
                    self.block(s.cases["default"], out, ind)
                else:
                    out.append(f"{pad}else:")
                    self.block(s.cases["default"], out, ind + 4)
        elif isinstance(s, Display) or not hasattr(s, "__iter__"):
            out.append(f"{pad}ev.execute([{self.bind(s)}])")
        else:                            # a list or tuple of statements
            for e in s:
                self.statement(e, out, ind)

    def function(self, statements):
        name = f"_f{len(self.functions)}"
        out = [f"def {name}():"]
        self.functions.append(out)
        self.block(list(statements), out, 4)
        return name


def compile_lists(evaluator, domains, lists):
    """One Python function per statement list of `lists` (each as Migen's
    `evaluator.execute(list)` would run it), in the same order."""
    c = _Compiler(evaluator, domains)
    names = [c.function(statements) for statements in lists]
    source = "\n".join("\n".join(f) for f in c.functions) + "\n"
    namespace = dict(c.names, sv=evaluator.signal_values, mods=evaluator.modifications,
                     ev=evaluator, _replicate=_replicate)
    exec(compile(source, "<migen-compiled>", "exec"), namespace)
    return [namespace[n] for n in names]
