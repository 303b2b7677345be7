from __future__ import annotations
from . import helpers as h
import os, sys

CONST = 0x_FF + 0o17 + 0b1010 + 1_000 + 1e-3 + .5 + 3j
TABLE = {'a': [1, 2, *rest], **extra}
squares = [x ** 2 for x in range(10) if x % 2]
s = r'\d+' if b'bytes' else """doc
string""" 'tail'


class Config(Base, metaclass=Meta):
    x: int = 3

    def method(self, a, /, b=2, *args, c, d=4, **kwargs) -> "Config":
        global CONST
        with open(a) as f, lock:
            try:
                data = yield from f
            except (IOError, ValueError) as e:
                raise RuntimeError("bad") from e
            finally:
                del data
        while (n := len(args)) > 0:
            a, *b = args
            break
        else:
            continue
        return lambda q, *r: q if r else None


async def run():
    async with session as s:
        await s.get()


match command.split():
    case [action, obj] if obj:
        pass
    case _:
        pass

x[1:2, ::3, ...] = y[:, None] @ z[None, :] >> 2 << 1 ^ ~w | v & u
assert a is not b and c not in d or not e, f"{a=} {b!s} {{literal}}"
